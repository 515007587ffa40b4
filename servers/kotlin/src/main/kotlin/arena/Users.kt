package arena

import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get
import io.ktor.server.routing.post
import java.util.concurrent.ConcurrentHashMap

/** `/user/set` and `/user/get`: any JSON object per user, kept as the text it was sent as. */
fun Route.users() {
    val users = ConcurrentHashMap<String, String>()

    endpoint("/user/set/{username}") {
        post {
            val user = call.username()
            val text = call.receiveUtf8()
            if (!parseJson(text).isObject) throw badRequest("body must be a JSON object")
            users[user] = text
            call.respondText("OK")
        }
    }

    endpoint("/user/get/{username}") {
        get {
            val text = users[call.username()] ?: throw ApiError(HttpStatusCode.NotFound, "unknown user")
            call.respondText(text, ContentType.Application.Json)
        }
    }
}
