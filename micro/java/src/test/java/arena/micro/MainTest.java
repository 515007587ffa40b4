package arena.micro;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line and the JSON line. */
class MainTest {

	private final ByteArrayOutputStream out = new ByteArrayOutputStream();

	private final ByteArrayOutputStream err = new ByteArrayOutputStream();

	@Test
	void printsOneJsonLine() throws Exception {
		assertEquals(0, run("virtual", "ring", "--mode", "copy", "--procs", "3", "--rounds", "2", "--size", "5",
				"--pairs", "9"));
		String cpus = String.valueOf(Runtime.getRuntime().availableProcessors());
		String line = this.out.toString(StandardCharsets.UTF_8);
		assertTrue(line.startsWith("{\"bench\": \"ring\", \"mode\": \"copy\", \"payload\": \"copied\", "
				+ "\"params\": {\"procs\": 3, \"size\": 5, \"rounds\": 2}, \"elapsed_s\": "), line);
		assertTrue(line.contains("\"check\": {\"laps\": 2, \"hops\": 6}"), line);
		assertTrue(line.endsWith(", \"cpus\": " + cpus + "}" + System.lineSeparator()), line);
		assertEquals(1, line.lines().count());
	}

	@Test
	void idiomaticPayloadIsShared() throws Exception {
		assertEquals(0, run("platform", "throughput", "--seconds", "0.01", "--size", "8"));
		String line = this.out.toString(StandardCharsets.UTF_8);
		assertTrue(line.contains("\"payload\": \"shared\", \"params\": {\"pairs\": 1, \"size\": 8, \"seconds\": 0.01}"),
				line);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "nosuchbench", "pingpong --size 0", "pingpong --rounds -3", "pingpong --size abc",
			"pingpong --mode weird", "pingpong --bogus 1", "pingpong --size", "ring --procs 1",
			"throughput --seconds 0", "throughput --seconds NaN", "spawn --procs 99999999999" })
	void rejectsBadArguments(String args) throws Exception {
		assertEquals(2, run("virtual", args.isEmpty() ? new String[0] : args.split(" ")));
		assertEquals("", this.out.toString(StandardCharsets.UTF_8));
		assertEquals(1, this.err.toString(StandardCharsets.UTF_8).lines().count());
	}

	@Test
	void rejectsUnknownThreadKind() throws Exception {
		assertEquals(2, run("green", "pingpong"));
		assertEquals("", this.out.toString(StandardCharsets.UTF_8));
	}

	private int run(String threads, String... args) throws Exception {
		return Main.run(args, threads, new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8));
	}

}
