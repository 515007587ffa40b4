package arena.spring;

import java.io.IOException;
import java.util.Map;

import arena.contract.ArenaConfig;
import arena.contract.HelloPage;
import arena.contract.Lifecycle;
import arena.contract.Passwords;
import arena.contract.RequestBodies;
import arena.contract.Users;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Arena's Spring setup of the REST workload contract (spec/README.md): Spring MVC on
 * embedded Tomcat, every request on its own virtual thread. The contract's rules and
 * stores are the beans below, from the folder's {@code contract} module.
 */
@SpringBootApplication
public class ArenaApplication {

	private static final Logger log = LoggerFactory.getLogger(ArenaApplication.class);

	public static void main(String[] args) throws InterruptedException {
		ArenaConfig config = ArenaConfig.fromEnvironment();
		SpringApplication app = new SpringApplication(ArenaApplication.class);
		app.setDefaultProperties(Map.of("server.address", config.host(), "server.port", config.port()));
		app.addInitializers((ConfigurableApplicationContext context) -> context.getBeanFactory()
			.registerSingleton("arenaConfig", config));
		ConfigurableApplicationContext context = app.run(args);
		log.info("spring server on {}", config.summary());
		// Closing the context finishes answers in flight.
		Lifecycle.runUntilStopped(() -> SpringApplication.exit(context));
	}

	/** Spring Security's bcrypt, from spring-security-crypto alone. */
	@Bean
	Passwords passwords(ArenaConfig config) {
		BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder(config.bcryptCost());
		return new Passwords(bcrypt::encode, bcrypt::matches);
	}

	@Bean
	Users users() {
		return new Users();
	}

	@Bean
	HelloPage helloPage(ArenaConfig config) throws IOException {
		return new HelloPage(config);
	}

	/** Bodies are parsed by Spring Boot's own Jackson 3 mapper. */
	@Bean
	RequestBodies requestBodies(JsonMapper mapper) {
		ObjectReader reader = mapper.readerFor(Object.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		return new RequestBodies(reader::readValue);
	}

}
