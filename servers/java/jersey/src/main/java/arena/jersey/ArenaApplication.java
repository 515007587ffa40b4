package arena.jersey;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import arena.contract.ArenaConfig;
import arena.contract.HelloPage;
import arena.contract.JdbcRecords;
import arena.contract.Passwords;
import arena.contract.RequestBodies;
import arena.contract.Users;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import org.glassfish.jersey.inject.hk2.AbstractBinder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/**
 * The JAX-RS application: the contract's resources, each a singleton given what it needs
 * by Jersey's injection, and the mappers that answer errors as short plain text. Jersey
 * finds its Jackson JSON support on the class path (jersey-media-json-jackson) and writes
 * the JSON answers with it.
 */
final class ArenaApplication extends ResourceConfig implements AutoCloseable {

	/**
	 * Platform threads, one a core, that resume the requests waiting out a delay: a
	 * waiting request holds no thread at all.
	 */
	private final ScheduledExecutorService timer;

	private final JdbcRecords records;

	ArenaApplication(ArenaConfig config) throws IOException {
		this.timer = Executors.newScheduledThreadPool(Runtime.getRuntime().availableProcessors(),
				Thread.ofPlatform().name("resume-", 0).daemon().factory());
		this.records = new JdbcRecords(config);
		ObjectReader json = new ObjectMapper().readerFor(Object.class)
			.with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		HelloPage hello = new HelloPage(config);
		Passwords passwords = Passwords.favre(config.bcryptCost());
		// What the resources' constructors ask for.
		register(new AbstractBinder() {
			@Override
			protected void configure() {
				bind(config).to(ArenaConfig.class);
				bind(ArenaApplication.this.timer).to(ScheduledExecutorService.class);
				bind(hello).to(HelloPage.class);
				bind(passwords).to(Passwords.class);
				bind(new Users()).to(Users.class);
				bind(ArenaApplication.this.records).to(JdbcRecords.class);
				bind(new RequestBodies(json::readValue)).to(RequestBodies.class);
			}
		});
		register(HelloResource.class);
		register(PasswordResource.class);
		register(UserResource.class);
		register(LongOperationResource.class);
		register(RecordResource.class);
		register(PathParameters.class);
		register(ErrorAnswers.Contract.class);
		register(ErrorAnswers.Jersey.class);
		// OPTIONS answers would otherwise describe the resources in WADL.
		property(ServerProperties.WADL_FEATURE_DISABLE, true);
	}

	@Override
	public void close() {
		this.timer.shutdownNow();
		this.records.close();
	}

}
