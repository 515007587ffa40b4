package arena.jersey;

import arena.contract.HttpContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract's HTTP tests on the Jersey server on Tomcat. */
class HttpTest extends HttpContractTest {

	@RegisterExtension
	static final TestServer server = new TestServer(HttpContractTest::settings);

	@Override
	protected int port() {
		return server.port();
	}

}
