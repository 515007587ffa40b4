package arena.contract;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/1.1 requests to a server of this folder, which each module's test starts on a
 * random port of 127.0.0.1 its framework's way and names by {@link #port()}.
 */
public abstract class ServerTest {

	/** Where the tests find hello.html: the modules are two levels below spec/. */
	protected static final String DATA_DIR = "../../../spec/data";

	protected final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	protected abstract int port();

	protected HttpResponse<String> send(String method, String path, String body)
			throws IOException, InterruptedException {
		HttpRequest.BodyPublisher publisher = (body != null) ? BodyPublishers.ofString(body) : null;
		return this.client.send(request(method, path, publisher), BodyHandlers.ofString());
	}

	protected HttpRequest request(String method, String path, HttpRequest.BodyPublisher body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
			.header("Content-Type", "application/json")
			.method(method, (body != null) ? body : BodyPublishers.noBody())
			.build();
	}

	protected static void assertAnswer(HttpResponse<String> response, int status, String body) {
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.body()).isEqualTo(body);
	}

}
