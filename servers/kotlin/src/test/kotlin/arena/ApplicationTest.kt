package arena

import io.ktor.client.request.get
import io.ktor.client.request.post
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
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.measureTimedValue

private val HELLO = "<p>hello</p>".encodeToByteArray()
private val CONFIG = Config(bcryptCost = 4, longPollMs = 50, helloDelayMs = 300, helloDelayEvery = 3, sortN = 10)

private fun arenaTest(block: suspend ApplicationTestBuilder.() -> Unit) = testApplication {
    application { arena(CONFIG, HELLO) }
    block()
}

private suspend fun ApplicationTestBuilder.postJson(path: String, body: String): HttpResponse = client.post(path) {
    contentType(ContentType.Application.Json)
    setBody(body)
}

private suspend fun HttpResponse.assert(status: HttpStatusCode, body: String? = null) {
    assertEquals(status, this.status, bodyAsText())
    if (body != null) assertEquals(body, bodyAsText()) else assertTrue(bodyAsText().isNotBlank())
}

class ApplicationTest {
    @Test
    fun `root and long poll answer OK`() = arenaTest {
        client.get("/").assert(HttpStatusCode.OK, "OK")
        val (response, took) = measureTimedValue { client.get("/longPoll") }
        response.assert(HttpStatusCode.OK, "OK")
        assertTrue(took >= 50.milliseconds, "long poll answered after $took")
    }

    @Test
    fun `every third hello waits, the others do not`() = arenaTest {
        val delayed = (1..6).filter { i ->
            val (response, took) = measureTimedValue { client.get("/hello") }
            response.assert(HttpStatusCode.OK, HELLO.decodeToString())
            assertEquals(ContentType.Text.Html, response.contentType()?.withoutParameters())
            took >= 300.milliseconds
        }
        assertEquals(listOf(3, 6), delayed)
    }

    @Test
    fun `passwords set and verify`() = arenaTest {
        postJson("/password/set/alice", """{"password": "secret"}""").assert(HttpStatusCode.OK, "OK")
        postJson("/password/verify/alice", """{"password": "secret"}""").assert(HttpStatusCode.OK, "OK")
        postJson("/password/verify/alice", """{"password": "Secret"}""").assert(HttpStatusCode.Forbidden)
        postJson("/password/verify/bob", """{"password": "secret"}""").assert(HttpStatusCode.NotFound)
        postJson("/password/set/euro", """{"password": "${"€".repeat(24)}"}""").assert(HttpStatusCode.OK, "OK")
        postJson("/password/set/euro", """{"password": "${"€".repeat(25)}"}""").assert(HttpStatusCode.BadRequest)
        for (body in listOf("{}", """{"password": 1}""", """{"password": null}""", "[]", "\"x\"", "{bad")) {
            postJson("/password/set/alice", body).assert(HttpStatusCode.BadRequest)
        }
        postJson("/password/set/bad%20name", """{"password": "x"}""").assert(HttpStatusCode.BadRequest)
    }

    @Test
    fun `users set and get JSON objects`() = arenaTest {
        val ada = """{"name": "Ada", "tags": ["math", "教育"], "nested": {"x": null}}"""
        postJson("/user/set/ada", ada).assert(HttpStatusCode.OK, "OK")
        val got = client.get("/user/get/ada")
        got.assert(HttpStatusCode.OK, ada)
        assertEquals(ContentType.Application.Json, got.contentType()?.withoutParameters())
        client.get("/user/get/nobody").assert(HttpStatusCode.NotFound)
        for (body in listOf("[1]", "42", "null", "{\"a\": 1", "")) {
            postJson("/user/set/ada", body).assert(HttpStatusCode.BadRequest)
        }
        client.get("/user/get/${"y".repeat(65)}").assert(HttpStatusCode.BadRequest)
    }

    @Test
    fun `bodies above 64 KiB are refused`() = arenaTest {
        fun objectOfSize(size: Int) = """{"pad":"${"x".repeat(size - 10)}"}"""
        postJson("/user/set/big", objectOfSize(BODY_LIMIT)).assert(HttpStatusCode.OK, "OK")
        postJson("/user/set/big", objectOfSize(BODY_LIMIT + 1)).assert(HttpStatusCode.PayloadTooLarge)
    }

    @Test
    fun `long operation answers the checksum`() = arenaTest {
        val done = """{"message":"done","n":10,"checksum":10.676268897597582}"""
        client.get("/long-operation?n=10").assert(HttpStatusCode.OK, done)
        client.get("/long-operation").assert(HttpStatusCode.OK, done)
        client.get("/long-operation?n=0").assert(HttpStatusCode.BadRequest)
    }

    @Test
    fun `unknown paths give 404, wrong methods 405`() = arenaTest {
        for (path in listOf("/nope", "/user/get/", "/user/get/a/b", "/hello/x", "/longpoll")) {
            client.get(path).assert(HttpStatusCode.NotFound)
        }
        for ((method, path) in listOf(
            HttpMethod.Post to "/",
            HttpMethod.Delete to "/hello",
            HttpMethod.Get to "/password/set/u",
            HttpMethod.Post to "/user/get/u",
            HttpMethod.Put to "/longPoll",
        )) {
            client.request(path) { this.method = method }.assert(HttpStatusCode.MethodNotAllowed)
        }
    }
}
