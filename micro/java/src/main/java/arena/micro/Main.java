package arena.micro;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import arena.micro.Options.UsageException;

/**
 * Runs one benchmark of spec/micro.md and prints its JSON line. Processes are virtual
 * threads, or platform threads with {@code -Darena.threads=platform}.
 */
public final class Main {

	private Main() {
	}

	public static void main(String[] args) {
		int status;
		try {
			status = run(args, System.getProperty("arena.threads", "virtual"), System.out, System.err);
		}
		catch (Throwable ex) {
			throw fail(ex);
		}
		System.exit(status);
	}

	/** Runs the command line; returns the exit status, 0 or 2 (a bad command line). */
	static int run(String[] args, String threads, PrintStream out, PrintStream err) throws Exception {
		Options options;
		ThreadFactory threadFactory;
		try {
			options = Options.parse(args);
			threadFactory = threadFactory(threads);
		}
		catch (UsageException ex) {
			err.println(ex.getMessage());
			return 2;
		}
		Options warmupOptions = options.forWarmup();
		Warmup warmup = Warmup.run(options.warmupSeconds(), () -> once(warmupOptions, threadFactory),
				options.metricName());
		Result result = once(options, threadFactory);
		out.println(Json.write(Json.object("bench", options.bench(), "mode", options.copy() ? "copy" : "idiomatic",
				"payload", options.copy() ? "copied" : "shared", "params", params(options), "elapsed_s",
				result.elapsedNanos() / 1e9, "metric", metric(result, warmup), "check", result.check(), "warmup",
				warmup.json(), "runtime", "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")",
				"cpus", Runtime.getRuntime().availableProcessors())));
		return 0;
	}

	/**
	 * Runs the bench once with processes of its own, and returns when every one of them
	 * has ended (the executor's close waits for its threads).
	 */
	static Result once(Options options, ThreadFactory threadFactory) throws Exception {
		ExecutorService processes = Executors.newThreadPerTaskExecutor(threadFactory);
		Result result = new Benches(options, processes).run();
		// Not try-with-resources: after a failure, close() would wait for the processes
		// left blocked.
		processes.close();
		return result;
	}

	/**
	 * The measured run's metric, but spawn's memory from the first warm-up iteration when
	 * there was one: what a fresh runtime pays per process.
	 */
	static Map<String, Object> metric(Result measured, Warmup warmup) {
		Map<String, Object> metric = new LinkedHashMap<>(measured.metric());
		if (warmup.first() != null) {
			for (String memory : List.of("bytes_per_process", "rss_before_kb", "rss_peak_kb")) {
				metric.computeIfPresent(memory, (key, value) -> warmup.first().metric().get(key));
			}
		}
		return metric;
	}

	/**
	 * Reports a runtime failure on stderr and ends the program with status 1. Declared to
	 * return so that callers can {@code throw} it.
	 */
	static Error fail(Throwable ex) {
		System.err.println("micro: " + ex);
		System.exit(1);
		return new AssertionError("System.exit returned");
	}

	private static ThreadFactory threadFactory(String threads) {
		return switch (threads) {
			case "virtual" -> Thread.ofVirtual().factory();
			case "platform" -> Thread.ofPlatform().factory();
			default -> throw new UsageException("arena.threads must be virtual or platform, not " + threads);
		};
	}

	private static Map<String, Object> params(Options options) {
		return switch (options.bench()) {
			case "pingping", "pingpong" -> Json.object("size", options.size(), "rounds", options.rounds());
			case "spawn" -> Json.object("procs", options.procs());
			case "throughput" ->
				Json.object("pairs", options.pairs(), "size", options.size(), "seconds", options.seconds());
			default -> Json.object("procs", options.procs(), "size", options.size(), "rounds", options.rounds());
		};
	}

}
