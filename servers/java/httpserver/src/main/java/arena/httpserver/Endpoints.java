package arena.httpserver;

import java.io.IOException;
import java.util.Map;

import arena.contract.ArenaConfig;
import arena.contract.HelloPage;
import arena.contract.JdbcRecords;
import arena.contract.LongOperation;
import arena.contract.Names;
import arena.contract.Passwords;
import arena.contract.RequestBodies;
import arena.contract.Users;
import arena.httpserver.Route.Answer;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every endpoint of the contract. Each runs on its exchange's virtual thread and blocks
 * it as long as it needs: {@link Thread#sleep} for the waits, bcrypt, the bubble sort and
 * JDBC calls. A blocked virtual thread leaves its carrier to others, except while it
 * computes: virtual threads are not preempted.
 */
final class Endpoints implements AutoCloseable {

	private static final String JSON = "application/json";

	private static final String HTML = "text/html; charset=utf-8";

	private final ArenaConfig config;

	private final HelloPage hello;

	private final Passwords passwords;

	private final Users users = new Users();

	private final JdbcRecords records;

	/** Jackson 3: it writes the JSON answers, and parses the request bodies. */
	private final JsonMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

	private final RequestBodies bodies = new RequestBodies(this.json.readerFor(Object.class)::readValue);

	Endpoints(ArenaConfig config) throws IOException {
		this.config = config;
		this.hello = new HelloPage(config);
		this.passwords = Passwords.favre(config.bcryptCost());
		this.records = new JdbcRecords(config);
	}

	/**
	 * A context for each path of the contract; {@code /}, the shortest prefix, takes
	 * every path no other context does.
	 */
	void register(HttpServer server) {
		server.createContext("/", Route.exact(Map.of("GET", (exchange, name) -> Answer.OK)));
		server.createContext("/hello", Route.exact(Map.of("GET", this::hello)));
		server.createContext("/longPoll", Route.exact(Map.of("GET", this::longPoll)));
		server.createContext("/password/set/", Route.named(Map.of("POST", this::setPassword)));
		server.createContext("/password/verify/", Route.named(Map.of("POST", this::verifyPassword)));
		server.createContext("/user/set/", Route.named(Map.of("POST", this::setUser)));
		server.createContext("/user/get/", Route.named(Map.of("GET", this::getUser)));
		server.createContext("/long-operation", Route.exact(Map.of("GET", this::longOperation)));
		server.createContext("/record", Route.exact(Map.of("PUT", this::createRecord, "GET", this::readRecord, "POST",
				this::updateRecord, "DELETE", this::deleteRecord)));
	}

	private Answer hello(HttpExchange exchange, String name) throws InterruptedException {
		if (this.hello.waits()) {
			Thread.sleep(this.hello.delay());
		}
		return new Answer(200, HTML, this.hello.bytes());
	}

	private Answer longPoll(HttpExchange exchange, String name) throws InterruptedException {
		Thread.sleep(this.config.longPoll());
		return Answer.OK;
	}

	private Answer setPassword(HttpExchange exchange, String username) {
		this.passwords.set(username, this.bodies.password(exchange.getRequestBody()));
		return Answer.OK;
	}

	private Answer verifyPassword(HttpExchange exchange, String username) {
		this.passwords.verify(username, this.bodies.password(exchange.getRequestBody()));
		return Answer.OK;
	}

	private Answer setUser(HttpExchange exchange, String username) {
		this.users.set(username, this.bodies.object(exchange.getRequestBody()));
		return Answer.OK;
	}

	private Answer getUser(HttpExchange exchange, String username) {
		return new Answer(200, JSON, this.users.get(username));
	}

	private Answer longOperation(HttpExchange exchange, String name) {
		int n = LongOperation.size(Route.query(exchange, "n"), this.config.sortN());
		return json(200, LongOperation.sort(n));
	}

	private Answer createRecord(HttpExchange exchange, String name) {
		return json(201, this.records.create(this.bodies.record(exchange.getRequestBody())));
	}

	private Answer readRecord(HttpExchange exchange, String name) {
		return json(200, this.records.read(Names.check(Route.query(exchange, "name"))));
	}

	private Answer updateRecord(HttpExchange exchange, String name) {
		return json(200, this.records.update(this.bodies.record(exchange.getRequestBody())));
	}

	private Answer deleteRecord(HttpExchange exchange, String name) {
		return json(200, this.records.delete(Names.check(Route.query(exchange, "name"))));
	}

	private Answer json(int status, Object value) {
		return new Answer(status, JSON, this.json.writeValueAsBytes(value));
	}

	@Override
	public void close() {
		this.records.close();
	}

}
