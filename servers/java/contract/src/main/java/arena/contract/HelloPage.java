package arena.contract;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code /hello}: the bytes of {@code hello.html}, read once at start-up, and the count
 * of requests that makes every K-th wait. How a request waits is each server's own
 * concern: it must hold up nobody else.
 */
public final class HelloPage {

	private final byte[] bytes;

	private final long every;

	private final Duration delay;

	/** /hello requests so far, over all threads. */
	private final AtomicLong count = new AtomicLong();

	public HelloPage(ArenaConfig config) throws IOException {
		this.bytes = Files.readAllBytes(config.dataDir().resolve("hello.html"));
		this.every = config.helloEvery();
		this.delay = config.helloDelay();
	}

	public byte[] bytes() {
		return this.bytes;
	}

	/**
	 * Counts a request and tells whether it is a K-th one, which waits {@link #delay()}
	 * before it is answered. Counted before the wait, so the others go on.
	 */
	public boolean waits() {
		return this.count.incrementAndGet() % this.every == 0;
	}

	public Duration delay() {
		return this.delay;
	}

}
