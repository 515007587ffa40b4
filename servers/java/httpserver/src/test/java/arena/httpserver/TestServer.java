package arena.httpserver;

import java.util.function.Supplier;

import arena.contract.ArenaConfig;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The server of a test class, on a random port of 127.0.0.1: started before its tests
 * with the settings given, stopped after them.
 */
final class TestServer implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<ArenaConfig> settings;

	private Endpoints endpoints;

	private HttpServer server;

	TestServer(Supplier<ArenaConfig> settings) {
		this.settings = settings;
	}

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		ArenaConfig config = this.settings.get();
		this.endpoints = new Endpoints(config);
		this.server = Main.server(config, this.endpoints, 0);
		this.server.start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.server.stop(0);
		this.endpoints.close();
	}

	int port() {
		return this.server.getAddress().getPort();
	}

}
