package arena;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/1.1 requests to the server a {@code @SpringBootTest} started on a random port.
 */
abstract class ServerTest {

	final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@LocalServerPort
	private int port;

	HttpResponse<String> send(String method, String path, String body) throws IOException, InterruptedException {
		HttpRequest.BodyPublisher publisher = (body != null) ? BodyPublishers.ofString(body) : null;
		return this.client.send(request(method, path, publisher), BodyHandlers.ofString());
	}

	HttpRequest request(String method, String path, HttpRequest.BodyPublisher body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Content-Type", "application/json")
			.method(method, (body != null) ? body : BodyPublishers.noBody())
			.build();
	}

	static void assertAnswer(HttpResponse<String> response, int status, String body) {
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.body()).isEqualTo(body);
	}

}
