package arena.micro;

import java.util.List;

/**
 * The command line of spec/micro.md:
 * {@code BENCH [--mode M] [--size S] [--rounds R] [--procs N]
 * [--pairs P] [--seconds D] [--warmup-s W]}.
 */
record Options(String bench, boolean copy, int size, int rounds, int procs, int pairs, double seconds,
		double warmupSeconds) {

	static final List<String> BENCHES = List.of("pingping", "pingpong", "spawn", "throughput", "ring");

	private static final List<String> NAMES = List.of("--mode", "--size", "--rounds", "--procs", "--pairs", "--seconds",
			"--warmup-s");

	/** The longest warm-up iteration of throughput (spec/micro.md: min(D, 0.1 s)). */
	static final double WARMUP_THROUGHPUT_SECONDS = 0.1;

	static Options parse(String... args) {
		if (args.length == 0) {
			throw new UsageException("usage: BENCH [--mode idiomatic|copy] [--size S] [--rounds R] [--procs N] "
					+ "[--pairs P] [--seconds D] [--warmup-s W], BENCH one of " + String.join(", ", BENCHES));
		}
		String bench = args[0];
		if (!BENCHES.contains(bench)) {
			throw new UsageException("unknown bench: " + bench);
		}
		String mode = "idiomatic";
		int size = 5000;
		int rounds = 10000;
		int procs = 1000;
		int pairs = 1;
		double seconds = 1;
		double warmupSeconds = 10;
		for (int i = 1; i < args.length; i += 2) {
			String name = args[i];
			if (!NAMES.contains(name)) {
				throw new UsageException("unknown option: " + name);
			}
			if (i + 1 == args.length) {
				throw new UsageException("missing value for " + name);
			}
			String value = args[i + 1];
			switch (name) {
				case "--mode" -> mode = value;
				case "--size" -> size = atLeastOne(name, value);
				case "--rounds" -> rounds = atLeastOne(name, value);
				case "--procs" -> procs = atLeastOne(name, value);
				case "--pairs" -> pairs = atLeastOne(name, value);
				case "--warmup-s" -> warmupSeconds = nonNegativeSeconds(value);
				default -> seconds = positiveSeconds(value);
			}
		}
		if (!mode.equals("idiomatic") && !mode.equals("copy")) {
			throw new UsageException("--mode must be idiomatic or copy, not " + mode);
		}
		if (bench.equals("ring") && procs < 2) {
			throw new UsageException("ring needs --procs of at least 2");
		}
		return new Options(bench, mode.equals("copy"), size, rounds, procs, pairs, seconds, warmupSeconds);
	}

	/**
	 * The options of one warm-up iteration: the same, but throughput lasts at most
	 * {@value #WARMUP_THROUGHPUT_SECONDS} s.
	 */
	Options forWarmup() {
		return new Options(this.bench, this.copy, this.size, this.rounds, this.procs, this.pairs,
				Math.min(this.seconds, WARMUP_THROUGHPUT_SECONDS), this.warmupSeconds);
	}

	/** The name of the bench's metric in {@code metric}, the one the warm-up follows. */
	String metricName() {
		return switch (this.bench) {
			case "pingping" -> "us_per_message";
			case "pingpong" -> "us_per_round_trip";
			case "spawn" -> "us_per_spawn";
			case "throughput" -> "messages_per_s";
			default -> "us_per_hop";
		};
	}

	private static int atLeastOne(String name, String value) {
		try {
			int n = Integer.parseInt(value);
			if (n >= 1) {
				return n;
			}
		}
		catch (NumberFormatException ignored) {
			// reported below, like a value out of range
		}
		throw new UsageException(name + " must be an integer of at least 1, not " + value);
	}

	private static double positiveSeconds(String value) {
		try {
			double d = Double.parseDouble(value);
			if (d > 0 && Double.isFinite(d)) {
				return d;
			}
		}
		catch (NumberFormatException ignored) {
			// reported below, like a value out of range
		}
		throw new UsageException("--seconds must be a number above 0, not " + value);
	}

	private static double nonNegativeSeconds(String value) {
		try {
			double w = Double.parseDouble(value);
			if (w >= 0 && Double.isFinite(w)) {
				return w;
			}
		}
		catch (NumberFormatException ignored) {
			// reported below, like a value out of range
		}
		throw new UsageException("--warmup-s must be a number of at least 0, not " + value);
	}

	/** A bad command line: exit status 2. */
	static final class UsageException extends RuntimeException {

		UsageException(String message) {
			super(message);
		}

	}

}
