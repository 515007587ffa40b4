package arena.httpserver;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.Properties;
import java.util.concurrent.Executors;

import arena.contract.ArenaConfig;
import arena.contract.Lifecycle;
import com.sun.net.httpserver.HttpServer;

/**
 * Arena's platform setup of the REST workload contract (spec/README.md): the JDK's own
 * HTTP server, {@code com.sun.net.httpserver}, and no framework. Its dispatcher thread
 * accepts connections and waits for their requests; each exchange then runs on a new
 * virtual thread, which reads the request, runs its handler and writes the answer,
 * blocking as long as it needs.
 */
public final class Main {

	private static final System.Logger log = System.getLogger(Main.class.getName());

	/**
	 * The accept queue, which holds a burst of new connections: the kernel's
	 * {@code somaxconn}, as the other setups ask. The JDK's default, 50, drops the SYNs
	 * of a burst, each a 1 s retransmit for its client.
	 */
	private static final int BACKLOG = 4096;

	/**
	 * How long a stop waits for the exchanges in flight, within the harness's 5 s before
	 * it kills: a long sort or poll is not waited out.
	 */
	private static final int STOP_DELAY_S = 2;

	private Main() {
	}

	public static void main(String[] args) throws IOException, InterruptedException {
		ArenaConfig config = ArenaConfig.fromEnvironment();
		Endpoints endpoints = new Endpoints(config);
		HttpServer server = server(config, endpoints, Lifecycle.training() ? 0 : config.port());
		server.start();
		log.log(Level.INFO, "httpserver on " + config.summary());
		Lifecycle.runUntilStopped(() -> {
			server.stop(STOP_DELAY_S);
			endpoints.close();
			return 0;
		});
	}

	/**
	 * The server of the contract on {@code config}'s host and {@code port}, not yet
	 * started: a context for each path of {@code endpoints}, and a new virtual thread for
	 * each exchange.
	 */
	static HttpServer server(ArenaConfig config, Endpoints endpoints, int port) throws IOException {
		limits();
		HttpServer server = HttpServer.create(new InetSocketAddress(config.host(), port), BACKLOG);
		server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
		endpoints.register(server);
		return server;
	}

	/**
	 * The JDK server's limits where its defaults would refuse what the contract asks of
	 * every server. They are system properties, which {@code sun.net.httpserver} reads
	 * once, when its first server is created; one given on the command line ({@code -D})
	 * wins. The others keep the JDK's defaults (see README.md, "Limits").
	 */
	private static void limits() {
		Properties properties = System.getProperties();
		// The JDK buffers an answer's first 8 KiB; a longer one leaves in two
		// writes, head and body, and with Nagle's algorithm the body waits for the
		// client's delayed ACK of the head: a 10 KiB GET /user/get took 44 ms here,
		// under 1 ms with TCP_NODELAY, which Tomcat and Go set too.
		properties.putIfAbsent("sun.net.httpserver.nodelay", "true");
		// A keep-alive connection back from an answer is closed instead of kept once 200
		// are idle: the load engine's clients hold up to thousands.
		properties.putIfAbsent("sun.net.httpserver.maxIdleConnections", String.valueOf(Integer.MAX_VALUE));
		// What is left of a body the handler did not read, after a 413 or an early
		// 4xx, is read and discarded up to this much, and the connection kept; past
		// it the connection closes, and a client still sending may see it reset
		// before it reads the answer. The JDK's 64 KiB did that to Java's HttpClient
		// sending 300,000 bytes in two of three runs of HttpTest; 2 MiB, as Tomcat
		// swallows in the other setups.
		properties.putIfAbsent("sun.net.httpserver.drainAmount", String.valueOf(2 * 1024 * 1024));
	}

}
