package arena.contract;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The {@code ARENA_*} settings of spec/README.md.
 *
 * <p>
 * A variable that is set but malformed is an error, never a fallback to its default: the
 * server must not run with another setting than the harness asked for.
 */
public record ArenaConfig(String host, int port, int cpus, int bcryptCost, Duration longPoll, Duration helloDelay,
		long helloEvery, int sortN, Path dataDir, Optional<Database> database, int dbPool) {

	/** The largest {@code n} of /long-operation: its bubble sort is O(n²). */
	public static final int MAX_SORT_N = 200_000;

	/**
	 * The settings of this process's environment. A malformed one ends the process at
	 * once with status 2 and a message naming the variable, before any server starts.
	 */
	public static ArenaConfig fromEnvironment() {
		try {
			return load(System::getenv);
		}
		catch (IllegalArgumentException ex) {
			System.err.println("config: " + ex.getMessage());
			System.exit(2);
			throw ex;
		}
	}

	/**
	 * Reads the settings through {@code lookup}, which answers {@code null} for an unset
	 * variable.
	 * @throws IllegalArgumentException naming the first malformed variable
	 */
	public static ArenaConfig load(Function<String, String> lookup) {
		Variables vars = new Variables(lookup);
		return new ArenaConfig(vars.text("ARENA_HOST", "127.0.0.1"), vars.integer("ARENA_PORT", 8080, 1, 65535),
				vars.integer("ARENA_CPUS", 1, 1, Integer.MAX_VALUE), vars.integer("ARENA_BCRYPT_COST", 10, 4, 31),
				vars.millis("ARENA_LONGPOLL_MS", 5000), vars.millis("ARENA_HELLO_DELAY_MS", 2000),
				vars.number("ARENA_HELLO_DELAY_EVERY", 10, 1, Long.MAX_VALUE),
				vars.integer("ARENA_SORT_N", 50_000, 1, MAX_SORT_N),
				Path.of(vars.text("ARENA_DATA_DIR", "../../spec/data")), vars.database("ARENA_DB_URL"),
				vars.integer("ARENA_DB_POOL", 8, 1, 1000));
	}

	/**
	 * The start-up line's account of the settings: where the server listens and what it
	 * was told. The database's password stays out of it.
	 */
	public String summary() {
		return "http://%s:%d: availableProcessors=%d cpus=%d bcrypt_cost=%d longpoll=%s hello_delay=%s every %d sort_n=%d data=%s db=%s db_pool=%d"
			.formatted(this.host, this.port, Runtime.getRuntime().availableProcessors(), this.cpus, this.bcryptCost,
					this.longPoll, this.helloDelay, this.helloEvery, this.sortN, this.dataDir,
					this.database.map(Database::jdbcUrl).orElse("none"), this.dbPool);
	}

	/**
	 * The PostgreSQL of /record as JDBC wants it: {@code ARENA_DB_URL}
	 * ({@code postgresql://user:password@host:port/db}) split into a JDBC URL and the
	 * credentials.
	 */
	public record Database(String jdbcUrl, String user, String password) {

		static Database parse(String url) throws URISyntaxException {
			URI uri = new URI(url);
			String userInfo = uri.getUserInfo();
			if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
				throw new URISyntaxException(url, "not a postgresql:// URL");
			}
			if (uri.getHost() == null || userInfo == null || uri.getPath().length() < 2) {
				throw new URISyntaxException(url, "want postgresql://user:password@host:port/db");
			}
			String port = (uri.getPort() != -1) ? ":" + uri.getPort() : "";
			String query = (uri.getRawQuery() != null) ? "?" + uri.getRawQuery() : "";
			int colon = userInfo.indexOf(':');
			return new Database("jdbc:postgresql://" + uri.getHost() + port + uri.getRawPath() + query,
					(colon >= 0) ? userInfo.substring(0, colon) : userInfo,
					(colon >= 0) ? userInfo.substring(colon + 1) : "");
		}

	}

	private record Variables(Function<String, String> lookup) {

		String text(String name, String fallback) {
			String value = this.lookup.apply(name);
			if (value == null) {
				return fallback;
			}
			if (value.isEmpty()) {
				throw new IllegalArgumentException(name + " is set but empty");
			}
			return value;
		}

		long number(String name, long fallback, long min, long max) {
			String value = this.lookup.apply(name);
			if (value == null) {
				return fallback;
			}
			OptionalLong number = parse(value);
			if (number.isEmpty() || number.getAsLong() < min || number.getAsLong() > max) {
				String range = (max >= Integer.MAX_VALUE) ? ">= " + min : "in " + min + ".." + max;
				throw new IllegalArgumentException(name + "=\"" + value + "\": want an integer " + range);
			}
			return number.getAsLong();
		}

		Optional<Database> database(String name) {
			String value = this.lookup.apply(name);
			if (value == null) {
				return Optional.empty();
			}
			try {
				return Optional.of(Database.parse(value));
			}
			catch (URISyntaxException ex) {
				// Not the URL itself: it holds the password.
				throw new IllegalArgumentException(name + " is malformed: " + ex.getReason());
			}
		}

		int integer(String name, int fallback, int min, int max) {
			return (int) number(name, fallback, min, max);
		}

		Duration millis(String name, long fallback) {
			return Duration.ofMillis(number(name, fallback, 0, Long.MAX_VALUE));
		}

		private static OptionalLong parse(String value) {
			try {
				return OptionalLong.of(Long.parseLong(value));
			}
			catch (NumberFormatException ex) {
				return OptionalLong.empty();
			}
		}

	}

}
