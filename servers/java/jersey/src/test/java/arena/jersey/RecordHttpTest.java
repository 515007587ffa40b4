package arena.jersey;

import arena.contract.RecordContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract's /record tests on the Jersey server on Tomcat and ARENA_DB_URL. */
class RecordHttpTest extends RecordContractTest {

	@RegisterExtension
	static final TestServer server = new TestServer(RecordContractTest::settings);

	@Override
	protected int port() {
		return server.port();
	}

}
