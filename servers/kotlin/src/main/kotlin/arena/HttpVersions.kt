package arena

import io.ktor.http.HttpStatusCode
import io.ktor.server.application.createApplicationPlugin
import io.ktor.server.request.httpVersion
import io.ktor.server.response.respondText

private val SUPPORTED = setOf("HTTP/1.0", "HTTP/1.1")

/** Netty's decoder takes any `HTTP/x.y` request line as valid; we speak only HTTP/1.0 and 1.1. */
val SupportedHttpVersions = createApplicationPlugin("SupportedHttpVersions") {
    onCall { call ->
        if (call.request.httpVersion !in SUPPORTED) {
            call.respondText("HTTP version not supported", status = HttpStatusCode.VersionNotSupported)
        }
    }
}
