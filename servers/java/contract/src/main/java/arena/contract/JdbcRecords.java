package arena.contract;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;

/**
 * {@link Records} in plain JDBC, for the servers without a data-access framework (the
 * JDK's server and Jersey): each call borrows a pooled connection, runs one prepared
 * statement and gives the connection back.
 *
 * <p>
 * A call blocks its thread on the pool and the socket: a virtual thread unmounts from its
 * carrier meanwhile, a platform thread simply waits. Without {@code ARENA_DB_URL}, or
 * with the database away, a call answers 503; any other database failure 500, logged.
 */
public final class JdbcRecords implements AutoCloseable {

	private static final System.Logger log = System.getLogger(JdbcRecords.class.getName());

	/** {@code null} without {@code ARENA_DB_URL}. */
	private final HikariDataSource pool;

	public JdbcRecords(ArenaConfig config) {
		this.pool = config.database().map((database) -> Records.pool(database, config.dbPool())).orElse(null);
	}

	public RecordRow create(RecordRow row) {
		return Records.created(one(Records.CREATE, row.name(), row.value()));
	}

	public RecordRow read(String name) {
		return Records.found(one(Records.READ, name));
	}

	public RecordRow update(RecordRow row) {
		return Records.found(one(Records.UPDATE, row.value(), row.name()));
	}

	public RecordRow delete(String name) {
		return Records.found(one(Records.DELETE, name));
	}

	/** The row {@code sql} returns, if any. */
	private Optional<RecordRow> one(String sql, String... parameters) {
		if (this.pool == null) {
			throw unavailable();
		}
		try (Connection connection = this.pool.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setString(i + 1, parameters[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				return rows.next() ? Optional.of(new RecordRow(rows.getString("name"), rows.getString("value")))
						: Optional.empty();
			}
		}
		catch (SQLException ex) {
			if (isUnavailable(ex)) {
				throw unavailable();
			}
			log.log(Level.ERROR, "/record failed", ex);
			throw new HttpError(500, "database error");
		}
	}

	/**
	 * The database cannot be reached, or cannot serve now: the pool's wait for a
	 * connection ran out, the connection broke (SQLSTATE class 08), the server is out of
	 * resources (53), shutting down (57) or failing in its own system (58).
	 */
	static boolean isUnavailable(SQLException ex) {
		if (ex instanceof SQLTransientException || ex instanceof SQLNonTransientConnectionException
				|| ex instanceof SQLRecoverableException) {
			return true;
		}
		String state = (ex.getSQLState() != null) ? ex.getSQLState() : "";
		return state.startsWith("08") || state.startsWith("53") || state.startsWith("57") || state.startsWith("58");
	}

	private static HttpError unavailable() {
		return new HttpError(503, "database unavailable");
	}

	@Override
	public void close() {
		if (this.pool != null) {
			this.pool.close();
		}
	}

}
