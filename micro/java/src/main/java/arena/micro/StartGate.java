package arena.micro;

import java.util.concurrent.CountDownLatch;

/**
 * Starts a benchmark's clock once every one of its processes exists and waits
 * (spec/micro.md: creation is not timed), then lets the first senders go.
 */
final class StartGate {

	private final CountDownLatch ready;

	private final CountDownLatch go = new CountDownLatch(1);

	/** Written before {@code go} opens and read after it, which orders the two. */
	private long start;

	StartGate(int processes) {
		this.ready = new CountDownLatch(processes);
	}

	/** Said by a process that waits for a message, just before its first receive. */
	void ready() {
		this.ready.countDown();
	}

	/** Said by a process that sends first: waits for the clock and returns its start. */
	long readyToSend() throws InterruptedException {
		this.ready.countDown();
		this.go.await();
		return this.start;
	}

	/** Waits for every process, starts the clock and lets the senders go. */
	long open() throws InterruptedException {
		this.ready.await();
		this.start = System.nanoTime();
		this.go.countDown();
		return this.start;
	}

}
