package arena.micro;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every bench at small sizes, in both modes, on virtual and on platform threads. */
class BenchesTest {

	static Stream<Arguments> runs() {
		return Stream.of("virtual", "platform")
			.flatMap((threads) -> Stream.of("idiomatic", "copy").map((mode) -> Arguments.of(threads, mode)));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void pingping(String threads, String mode) throws Exception {
		assertEquals(Map.of("received", 400L),
				run(threads, "pingping", "--mode", mode, "--size", "300", "--rounds", "200"));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void pingpong(String threads, String mode) throws Exception {
		assertEquals(Map.of("round_trips", 300L),
				run(threads, "pingpong", "--mode", mode, "--size", "1", "--rounds", "300"));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void spawn(String threads, String mode) throws Exception {
		assertEquals(Map.of("alive", 500), run(threads, "spawn", "--mode", mode, "--procs", "500"));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void throughput(String threads, String mode) throws Exception {
		Map<String, Object> check = run(threads, "throughput", "--mode", mode, "--pairs", "3", "--size", "64",
				"--seconds", "0.05");
		List<?> perPair = (List<?>) check.get("per_pair");
		assertEquals(3, perPair.size());
		assertEquals(check.get("messages"), perPair.stream().mapToLong((n) -> (Long) n).sum());
		perPair.forEach((n) -> assertTrue((Long) n >= 2, "every pair made a round trip"));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void ring(String threads, String mode) throws Exception {
		assertEquals(Map.of("laps", 7L, "hops", 350L),
				run(threads, "ring", "--mode", mode, "--procs", "50", "--size", "10", "--rounds", "7"));
		assertEquals(Map.of("laps", 300L, "hops", 600L),
				run(threads, "ring", "--mode", mode, "--procs", "2", "--size", "1000", "--rounds", "300"));
	}

	private static Map<String, Object> run(String threads, String... args) throws Exception {
		ThreadFactory factory = threads.equals("virtual") ? Thread.ofVirtual().factory()
				: Thread.ofPlatform().factory();
		try (ExecutorService processes = Executors.newThreadPerTaskExecutor(factory)) {
			Result result = new Benches(Options.parse(args), processes).run();
			assertTrue(result.elapsedNanos() > 0);
			return result.check();
		}
	}

}
