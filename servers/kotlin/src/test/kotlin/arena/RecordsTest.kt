package arena

import io.ktor.client.request.delete
import io.ktor.client.request.get
import io.ktor.client.request.request
import io.ktor.client.request.setBody
import io.ktor.client.statement.HttpResponse
import io.ktor.client.statement.bodyAsText
import io.ktor.http.ContentType
import io.ktor.http.HttpMethod
import io.ktor.http.HttpStatusCode
import io.ktor.http.contentType
import io.ktor.server.testing.ApplicationTestBuilder
import io.ktor.server.testing.testApplication
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

private fun recordTest(dbUrl: DbUrl?, block: suspend ApplicationTestBuilder.() -> Unit) = testApplication {
    application { arena(Config(dbUrl = dbUrl, dbPool = 2), ByteArray(0)) }
    block()
}

private suspend fun ApplicationTestBuilder.send(method: HttpMethod, body: String): HttpResponse =
    client.request("/record") {
        this.method = method
        contentType(ContentType.Application.Json)
        setBody(body)
    }

private suspend fun HttpResponse.assertRecord(status: HttpStatusCode, name: String, value: String) {
    assertEquals(status, this.status, bodyAsText())
    assertEquals(ContentType.Application.Json, contentType()?.withoutParameters())
    assertEquals(toJson(Record(name, value)), bodyAsText())
}

/** [status], with a body (every answer of the contract has one). */
private suspend fun HttpResponse.assertStatus(status: HttpStatusCode) {
    assertEquals(status, this.status, bodyAsText())
    assertTrue(bodyAsText().isNotBlank())
}

class RecordsTest {
    @Test
    fun `bad names and bodies give 400 before any database is asked`() = recordTest(dbUrl = null) {
        for (query in listOf("", "?name=", "?name=bad%20name", "?name=${"y".repeat(65)}", "?nam=r1")) {
            client.get("/record$query").assertStatus(HttpStatusCode.BadRequest)
            client.delete("/record$query").assertStatus(HttpStatusCode.BadRequest)
        }
        val bodies = listOf(
            "[1]", "\"text\"", "null", "{bad", "", """{"value": "x"}""", """{"name": "a"}""",
            """{"name": "a", "value": 5}""", """{"name": "a", "value": null}""", """{"name": 5, "value": "x"}""",
            """{"name": "bad name", "value": "x"}""", """{"name": "a", "value": "${"é".repeat(512)}x"}""",
            """{"name": "a", "value": "nul\u0000"}""", """{"name": "a", "value": "\ud800"}""",
        )
        for (body in bodies) {
            send(HttpMethod.Put, body).assertStatus(HttpStatusCode.BadRequest)
            send(HttpMethod.Post, body).assertStatus(HttpStatusCode.BadRequest)
        }
        send(HttpMethod.Put, """{"name": "a", "value": "${"v".repeat(BODY_LIMIT)}"}""")
            .assertStatus(HttpStatusCode.PayloadTooLarge)
        send(HttpMethod.Patch, """{"name": "a", "value": "x"}""").assertStatus(HttpStatusCode.MethodNotAllowed)
    }

    @Test
    fun `without ARENA_DB_URL valid requests give 503`() = recordTest(dbUrl = null) {
        send(HttpMethod.Put, """{"name": "a", "value": "x"}""").assertStatus(HttpStatusCode.ServiceUnavailable)
        client.get("/record?name=a").assertStatus(HttpStatusCode.ServiceUnavailable)
    }

    @Test
    fun `an unreachable database gives 503 within the contract's 5 s`() =
        recordTest(DbUrl.parse("postgresql://arena:arena@127.0.0.1:1/arena")) {
            val started = System.nanoTime()
            client.get("/record?name=a").assertStatus(HttpStatusCode.ServiceUnavailable)
            assertTrue(System.nanoTime() - started < 5_000_000_000, "answered after more than 5 s")
            client.get("/").assertStatus(HttpStatusCode.OK)
        }

    @Test
    @EnabledIfEnvironmentVariable(
        named = "ARENA_DB_URL",
        matches = ".+",
        disabledReason = "needs PostgreSQL: ARENA_DB_URL is unset (arena test sets it)",
    )
    fun `records are created, read, updated and deleted`() = recordTest(DbUrl.parse(System.getenv("ARENA_DB_URL"))) {
        val name = "kotlin.test-${System.nanoTime()}"
        send(HttpMethod.Put, """{"name": "$name", "value": "first", "extra": 1}""")
            .assertRecord(HttpStatusCode.Created, name, "first")
        send(HttpMethod.Put, """{"name": "$name", "value": "second"}""").assertStatus(HttpStatusCode.Conflict)
        client.get("/record?name=$name").assertRecord(HttpStatusCode.OK, name, "first")
        send(HttpMethod.Post, """{"name": "$name", "value": "x' OR '1'='1 ✓"}""")
            .assertRecord(HttpStatusCode.OK, name, "x' OR '1'='1 ✓")
        send(HttpMethod.Post, """{"name": "$name.none", "value": "x"}""").assertStatus(HttpStatusCode.NotFound)
        client.get("/record?name=$name.none").assertStatus(HttpStatusCode.NotFound)
        client.delete("/record?name=$name").assertRecord(HttpStatusCode.OK, name, "x' OR '1'='1 ✓")
        client.delete("/record?name=$name").assertStatus(HttpStatusCode.NotFound)
        client.get("/record?name=$name").assertStatus(HttpStatusCode.NotFound)
    }

    @Test
    @EnabledIfEnvironmentVariable(
        named = "ARENA_DB_URL",
        matches = ".+",
        disabledReason = "needs PostgreSQL: ARENA_DB_URL is unset (arena test sets it)",
    )
    fun `concurrent creates of one name give one 201`() = recordTest(DbUrl.parse(System.getenv("ARENA_DB_URL"))) {
        val name = "kotlin.race-${System.nanoTime()}"
        val statuses = coroutineScope {
            (1..8).map { k -> async { send(HttpMethod.Put, """{"name": "$name", "value": "$k"}""").status } }.awaitAll()
        }
        assertEquals(listOf(HttpStatusCode.Created), statuses.filter { it != HttpStatusCode.Conflict }, "$statuses")
        client.delete("/record?name=$name").assertStatus(HttpStatusCode.OK)
    }
}
