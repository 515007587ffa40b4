package arena.spring;

import java.util.Optional;

import arena.contract.ArenaConfig;
import arena.contract.RecordRow;
import arena.contract.Records;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The contract's {@link Records} statements through Spring's {@link JdbcClient}, on the
 * contract's HikariCP pool of at most {@code ARENA_DB_POOL} connections: one statement a
 * call, in autocommit.
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
		this.pool = config.database().map((database) -> Records.pool(database, config.dbPool())).orElse(null);
		this.jdbc = (this.pool != null) ? JdbcClient.create(this.pool) : null;
	}

	/** The new record; empty when the name exists (and its record stays as it was). */
	Optional<RecordRow> create(RecordRow row) {
		return jdbc().sql(Records.CREATE).params(row.name(), row.value()).query(RecordRow.class).optional();
	}

	Optional<RecordRow> read(String name) {
		return jdbc().sql(Records.READ).param(name).query(RecordRow.class).optional();
	}

	/** The updated record; empty (and nothing created) when the name is unknown. */
	Optional<RecordRow> update(RecordRow row) {
		return jdbc().sql(Records.UPDATE).params(row.value(), row.name()).query(RecordRow.class).optional();
	}

	Optional<RecordRow> delete(String name) {
		return jdbc().sql(Records.DELETE).param(name).query(RecordRow.class).optional();
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
