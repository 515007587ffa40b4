package arena;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Arena's Java implementation of the REST workload contract (spec/README.md): Spring MVC
 * on embedded Tomcat, every request on its own virtual thread.
 */
@SpringBootApplication
public class ArenaApplication {

	private static final Logger log = LoggerFactory.getLogger(ArenaApplication.class);

	public static void main(String[] args) {
		ArenaConfig config;
		try {
			config = ArenaConfig.load(System::getenv);
		}
		catch (IllegalArgumentException ex) {
			System.err.println("config: " + ex.getMessage());
			System.exit(2);
			return;
		}
		SpringApplication app = new SpringApplication(ArenaApplication.class);
		app.setDefaultProperties(Map.of("server.address", config.host(), "server.port", config.port()));
		app.addInitializers((ConfigurableApplicationContext context) -> context.getBeanFactory()
			.registerSingleton("arenaConfig", config));
		ConfigurableApplicationContext context = app.run(args);
		stopOn(context, "TERM");
		stopOn(context, "INT");
		log.info(
				"java server on http://{}:{}: availableProcessors={} cpus={} bcrypt_cost={} longpoll={} "
						+ "hello_delay={} every {} sort_n={} data={} db={} db_pool={}",
				config.host(), config.port(), Runtime.getRuntime().availableProcessors(), config.cpus(),
				config.bcryptCost(), config.longPoll(), config.helloDelay(), config.helloEvery(), config.sortN(),
				config.dataDir(), config.database().map(ArenaConfig.Database::jdbcUrl).orElse("none"), config.dbPool());
	}

	@Bean
	BCryptPasswordEncoder passwordEncoder(ArenaConfig config) {
		return new BCryptPasswordEncoder(config.bcryptCost());
	}

	/**
	 * A stop signal closes the context (finishing answers in flight) and exits with
	 * status 0; the JVM's own handler would exit with 128 + the signal number.
	 */
	private static void stopOn(ConfigurableApplicationContext context, String signal) {
		Signal.handle(new Signal(signal), (received) -> System.exit(SpringApplication.exit(context)));
	}

}
