package arena

import com.fasterxml.jackson.core.JacksonException
import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.json.JsonMapper
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.ApplicationCall
import io.ktor.server.request.contentLength
import io.ktor.server.request.receiveChannel
import io.ktor.utils.io.readRemaining
import kotlinx.io.readByteArray

const val BODY_LIMIT = 65_536
private const val PASSWORD_LIMIT = 72

private val NAME = Regex("[A-Za-z0-9_.-]{1,64}")

// Strict JSON: Jackson refuses what kotlinx.serialization's tree parser lets through ({"a": abc}),
// and with this feature also anything after the first value.
private val json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build()

/** An error answer: [status] with [message] as its short plain-text body (see Application.kt). */
class ApiError(val status: HttpStatusCode, override val message: String) : Exception(message)

fun badRequest(message: String) = ApiError(HttpStatusCode.BadRequest, message)

private fun tooLarge() = ApiError(HttpStatusCode.PayloadTooLarge, "body larger than $BODY_LIMIT bytes")

/** [name] if it is a valid [what] (a username, a record's name): the contract's pattern, or 400. */
fun validName(what: String, name: String?): String {
    if (name == null || !NAME.matches(name)) throw badRequest("$what must match ${NAME.pattern}")
    return name
}

/** The `{username}` path segment, which Ktor has already percent-decoded. */
fun ApplicationCall.username(): String = validName("username", parameters["username"])

/** The body as UTF-8 text, if it is at most [BODY_LIMIT] bytes. */
suspend fun ApplicationCall.receiveUtf8(): String {
    if ((request.contentLength() ?: 0) > BODY_LIMIT) throw tooLarge()
    // One byte past the limit tells "too large" apart for chunked bodies, which announce no length.
    val bytes = receiveChannel().readRemaining(BODY_LIMIT + 1L).readByteArray()
    if (bytes.size > BODY_LIMIT) throw tooLarge()
    return try {
        bytes.decodeToString(throwOnInvalidSequence = true)
    } catch (_: CharacterCodingException) {
        throw badRequest("body is not UTF-8")
    }
}

/** [text] as one JSON value, whatever the request's Content-Type said. */
fun parseJson(text: String): JsonNode {
    val value = try {
        json.readTree(text)
    } catch (_: JacksonException) {
        null
    }
    if (value == null || value.isMissingNode) throw badRequest("body is not valid JSON")
    return value
}

/** [value] as JSON text. */
fun toJson(value: Any): String = json.writeValueAsString(value)

/** The UTF-8 bytes of `password` from a `{"password": string}` body, at most bcrypt's 72. */
suspend fun ApplicationCall.receivePassword(): ByteArray {
    val field = parseJson(receiveUtf8()).get("password")
    if (field == null || !field.isTextual) throw badRequest("body must be {\"password\": string}")
    val password = field.textValue().encodeToByteArray()
    if (password.size > PASSWORD_LIMIT) throw badRequest("password longer than $PASSWORD_LIMIT bytes")
    return password
}
