package arena.jersey;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.logging.Logger;
import java.util.stream.Stream;

import arena.contract.ArenaConfig;
import arena.contract.Lifecycle;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * Arena's Jersey setup of the REST workload contract (spec/README.md), as the honours
 * report built its Java server: Jersey's servlet on Tomcat. Here Tomcat is embedded, and
 * serves every request on a thread of its pool of platform threads.
 */
public final class Main {

	private static final Logger log = Logger.getLogger(Main.class.getName());

	private Main() {
	}

	public static void main(String[] args) throws IOException, LifecycleException, InterruptedException {
		ArenaConfig config = ArenaConfig.fromEnvironment();
		ArenaApplication application = new ArenaApplication(config);
		Path baseDir = Files.createTempDirectory("tomcat.");
		Tomcat tomcat = tomcat(config, application, baseDir);
		if (Lifecycle.training()) {
			tomcat.getConnector().setPort(0);
		}
		tomcat.start();
		log.info("jersey server on " + config.summary());
		Lifecycle.runUntilStopped(() -> {
			stop(tomcat, baseDir);
			application.close();
			return 0;
		});
	}

	/**
	 * Tomcat with Jersey's servlet at {@code /*} on {@code config}'s address; tests
	 * change the port. The connector keeps Tomcat's defaults (NIO, a pool of at most 200
	 * threads, 8 KiB of headers, 2 MiB of unread body swallowed after an early answer)
	 * except where the other servers have no limit: connections and requests per
	 * keep-alive connection are not capped, and the accept queue holds a burst of new
	 * connections. {@code baseDir} holds Tomcat's work files.
	 */
	static Tomcat tomcat(ArenaConfig config, ArenaApplication application, Path baseDir) {
		Tomcat tomcat = new Tomcat();
		tomcat.setBaseDir(baseDir.toString());
		Connector connector = new Connector();
		connector.setPort(config.port());
		connector.setProperty("address", config.host());
		connector.setProperty("maxConnections", "-1");
		connector.setProperty("maxKeepAliveRequests", "-1");
		connector.setProperty("acceptCount", "4096");
		// server.xml's 20 s rather than the connector's own 60 s for a request's head.
		connector.setProperty("connectionTimeout", "20000");
		tomcat.setConnector(connector);
		StandardContext context = (StandardContext) tomcat.addContext("", null);
		// Tomcat's leak detection is for web applications redeployed in a running server,
		// which this one never is (and on JDK 25 it only warns that it cannot look).
		context.setClearReferencesThreadLocals(false);
		context.setClearReferencesRmiTargets(false);
		Wrapper jersey = Tomcat.addServlet(context, "jersey", new ServletContainer(application));
		// Async support lets a suspended request give its thread back to the pool.
		jersey.setAsyncSupported(true);
		// Jersey starts with Tomcat, not on the first request: ready means ready.
		jersey.setLoadOnStartup(1);
		context.addServletMappingDecoded("/*", "jersey");
		return tomcat;
	}

	/**
	 * Stops Tomcat, its connector first so that no request comes in, and removes its work
	 * files.
	 */
	static void stop(Tomcat tomcat, Path baseDir) {
		try {
			tomcat.stop();
			tomcat.destroy();
			try (Stream<Path> files = Files.walk(baseDir)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
		}
		catch (LifecycleException | IOException ex) {
			throw new IllegalStateException("stopping Tomcat", ex);
		}
	}

}
