package arena

import at.favre.lib.crypto.bcrypt.BCrypt
import io.ktor.http.HttpStatusCode
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.post
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.util.concurrent.ConcurrentHashMap

/** `/password/set` and `/password/verify`: bcrypt hashes at [cost], one store for all threads. */
fun Route.passwords(cost: Int) {
    val hashes = ConcurrentHashMap<String, ByteArray>()

    endpoint("/password/set/{username}") {
        post {
            val user = call.username()
            val password = call.receivePassword()
            // bcrypt is CPU work: it runs on the cores' pool so the event loops keep serving.
            hashes[user] = withContext(Dispatchers.Default) { BCrypt.withDefaults().hash(cost, password) }
            call.respondText("OK")
        }
    }

    endpoint("/password/verify/{username}") {
        post {
            val user = call.username()
            val password = call.receivePassword()
            val hash = hashes[user]
            val matches = withContext(Dispatchers.Default) {
                if (hash == null) {
                    // Hash anyway, so an unknown user costs as much time as a known one.
                    BCrypt.withDefaults().hash(cost, password)
                    false
                } else {
                    BCrypt.verifyer().verify(password, hash).verified
                }
            }
            when {
                hash == null -> throw ApiError(HttpStatusCode.NotFound, "unknown user")
                !matches -> throw ApiError(HttpStatusCode.Forbidden, "wrong password")
            }
            call.respondText("OK")
        }
    }
}
