package arena.micro;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The five benchmarks of spec/micro.md. A process is a thread of the executor (one new
 * thread per task, virtual or platform); its mailbox is an unbounded
 * {@link LinkedTransferQueue}; a send is {@code put}, a receive {@code take}.
 */
final class Benches {

	/**
	 * Asks a process to end; compared by identity, so no payload can be mistaken for it.
	 */
	private static final byte[] STOP = new byte[0];

	private static final Token STOP_TOKEN = new Token(STOP, -1);

	private final Options options;

	private final Payload payload;

	private final ExecutorService processes;

	Benches(Options options, ExecutorService processes) {
		this.options = options;
		this.payload = new Payload(options.copy(), options.size());
		this.processes = processes;
	}

	/**
	 * Runs the benchmark from a process of its own: the coordinator's wake-ups then go
	 * through the same scheduler as everyone else's (from a platform thread outside it,
	 * the first senders would be queued as external submissions, which a carrier busy
	 * with one ping-pong pair never gets to).
	 */
	Result run() throws Exception {
		return start(() -> switch (this.options.bench()) {
			case "pingping" -> pingping();
			case "pingpong" -> pingpong();
			case "spawn" -> spawn();
			case "throughput" -> throughput();
			default -> ring();
		}).get();
	}

	private Result pingping() throws Exception {
		var gate = new StartGate(2);
		BlockingQueue<byte[]> a = new LinkedTransferQueue<>();
		BlockingQueue<byte[]> b = new LinkedTransferQueue<>();
		Future<Done> first = start(() -> pingpingSide(gate, a, b));
		Future<Done> second = start(() -> pingpingSide(gate, b, a));
		long start = gate.open();
		Done x = first.get();
		Done y = second.get();
		long elapsed = Math.max(x.end(), y.end()) - start;
		return new Result(elapsed, Json.object("us_per_message", micros(elapsed) / this.options.rounds()),
				Json.object("received", x.count() + y.count()));
	}

	/** Sends, then receives, R times: both sides at once (Intel MPI PingPing). */
	private Done pingpingSide(StartGate gate, BlockingQueue<byte[]> own, BlockingQueue<byte[]> peer)
			throws InterruptedException {
		gate.readyToSend();
		long received = 0;
		for (int i = 0; i < this.options.rounds(); i++) {
			peer.put(this.payload.make(i));
			this.payload.check(own.take(), i);
			received++;
		}
		return new Done(received, System.nanoTime());
	}

	private Result pingpong() throws Exception {
		var gate = new StartGate(2);
		BlockingQueue<byte[]> pinger = new LinkedTransferQueue<>();
		BlockingQueue<byte[]> ponger = new LinkedTransferQueue<>();
		Future<Done> pong = start(() -> answer(gate, ponger, pinger));
		Future<Done> ping = start(() -> {
			gate.readyToSend();
			long roundTrips = 0;
			for (int i = 0; i < this.options.rounds(); i++) {
				ponger.put(this.payload.make(i));
				this.payload.check(pinger.take(), i);
				roundTrips++;
			}
			ponger.put(STOP);
			return new Done(roundTrips, System.nanoTime());
		});
		long start = gate.open();
		Done done = ping.get();
		pong.get();
		long elapsed = done.end() - start;
		return new Result(elapsed, Json.object("us_per_round_trip", micros(elapsed) / this.options.rounds()),
				Json.object("round_trips", done.count()));
	}

	/** The answering side of a ping-pong pair: answers every message until STOP. */
	private Done answer(StartGate gate, BlockingQueue<byte[]> own, BlockingQueue<byte[]> peer)
			throws InterruptedException {
		gate.ready();
		long received = 0;
		for (byte[] message = own.take(); message != STOP; message = own.take()) {
			this.payload.check(message, received);
			peer.put(this.payload.make(received));
			received++;
		}
		return new Done(received, System.nanoTime());
	}

