package arena

import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.ApplicationStopped
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.application
import io.ktor.server.routing.delete
import io.ktor.server.routing.get
import io.ktor.server.routing.post
import io.ktor.server.routing.put

private const val VALUE_LIMIT = 1024

/**
 * `/record` on [store], or answering 503 without one (no `ARENA_DB_URL`). Every request is
 * checked before the database is asked, so a 400 runs no SQL.
 */
fun Route.records(store: RecordStore?) {
    if (store != null) application.monitor.subscribe(ApplicationStopped) { store.close() }

    fun database() = store ?: throw ApiError(HttpStatusCode.ServiceUnavailable, "no database: ARENA_DB_URL is unset")

    endpoint("/record") {
        put {
            val record = call.receiveRecord()
            val created = database().create(record) ?: throw ApiError(HttpStatusCode.Conflict, "record exists")
            call.respondRecord(created, HttpStatusCode.Created)
        }
        get {
            val name = call.queryName()
            call.respondRecord(database().read(name) ?: throw noRecord())
        }
        post {
            val record = call.receiveRecord()
            call.respondRecord(database().update(record) ?: throw noRecord())
        }
        delete {
            val name = call.queryName()
            call.respondRecord(database().delete(name) ?: throw noRecord())
        }
    }
}

private fun noRecord() = ApiError(HttpStatusCode.NotFound, "no such record")

/** `?name=`, which Ktor has already percent-decoded. */
private fun ApplicationCall.queryName() = validName("name", request.queryParameters["name"])

/** A `{"name": string, "value": string}` body; other fields are ignored. */
private suspend fun ApplicationCall.receiveRecord(): Record {
    val body = parseJson(receiveUtf8())
    if (!body.isObject) throw badRequest("body must be a JSON object")
    val name = validName("name", body.get("name")?.takeIf { it.isTextual }?.textValue())
    val value = body.get("value")?.takeIf { it.isTextual }?.textValue() ?: throw badRequest("value must be a string")
    val bytes = try {
        value.encodeToByteArray(throwOnInvalidSequence = true)
    } catch (_: CharacterCodingException) {
        throw badRequest("value is not valid Unicode")
    }
    if (bytes.size > VALUE_LIMIT) throw badRequest("value longer than $VALUE_LIMIT bytes in UTF-8")
    // PostgreSQL's text cannot hold it.
    if ('\u0000' in value) throw badRequest("value must not contain U+0000")
    return Record(name, value)
}

private suspend fun ApplicationCall.respondRecord(record: Record, status: HttpStatusCode = HttpStatusCode.OK) =
    respondText(toJson(record), ContentType.Application.Json, status)
