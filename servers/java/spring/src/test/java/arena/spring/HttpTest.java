package arena.spring;

import arena.contract.ArenaConfig;
import arena.contract.HttpContractTest;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/** The contract's HTTP tests on the Spring Boot application, started on a random port. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
class HttpTest extends HttpContractTest {

	@LocalServerPort
	private int port;

	@Override
	protected int port() {
		return this.port;
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Settings {

		@Bean
		ArenaConfig arenaConfig() {
			return settings();
		}

	}

}