	private Result spawn() throws Exception {
		int n = this.options.procs();
		var alive = new AtomicInteger();
		var started = new CountDownLatch(n);
		List<BlockingQueue<byte[]>> mailboxes = new ArrayList<>(n);
		List<Future<byte[]>> processes = new ArrayList<>(n);
		long rssBefore = rssKb();
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			BlockingQueue<byte[]> mailbox = new LinkedTransferQueue<>();
			mailboxes.add(mailbox);
			try {
				processes.add(start(() -> {
					alive.incrementAndGet();
					started.countDown();
					return mailbox.take();
				}));
			}
			catch (OutOfMemoryError ex) {
				throw new IllegalStateException("could not start process " + (i + 1) + " of " + n + ": " + ex, ex);
			}
		}
		started.await();
		long elapsed = System.nanoTime() - start;
		long rssPeak = rssKb();
		for (BlockingQueue<byte[]> mailbox : mailboxes) {
			mailbox.put(STOP);
		}
		for (Future<byte[]> process : processes) {
			process.get();
		}
		return new Result(
				elapsed, Json.object("us_per_spawn", micros(elapsed) / n, "bytes_per_process",
						(rssPeak - rssBefore) * 1024 / n, "rss_before_kb", rssBefore, "rss_peak_kb", rssPeak),
				Json.object("alive", alive.get()));
	}

	private Result throughput() throws Exception {
		int pairs = this.options.pairs();
		long duration = (long) (this.options.seconds() * 1e9);
		var gate = new StartGate(2 * pairs);
		List<Future<Done>> pings = new ArrayList<>(pairs);
		List<Future<Done>> pongs = new ArrayList<>(pairs);
		for (int p = 0; p < pairs; p++) {
			BlockingQueue<byte[]> pinger = new LinkedTransferQueue<>();
			BlockingQueue<byte[]> ponger = new LinkedTransferQueue<>();
			pongs.add(start(() -> answer(gate, ponger, pinger)));
			pings.add(start(() -> {
				long deadline = gate.readyToSend() + duration;
				long received = 0;
				long now;
				do {
					ponger.put(this.payload.make(received));
					this.payload.check(pinger.take(), received);
					received++;
					now = System.nanoTime();
				}
				while (now - deadline < 0);
				ponger.put(STOP);
				return new Done(received, now);
			}));
		}
		long start = gate.open();
		long end = start;
		long total = 0;
		List<Long> perPair = new ArrayList<>(pairs);
		for (int p = 0; p < pairs; p++) {
			Done ping = pings.get(p).get();
			Done pong = pongs.get(p).get();
			end = Math.max(end, ping.end());
			perPair.add(ping.count() + pong.count());
			total += ping.count() + pong.count();
		}
		long elapsed = end - start;
		return new Result(elapsed, Json.object("messages_per_s", total / (elapsed / 1e9)),
				Json.object("messages", total, "per_pair", perPair));
	}

	/** The token of the ring: the payload and the hops made so far. */
	private record Token(byte[] payload, long hops) {
	}

	/**
	 * What the ring's main process reports: the laps it saw, the token's last count, the
	 * time.
	 */
	private record Laps(long laps, long hops, long end) {
	}

	private Result ring() throws Exception {
		int n = this.options.procs();
		var gate = new StartGate(n);
		List<BlockingQueue<Token>> mailboxes = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			mailboxes.add(new LinkedTransferQueue<>());
		}
		List<Future<?>> relays = new ArrayList<>(n - 1);
		for (int i = 1; i < n; i++) {
			BlockingQueue<Token> own = mailboxes.get(i);
			BlockingQueue<Token> next = mailboxes.get((i + 1) % n);
			relays.add(start(() -> {
				gate.ready();
				for (Token token = own.take(); token != STOP_TOKEN; token = own.take()) {
					next.put(hop(token));
				}
				next.put(STOP_TOKEN);
				return null;
			}));
		}
		Future<Laps> main = start(() -> {
			BlockingQueue<Token> own = mailboxes.get(0);
			BlockingQueue<Token> next = mailboxes.get(1);
			gate.readyToSend();
			Token token = new Token(this.payload.make(0), 0);
			long laps = 0;
			while (laps < this.options.rounds()) {
				next.put(token);
				token = hop(own.take());
				laps++;
			}
			long end = System.nanoTime();
			next.put(STOP_TOKEN);
			return new Laps(laps, token.hops(), end);
		});
		long start = gate.open();
		Laps done = main.get();
		for (Future<?> relay : relays) {
			relay.get();
		}
		long elapsed = done.end() - start;
		return new Result(elapsed, Json.object("us_per_hop", micros(elapsed) / ((double) n * this.options.rounds())),
				Json.object("laps", done.laps(), "hops", done.hops()));
	}

	/**
	 * Receives a token (checking a copied payload) and makes the one to pass on, one hop
	 * further.
	 */
	private Token hop(Token received) {
		this.payload.check(received.payload(), received.hops());
		long hops = received.hops() + 1;
		return new Token(this.payload.make(hops), hops);
	}

	/**
	 * Starts a process. One that fails ends the program at once: its partners would wait
	 * for its next message forever.
	 */
	private <T> Future<T> start(Callable<T> body) {
		return this.processes.submit(() -> {
			try {
				return body.call();
			}
			catch (Throwable ex) {
				throw Main.fail(ex);
			}
		});
	}

	private static double micros(long nanos) {
		return nanos / 1e3;
	}

	private static long rssKb() throws IOException {
		for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
			if (line.startsWith("VmRSS:")) {
				return Long.parseLong(line.replaceAll("\\D", ""));
			}
		}
		throw new IllegalStateException("no VmRSS in /proc/self/status");
	}

	/**
	 * What a process reports when it ends: the messages it counted and when it saw the
	 * last.
	 */
	private record Done(long count, long end) {
	}

}
