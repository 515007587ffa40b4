package arena.contract;

import java.util.concurrent.CountDownLatch;
import java.util.function.IntSupplier;

import sun.misc.Signal;

/**
 * How a started server ends: SIGTERM and SIGINT stop it and end the process with the
 * status its stop returns, 0 for a clean one (the JVM's own handler would exit with 128 +
 * the signal number). Java has no public signal API: this is {@code jdk.unsupported}'s,
 * about which javac warns.
 */
public final class Lifecycle {

	private Lifecycle() {
	}

	/**
	 * Whether this is the build's training start ({@code -Darena.training=true}, see
	 * arena.toml), which only records start-up for the JVM's AOT cache: it binds any free
	 * port, and stops as soon as it is ready.
	 */
	public static boolean training() {
		return Boolean.getBoolean("arena.training");
	}

	/**
	 * Called by {@code main} once the server answers: blocks until a stop signal (at once
	 * in a training start), then runs {@code stop} and exits with the status it returns.
	 * The stop runs on the main thread, which keeps the JVM alive until it is done: the
	 * servers' own threads may all be daemons, or end while it runs.
	 */
	public static void runUntilStopped(IntSupplier stop) throws InterruptedException {
		CountDownLatch signalled = new CountDownLatch(training() ? 0 : 1);
		for (String signal : new String[] { "TERM", "INT" }) {
			Signal.handle(new Signal(signal), (received) -> signalled.countDown());
		}
		signalled.await();
		System.exit(stop.getAsInt());
	}

}
