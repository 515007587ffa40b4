package arena

import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.Application
import io.ktor.server.application.install
import io.ktor.server.plugins.statuspages.StatusPages
import io.ktor.server.response.respondBytes
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get
import io.ktor.server.routing.route
import io.ktor.server.routing.routing
import kotlinx.coroutines.delay
import java.util.concurrent.atomic.AtomicLong

/** The whole contract as a Ktor module; [hello] is the content of `hello.html`. */
fun Application.arena(config: Config, hello: ByteArray) {
    install(StatusPages) {
        exception<ApiError> { call, error -> call.respondText(error.message, status = error.status) }
        // Routing answers an unknown path with an empty 404; the contract wants a short message.
        // (Our own errors are ApiErrors, answered above, which this handler leaves alone.)
        status(HttpStatusCode.NotFound) { call, status -> call.respondText("no such path", status = status) }
    }
    install(SupportedHttpVersions)

    routing {
        endpoint("/") {
            get { call.respondText("OK") }
        }
        hello(hello, config.helloDelayEvery, config.helloDelayMs.toLong())
        endpoint("/longPoll") {
            get {
                // delay() suspends the coroutine only: the event-loop thread serves others meanwhile.
                delay(config.longPollMs.toLong())
                call.respondText("OK")
            }
        }
        passwords(config.bcryptCost)
        users()
        longOperation(config.sortN)
        records(config.dbUrl?.let { RecordStore(it, config.dbPool) })
    }
}

/**
 * The routes of one [path], answering 405 to the methods they leave out: Ktor's routing finds
 * that by itself only for paths without parameters, and says 404 for the others.
 */
fun Route.endpoint(path: String, build: Route.() -> Unit) {
    route(path) {
        build()
        handle { throw ApiError(HttpStatusCode.MethodNotAllowed, "method not allowed") }
    }
}

/** `/hello`: the page at once, except every [every]-th request, which waits [delayMs] first. */
private fun Route.hello(page: ByteArray, every: Int, delayMs: Long) {
    // One count for the whole server: all event-loop threads increment the same atomic.
    val count = AtomicLong()
    endpoint("/hello") {
        get {
            if (count.incrementAndGet() % every == 0L) delay(delayMs)
            call.respondBytes(page, ContentType.Text.Html)
        }
    }
}
