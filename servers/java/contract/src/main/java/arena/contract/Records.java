package arena.contract;

import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The table {@code record} on PostgreSQL: its pool, its four statements and what their
 * results answer. Each request runs exactly one of the statements, parameterised, in
 * autocommit (no transaction around it), with no cache in front.
 */
public final class Records {

	/** Parameters: name, value. No row when the name exists, which is left as it was. */
	public static final String CREATE = "INSERT INTO record (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING name, value";

	/** Parameter: name. */
	public static final String READ = "SELECT name, value FROM record WHERE name = ?";

	/** Parameters: value, name. No row, and nothing created, when the name is unknown. */
	public static final String UPDATE = "UPDATE record SET value = ? WHERE name = ? RETURNING name, value";

	/** Parameter: name. */
	public static final String DELETE = "DELETE FROM record WHERE name = ? RETURNING name, value";

	private Records() {
	}

	/**
	 * A HikariCP pool of at most {@code size} connections: every server here is one
	 * process, so its one pool has the whole {@code ARENA_DB_POOL} budget.
	 */
	public static HikariDataSource pool(ArenaConfig.Database database, int size) {
		HikariConfig hikari = new HikariConfig();
		hikari.setPoolName("record");
		hikari.setJdbcUrl(database.jdbcUrl());
		hikari.setUsername(database.user());
		hikari.setPassword(database.password());
		hikari.setMaximumPoolSize(size);
		// One connection is kept open; the others are opened under load and closed
		// after 10 idle minutes.
		hikari.setMinimumIdle(1);
		// Start whether or not the database is up: connections are made in the
		// background.
		hikari.setInitializationFailTimeout(-1);
		// A request that gets no live connection within 2 s answers 503, within the
		// contract's 5 s: the pool's wait bounds the driver's connect (in seconds) and
		// the liveness check of a connection that was idle.
		hikari.setConnectionTimeout(2000);
		hikari.setValidationTimeout(1000);
		hikari.addDataSourceProperty("connectTimeout", 2);
		// A server of 9.0 or later takes application_name in the start-up packet, where
		// the driver would otherwise send a SET statement on every new connection.
		hikari.addDataSourceProperty("assumeMinServerVersion", "9.0");
		// No connectionTestQuery: JDBC4 isValid is a protocol-level ping, which the
		// database does not count as a statement.
		return new HikariDataSource(hikari);
	}

	/**
	 * The record {@link #CREATE} returned.
	 * @throws HttpError 409 when it returned none: the name exists
	 */
	public static RecordRow created(Optional<RecordRow> row) {
		return row.orElseThrow(() -> new HttpError(409, "record exists"));
	}

	/**
	 * The record {@link #READ}, {@link #UPDATE} or {@link #DELETE} returned.
	 * @throws HttpError 404 when it returned none
	 */
	public static RecordRow found(Optional<RecordRow> row) {
		return row.orElseThrow(() -> new HttpError(404, "no such record"));
	}

}
