package arena.contract;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract over real HTTP, the same for every server of this folder: each module's
 * {@code HttpTest} starts its server with {@link #settings()} (short waits, bcrypt cost
 * 4, no database) and runs these.
 */
public abstract class HttpContractTest extends ServerTest {

	private static final long HELLO_DELAY_MS = 1000;

	private static final long LONG_POLL_MS = 500;

	/** The settings of the server under test. */
	protected static ArenaConfig settings() {
		return ArenaConfig.load(Map.of("ARENA_BCRYPT_COST", "4", "ARENA_HELLO_DELAY_EVERY", "2", "ARENA_HELLO_DELAY_MS",
				String.valueOf(HELLO_DELAY_MS), "ARENA_LONGPOLL_MS", String.valueOf(LONG_POLL_MS), "ARENA_SORT_N",
				"300", "ARENA_DATA_DIR", DATA_DIR)::get);
	}

	@Test
	void rootIsReady() throws Exception {
		HttpResponse<String> response = send("GET", "/", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).isEqualTo("OK");
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> type.startsWith("text/plain"));
	}

	@Test
	void everySecondHelloWaitsWithoutHoldingUpTheOthers() throws Exception {
		byte[] page = Files.readAllBytes(Path.of(DATA_DIR, "hello.html"));
		HttpRequest hello = request("GET", "/hello", null);
		HttpResponse<byte[]> first = this.client.send(hello, BodyHandlers.ofByteArray());
		long started = System.nanoTime();
		CompletableFuture<HttpResponse<byte[]>> second = this.client.sendAsync(hello, BodyHandlers.ofByteArray());
		Thread.sleep(200);
		HttpResponse<byte[]> third = this.client.send(hello, BodyHandlers.ofByteArray());
		assertThat(second).isNotDone();
		assertThat(second.get().body()).isEqualTo(page);
		assertThat(Duration.ofNanos(System.nanoTime() - started))
			.isGreaterThanOrEqualTo(Duration.ofMillis(HELLO_DELAY_MS));
		assertThat(List.of(first, third)).allSatisfy((response) -> assertThat(response.body()).isEqualTo(page));
	}

	@Test
	void longPollsWaitTogether() {
		long started = System.nanoTime();
		List<CompletableFuture<HttpResponse<String>>> polls = IntStream.range(0, 20)
			.mapToObj((i) -> this.client.sendAsync(request("GET", "/longPoll", null), BodyHandlers.ofString()))
			.toList();
		assertThat(polls).allSatisfy((poll) -> assertThat(poll.join().body()).isEqualTo("OK"));
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		assertThat(elapsed).isBetween(Duration.ofMillis(LONG_POLL_MS), Duration.ofMillis(4 * LONG_POLL_MS));
	}

	@Test
	void passwordsAreSetAndVerified() throws Exception {
		assertAnswer(send("POST", "/password/set/alice", "{\"password\": \"correct horse\"}"), 200, "OK");
		assertAnswer(send("POST", "/password/verify/alice", "{\"password\": \"correct horse\"}"), 200, "OK");
		assertAnswer(send("POST", "/password/verify/alice", "{\"password\": \"wrong horse\"}"), 403, "wrong password");
		assertAnswer(send("POST", "/password/verify/nobody", "{\"password\": \"correct horse\"}"), 404, "unknown user");
	}

	@Test
	void passwordsAreLimitedTo72Utf8Bytes() throws Exception {
		assertAnswer(send("POST", "/password/set/euro", "{\"password\": \"" + "€".repeat(24) + "\"}"), 200, "OK");
		assertAnswer(send("POST", "/password/verify/euro", "{\"password\": \"" + "€".repeat(24) + "\"}"), 200, "OK");
		assertThat(send("POST", "/password/set/euro", "{\"password\": \"" + "€".repeat(25) + "\"}").statusCode())
			.isEqualTo(400);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "{not json", "[\"password\"]", "\"password\"", "{}", "{\"password\": 12345}",
			"{\"password\": null}", "{\"password\": \"x\"} trailing" })
	void malformedPasswordBodiesAreBadRequests(String body) throws Exception {
		assertThat(send("POST", "/password/set/bob", body).statusCode()).isEqualTo(400);
	}

	@ParameterizedTest
	@ValueSource(strings = { "bad%20name", "semi%3Bcolon", "semi;colon", "%C3%A9",
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" })
	void usernamesOutsideTheRegexAreBadRequests(String username) throws Exception {
		assertThat(send("POST", "/password/set/" + username, "{\"password\": \"x\"}").statusCode()).isEqualTo(400);
		assertThat(send("POST", "/user/set/" + username, "{}").statusCode()).isEqualTo(400);
		assertThat(send("GET", "/user/get/" + username, null).statusCode()).isEqualTo(400);
	}

	@Test
	void usersReadBackAsTheJsonSet() throws Exception {
		String user = "{\"name\": \"Ada\", \"tags\": [\"教育\"], \"big\": 12345678901234567890, \"n\": null}";
		assertAnswer(send("POST", "/user/set/ada.l-1_", user), 200, "OK");
		HttpResponse<String> response = send("GET", "/user/get/ada.l-1_", null);
		assertAnswer(response, 200, user);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
		assertAnswer(send("GET", "/user/get/nobody", null), 404, "unknown user");
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1, 2]", "\"text\"", "42", "null", "{bad json", "{\"a\": 1", "" })
	void usersMustBeJsonObjects(String body) throws Exception {
		assertThat(send("POST", "/user/set/u400", body).statusCode()).isEqualTo(400);
	}

	@Test
	void bodiesMustBeUtf8() throws Exception {
		HttpRequest latin1 = request("POST", "/user/set/latin",
				BodyPublishers.ofByteArray("{\"a\": \"é\"}".getBytes(StandardCharsets.ISO_8859_1)));
		assertThat(this.client.send(latin1, BodyHandlers.ofString()).statusCode()).isEqualTo(400);
	}

	@Test
	void bodiesAreLimitedTo64KiB() throws Exception {
		assertAnswer(send("POST", "/user/set/big", objectOfSize(65_536)), 200, "OK");
		assertAnswer(send("GET", "/user/get/big", null), 200, objectOfSize(65_536));
		assertThat(send("POST", "/user/set/big", objectOfSize(65_537)).statusCode()).isEqualTo(413);
		assertThat(send("POST", "/password/set/big", objectOfSize(300_000)).statusCode()).isEqualTo(413);
		assertThat(send("PUT", "/record", objectOfSize(65_537)).statusCode()).isEqualTo(413);
	}

	@Test
	void recordsWithoutADatabaseAreUnavailable() throws Exception {
		assertAnswer(send("GET", "/record?name=r1", null), 503, "database unavailable");
		assertAnswer(send("PUT", "/record", "{\"name\": \"r1\", \"value\": \"v\"}"), 503, "database unavailable");
		assertAnswer(send("GET", "/", null), 200, "OK");
	}

	// Refused before the database is asked: here there is none, which would answer 503.
	@ParameterizedTest
	@ValueSource(strings = { "", "[1, 2]", "null", "{bad json", "{\"value\": \"x\"}", "{\"name\": \"r1\"}",
			"{\"name\": \"r1\", \"value\": 5}", "{\"name\": \"r1\", \"value\": null}",
			"{\"name\": 5, \"value\": \"x\"}", "{\"name\": \"bad name\", \"value\": \"x\"}",
			"{\"name\": \"\", \"value\": \"x\"}", "{\"name\": \"r1\", \"value\": \"nul\\u0000\"}" })
	void malformedRecordBodiesAreBadRequests(String body) throws Exception {
		assertThat(send("PUT", "/record", body).statusCode()).isEqualTo(400);
		assertThat(send("POST", "/record", body).statusCode()).isEqualTo(400);
	}

	@Test
	void recordValuesAreLimitedTo1024Utf8Bytes() throws Exception {
		String body = "{\"name\": \"r1\", \"value\": \"" + "é".repeat(512) + "x\"}";
		assertThat(send("PUT", "/record", body).statusCode()).isEqualTo(400);
	}

	@ParameterizedTest
	@ValueSource(strings = { "/record", "/record?name=", "/record?nam=r1", "/record?name=bad%20name",
			"/record?name=x%27%20OR%20%271%27%3D%271" })
	void recordNamesOutsideTheRegexAreBadRequests(String path) throws Exception {
		assertThat(send("GET", path, null).statusCode()).isEqualTo(400);
		assertThat(send("DELETE", path, null).statusCode()).isEqualTo(400);
	}

	@ParameterizedTest
	@CsvSource({ "?n=1, 1, 0.5682303266439076", "?n=0010, 10, 10.676268897597582", "?n=1000, 1000, 169238.799942987",
			"'', 300, 15601.472117486659" })
	void longOperationAnswersTheChecksum(String query, int n, String checksum) throws Exception {
		HttpResponse<String> response = send("GET", "/long-operation" + query, null);
		assertAnswer(response, 200, "{\"message\":\"done\",\"n\":" + n + ",\"checksum\":" + checksum + "}");
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "200001", "-1", "abc", "1.5", "", "1e3", "%2B5", "99999999999999999999999" })
	void longOperationRefusesBadN(String n) throws Exception {
		assertThat(send("GET", "/long-operation?n=" + n, null).statusCode()).isEqualTo(400);
	}

	@ParameterizedTest
	@CsvSource({ "GET, /nope, 404", "GET, /user/get/, 404", "GET, /user/get/a/b, 404", "GET, /hello/x, 404",
			"GET, /longpoll, 404", "GET, /error, 404", "POST, /, 405", "DELETE, /hello, 405",
			"GET, /password/set/u, 405", "POST, /user/get/u, 405", "PUT, /longPoll, 405", "POST, /long-operation, 405",
			"PATCH, /record, 405" })
	void routingErrorsAreShortPlainText(String method, String path, int status) throws Exception {
		HttpResponse<String> response = send(method, path, method.equals("GET") ? null : "{}");
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> type.startsWith("text/plain"));
		assertThat(response.body()).isNotBlank().hasSizeLessThan(100);
	}

	private static String objectOfSize(int size) {
		return "{\"pad\":\"" + "x".repeat(size - 10) + "\"}";
	}

}
