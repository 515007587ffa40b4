package arena.jersey;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import arena.contract.ArenaConfig;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The server of a test class, on a random port of 127.0.0.1: started before its tests
 * with the settings given, stopped after them.
 */
final class TestServer implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<ArenaConfig> settings;

	private ArenaApplication application;

	private Path baseDir;

	private Tomcat tomcat;

	TestServer(Supplier<ArenaConfig> settings) {
		this.settings = settings;
	}

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		ArenaConfig config = this.settings.get();
		this.application = new ArenaApplication(config);
		this.baseDir = Files.createTempDirectory("tomcat.");
		this.tomcat = Main.tomcat(config, this.application, this.baseDir);
		this.tomcat.getConnector().setPort(0);
		this.tomcat.start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		Main.stop(this.tomcat, this.baseDir);
		this.application.close();
	}

	int port() {
		return this.tomcat.getConnector().getLocalPort();
	}

}
