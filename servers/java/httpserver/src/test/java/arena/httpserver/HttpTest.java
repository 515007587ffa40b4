package arena.httpserver;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import arena.contract.HttpContractTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's HTTP tests on the JDK's server; then requests written as bytes, for what
 * this server adds to the JDK's parser (see {@link Route}) and what the contract's HTTP
 * rules ask of the JDK's own handling. Each of those is sent, the client half-closes, and
 * everything the server answers until it closes is read.
 */
class HttpTest extends HttpContractTest {

	@RegisterExtension
	static final TestServer server = new TestServer(HttpContractTest::settings);

	private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 \\d{3}");

	@Override
	protected int port() {
		return server.port();
	}

	@Test
	void http10WithoutHostIsAnsweredAndClosed() throws IOException {
		assertThat(exchange("GET / HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200 OK\r\n")
			.contains("Connection: close")
			.endsWith("\r\n\r\nOK");
	}

	@Test
	void otherVersionsAreRefused() throws IOException {
		assertThat(exchange("GET / HTTP/2.0\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 505 ");
		assertThat(exchange("GET / HTTP/0.9\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 505 ");
	}

	@Test
	void pipelinedRequestsAreAnsweredInOrder() throws IOException {
		String answers = exchange("GET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"
				+ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
		assertThat(statuses(answers)).containsExactly("HTTP/1.1 404", "HTTP/1.1 200", "HTTP/1.1 405");
	}

	/** The JDK reads {@code +2} as 2: the request hidden after the body is not served. */
	@Test
	void aSignedContentLengthIsRefusedAndCloses() throws IOException {
		String answers = exchange("POST /user/set/framing HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}"
				+ "GET /user/get/framing HTTP/1.1\r\nHost: x\r\n\r\n");
		assertThat(statuses(answers)).containsExactly("HTTP/1.1 400");
	}

	@Test
	void aNulInAHeaderValueIsRefused() throws IOException {
		assertThat(exchange("GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\0b\r\n\r\n")).startsWith("HTTP/1.1 400 ");
	}

	/**
	 * A chunk size the JDK reads as negative (over 2^31 - 1), or refuses after 15 of its
	 * 17 digits, is a malformed body: 400, and the connection closes before the request
	 * hidden after it is read.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "80000000", "10000000000000002" })
	void anOverflowingChunkSizeIsABadRequestAndCloses(String size) throws IOException {
		String answers = exchange("POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
				+ size + "\r\n{}\r\n0\r\n\r\nGET /user/get/chunked HTTP/1.1\r\nHost: x\r\n\r\n");
		assertThat(statuses(answers)).containsExactly("HTTP/1.1 400");
	}

	@Test
	void headIsNotAnswered() throws IOException {
		assertThat(exchange("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 405 ")
			.contains("Allow: GET\r\n")
			.endsWith("\r\n\r\n");
	}

	@Test
	void anEncodedSlashInAUsernameIsAnotherSegment() throws IOException {
		assertThat(exchange("GET /user/get/a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 404 ");
	}

	/** The status line of each answer in what a connection returned. */
	private static Stream<String> statuses(String answers) {
		return STATUS.matcher(answers).results().map((status) -> status.group());
	}

	private String exchange(String request) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port())) {
			socket.setSoTimeout(5000);
			socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
			socket.shutdownOutput();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

}
