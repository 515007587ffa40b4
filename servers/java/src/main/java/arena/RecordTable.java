package arena;

import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The table {@code record} on PostgreSQL: one parameterised statement a call, in
 * autocommit (no transaction around it), on a HikariCP pool of at most
 * {@code ARENA_DB_POOL} connections. The server is one process, so the pool has the whole
 * budget.
 *
 * <p>
 * Calls block their (virtual) thread on the pool and the socket, which unmounts it from
 * its carrier. Failures are Spring's {@code DataAccessException}s; without
 * {@code ARENA_DB_URL} every call fails as the database being unavailable.
 */
@Component
class RecordTable implements AutoCloseable {

	private final @Nullable HikariDataSource pool;

	private final @Nullable JdbcClient jdbc;

	RecordTable(ArenaConfig config) {
		this.pool = config.database().map((database) -> pool(database, config.dbPool())).orElse(null);
		this.jdbc = (this.pool != null) ? JdbcClient.create(this.pool) : null;
	}

	private static HikariDataSource pool(ArenaConfig.Database database, int size) {
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

	/** The new record; empty when the name exists (and its record stays as it was). */
	Optional<RecordRow> create(RecordRow row) {
		return jdbc().sql(
				"INSERT INTO record (name, value) VALUES (:name, :value) ON CONFLICT (name) DO NOTHING RETURNING name, value")
			.paramSource(row)
			.query(RecordRow.class)
			.optional();
	}

	Optional<RecordRow> read(String name) {
		return jdbc().sql("SELECT name, value FROM record WHERE name = :name")
			.param("name", name)
			.query(RecordRow.class)
			.optional();
	}

	/** The updated record; empty (and nothing created) when the name is unknown. */
	Optional<RecordRow> update(RecordRow row) {
		return jdbc().sql("UPDATE record SET value = :value WHERE name = :name RETURNING name, value")
			.paramSource(row)
			.query(RecordRow.class)
			.optional();
	}

	Optional<RecordRow> delete(String name) {
		return jdbc().sql("DELETE FROM record WHERE name = :name RETURNING name, value")
			.param("name", name)
			.query(RecordRow.class)
			.optional();
	}

	private JdbcClient jdbc() {
		if (this.jdbc == null) {
			throw new DataAccessResourceFailureException("ARENA_DB_URL is not set");
		}
		return this.jdbc;
	}

	@Override
	public void close() {
		if (this.pool != null) {
			this.pool.close();
		}
	}

}
