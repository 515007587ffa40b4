package arena.micro;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line and the JSON line. */
class MainTest {

	private static final Pattern WARMUP = Pattern.compile(
			"\"warmup\": \\{\"iterations\": (\\d+), \"seconds\": ([^,]+), \"steady\": (true|false), \"series\": \\[([^\\]]*)\\]\\}");

	private final ByteArrayOutputStream out = new ByteArrayOutputStream();

	private final ByteArrayOutputStream err = new ByteArrayOutputStream();

	@Test
	void printsOneJsonLine() throws Exception {
		assertEquals(0, run("virtual", "ring", "--mode", "copy", "--procs", "3", "--rounds", "2", "--size", "5",
				"--pairs", "9", "--warmup-s", "0"));
		String cpus = String.valueOf(Runtime.getRuntime().availableProcessors());
		String line = this.out.toString(StandardCharsets.UTF_8);
		assertTrue(line.startsWith("{\"bench\": \"ring\", \"mode\": \"copy\", \"payload\": \"copied\", "
				+ "\"params\": {\"procs\": 3, \"size\": 5, \"rounds\": 2}, \"elapsed_s\": "), line);
		assertTrue(line.contains("\"check\": {\"laps\": 2, \"hops\": 6}, \"warmup\": {"), line);
		assertTrue(line.endsWith(", \"cpus\": " + cpus + "}" + System.lineSeparator()), line);
		assertEquals(1, line.lines().count());
	}

	@Test
	void idiomaticPayloadIsShared() throws Exception {
		assertEquals(0, run("platform", "throughput", "--seconds", "0.01", "--size", "8", "--warmup-s", "0"));
		String line = this.out.toString(StandardCharsets.UTF_8);
		assertTrue(line.contains("\"payload\": \"shared\", \"params\": {\"pairs\": 1, \"size\": 8, \"seconds\": 0.01}"),
				line);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "nosuchbench", "pingpong --size 0", "pingpong --rounds -3", "pingpong --size abc",
			"pingpong --mode weird", "pingpong --bogus 1", "pingpong --size", "ring --procs 1",
			"throughput --seconds 0", "throughput --seconds NaN", "spawn --procs 99999999999", "pingpong --warmup-s -1",
			"pingpong --warmup-s abc", "pingpong --warmup-s", "pingpong --warmup-s NaN", "pingpong --warmup-s Infinity",
			"pingpong --warmup-s -0.5" })
	void rejectsBadArguments(String args) throws Exception {
		assertEquals(2, run("virtual", args.isEmpty() ? new String[0] : args.split(" ")));
		assertEquals("", this.out.toString(StandardCharsets.UTF_8));
		assertEquals(1, this.err.toString(StandardCharsets.UTF_8).lines().count());
	}

	@ParameterizedTest
	@CsvSource({ "virtual, pingpong", "platform, pingping", "virtual, spawn", "platform, throughput", "virtual, ring" })
	void warmsUpFirst(String threads, String bench) throws Exception {
		assertEquals(0, run(threads, bench, "--mode", "copy", "--size", "16", "--rounds", "50", "--procs", "20",
				"--seconds", "0.02", "--warmup-s", "0.3"));
		Matcher warmup = warmup();
		int iterations = Integer.parseInt(warmup.group(1));
		assertTrue(iterations >= 1, warmup.group());
		List<Double> series = series(warmup.group(4));
		assertEquals(iterations, series.size(), warmup.group());
		assertEquals(Boolean.parseBoolean(warmup.group(3)), Warmup.steady(series), warmup.group());
		assertTrue(Double.parseDouble(warmup.group(2)) > 0, warmup.group());
	}

	@Test
	void noWarmupWithZeroSeconds() throws Exception {
		assertEquals(0, run("virtual", "pingpong", "--rounds", "10", "--warmup-s", "0"));
		assertEquals("\"warmup\": {\"iterations\": 0, \"seconds\": 0, \"steady\": false, \"series\": []}",
				warmup().group());
	}

	@Test
	void spawnMemoryComesFromTheFirstWarmupIteration() {
		Result first = new Result(1, Json.object("us_per_spawn", 9.0, "bytes_per_process", 3000L, "rss_before_kb", 100L,
				"rss_peak_kb", 400L), Json.object("alive", 1000));
		Result measured = new Result(1,
				Json.object("us_per_spawn", 1.0, "bytes_per_process", 10L, "rss_before_kb", 900L, "rss_peak_kb", 901L),
				Json.object("alive", 1000));
		assertEquals(List.of(1.0, 3000L, 100L, 400L),
				List.copyOf(Main.metric(measured, new Warmup(List.of(9.0), 0.1, false, first)).values()));
		assertEquals(measured.metric(), Main.metric(measured, Warmup.NONE));
		Result ring = new Result(1, Json.object("us_per_hop", 2.0), Json.object("laps", 1L, "hops", 3L));
		assertEquals(ring.metric(), Main.metric(ring, new Warmup(List.of(3.0), 0.1, false, ring)));
	}

	@Test
	void rejectsUnknownThreadKind() throws Exception {
		assertEquals(2, run("green", "pingpong"));
		assertEquals("", this.out.toString(StandardCharsets.UTF_8));
	}

	/** The warmup object of the output line: iterations, seconds, steady, series. */
	private Matcher warmup() {
		String line = this.out.toString(StandardCharsets.UTF_8);
		Matcher warmup = WARMUP.matcher(line);
		assertTrue(warmup.find(), line);
		return warmup;
	}

	private static List<Double> series(String values) {
		return values.isEmpty() ? List.of() : Stream.of(values.split(", ")).map(Double::valueOf).toList();
	}

	private int run(String threads, String... args) throws Exception {
		return Main.run(args, threads, new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8));
	}

}
