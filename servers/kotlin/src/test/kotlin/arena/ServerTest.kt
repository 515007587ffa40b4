package arena

import io.ktor.server.engine.EmbeddedServer
import kotlinx.coroutines.runBlocking
import java.net.Socket
import kotlin.test.AfterTest
import kotlin.test.BeforeTest
import kotlin.test.Test
import kotlin.test.assertTrue

/** The Netty engine as configured for the harness, over real sockets. */
class ServerTest {
    private lateinit var server: EmbeddedServer<*, *>
    private var port = 0

    @BeforeTest
    fun start() {
        server = arenaServer(Config(port = 0, bcryptCost = 4), "hello".encodeToByteArray()).start()
        port = runBlocking { server.engine.resolvedConnectors().first().port }
    }

    @AfterTest
    fun stop() = server.stop()

    /** Sends [request], shuts down the sending side, and reads the answer until the server closes. */
    private fun halfClosed(request: String): String = Socket("127.0.0.1", port).use { socket ->
        socket.soTimeout = 5000
        socket.getOutputStream().write(request.toByteArray())
        socket.shutdownOutput()
        socket.getInputStream().readBytes().decodeToString()
    }

    @Test
    fun `a client that half-closes still gets its answer`() {
        val answer = halfClosed("GET /long-operation?n=99999999999999999999 HTTP/1.1\r\nHost: x\r\n\r\n")
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer)
    }

    @Test
    fun `unsupported HTTP versions get 505`() {
        val answer = halfClosed("GET / HTTP/9.9\r\nHost: x\r\n\r\n")
        assertTrue(answer.substring(9).startsWith("505"), answer)
    }

    @Test
    fun `pipelined requests are all answered before the close`() {
        val answer = halfClosed("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3))
        assertTrue(Regex("HTTP/1.1 200").findAll(answer).count() == 3, answer)
    }

    @Test
    fun `an unknown transfer coding gets 501, and what follows its body is never read`() {
        val hidden = "GET /user/get/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        val answer = halfClosed(
            "POST /user/set/framing HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n" +
                "Content-Length: 2\r\n\r\n{}$hidden",
        )
        assertTrue(answer.startsWith("HTTP/1.1 501") && Regex("HTTP/1.1 ").findAll(answer).count() == 1, answer)
    }
}
