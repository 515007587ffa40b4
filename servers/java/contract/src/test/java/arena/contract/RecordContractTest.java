package arena.contract;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /record} over real HTTP on the PostgreSQL of {@code ARENA_DB_URL}, prepared with
 * spec/data/record.sql ({@code ./arena test java} gives a throw-away one): each module's
 * {@code RecordHttpTest} starts its server with {@link #settings()} and runs these.
 */
@NeedsDatabase
public abstract class RecordContractTest extends ServerTest {

	/** Names of this run: the database may hold those of an earlier one. */
	private static final String PREFIX = "java-test." + System.currentTimeMillis() + ".";

	/** The settings of the server under test: a pool of 3 connections. */
	protected static ArenaConfig settings() {
		return ArenaConfig.load(Map.of("ARENA_DB_URL", System.getenv("ARENA_DB_URL"), "ARENA_DB_POOL", "3",
				"ARENA_DATA_DIR", DATA_DIR)::get);
	}

	@Test
	void createReadUpdateDelete() throws Exception {
		String name = PREFIX + "crud";
		String first = record(name, "first");
		String second = record(name, "second");
		HttpResponse<String> created = send("PUT", "/record",
				"{\"name\": \"" + name + "\", \"value\": \"first\", \"extra\": 1}");
		assertAnswer(created, 201, first);
		assertThat(created.headers().firstValue("Content-Type")).hasValue("application/json");
		assertAnswer(send("PUT", "/record", second), 409, "record exists");
		assertAnswer(send("GET", "/record?name=" + name, null), 200, first);
		assertAnswer(send("POST", "/record", second), 200, second);
		assertAnswer(send("GET", "/record?name=" + name, null), 200, second);
		assertAnswer(send("DELETE", "/record?name=" + name, null), 200, second);
		assertAnswer(send("DELETE", "/record?name=" + name, null), 404, "no such record");
		assertAnswer(send("GET", "/record?name=" + name, null), 404, "no such record");
	}

	@Test
	void anUpdateCreatesNothing() throws Exception {
		String name = PREFIX + "nobody";
		assertThat(send("POST", "/record", record(name, "x")).statusCode()).isEqualTo(404);
		assertThat(send("GET", "/record?name=" + name, null).statusCode()).isEqualTo(404);
	}

	@Test
	void readsTheSeededRecords() throws Exception {
		assertAnswer(send("GET", "/record?name=r%34%32", null), 200, record("r42", "value of r42"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "ünï cødé ✓", "x' OR '1'='1", "'; DROP TABLE record; --", "$1 \\ %s ? :name" })
	void valuesAreDataNeverSql(String value) throws Exception {
		String name = PREFIX + "value" + value.hashCode();
		assertAnswer(send("PUT", "/record", record(name, value)), 201, record(name, value));
		assertAnswer(send("DELETE", "/record?name=" + name, null), 200, record(name, value));
	}

	@Test
	void valuesHoldUpTo1024Utf8Bytes() throws Exception {
		String widest = record(PREFIX + "widest", "é".repeat(512));
		assertAnswer(send("PUT", "/record", widest), 201, widest);
		assertAnswer(send("DELETE", "/record?name=" + PREFIX + "widest", null), 200, widest);
	}

	/** More clients than the pool's 3 connections, all creating one name at once. */
	@Test
	void concurrentCreatesOfOneNameGiveOne201() throws Exception {
		String body = record(PREFIX + "race", "x");
		CountDownLatch start = new CountDownLatch(1);
		List<Integer> statuses;
		try (ExecutorService racers = Executors.newVirtualThreadPerTaskExecutor()) {
			List<CompletableFuture<Integer>> answers = IntStream.range(0, 16)
				.mapToObj((i) -> CompletableFuture.supplyAsync(() -> {
					try {
						start.await();
						return send("PUT", "/record", body).statusCode();
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}, racers))
				.toList();
			start.countDown();
			statuses = answers.stream().map(CompletableFuture::join).toList();
		}
		assertThat(statuses).containsOnly(201, 409).containsOnlyOnce(201);
	}

	private static String record(String name, String value) {
		return "{\"name\":\"" + name + "\",\"value\":\"" + value.replace("\\", "\\\\") + "\"}";
	}

}
