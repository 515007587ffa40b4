package arena

import com.zaxxer.hikari.HikariConfig
import com.zaxxer.hikari.HikariDataSource
import io.ktor.http.HttpStatusCode
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import org.slf4j.LoggerFactory
import java.io.Closeable
import java.sql.SQLException
import java.sql.SQLTransientConnectionException

/** A record of `/record`: the answer's body is exactly these two fields. */
data class Record(val name: String, val value: String)

/**
 * The `record` table through a HikariCP pool of at most [poolSize] PostgreSQL connections: one
 * statement per call, in autocommit, so nothing but that statement reaches the database.
 */
class RecordStore(url: DbUrl, poolSize: Int) : Closeable {
    private val pool = HikariDataSource(
        HikariConfig().apply {
            jdbcUrl = url.jdbcUrl
            username = url.user
            password = url.password
            maximumPoolSize = poolSize
            // Start whether or not the database is up, and open connections only when requests
            // wait for one (they stay open, up to the pool size, until idle for 10 minutes): after
            // an outage the first request reconnects at once, instead of waiting for a background
            // refill that backs off up to 5 s between tries.
            initializationFailTimeout = -1
            minimumIdle = 0
            // A request that gets no connection in this time is answered 503, within the contract's 5 s.
            connectionTimeout = 2500
            validationTimeout = 1000
            // No pings on idle connections: they would be statements no request asked for. A
            // connection idle for a while is still checked when taken (JDBC isValid, an empty query).
            keepaliveTime = 0
            addDataSourceProperty("connectTimeout", "2")
            // Without it the driver sends `SET application_name` on every new connection.
            addDataSourceProperty("assumeMinServerVersion", "12")
        },
    )

    // JDBC blocks its thread for each statement: those threads, one per connection at most, are
    // kept off Netty's event loops.
    private val jdbc = Dispatchers.IO.limitedParallelism(poolSize)

    /** The new record, or null if [record]'s name exists. */
    suspend fun create(record: Record): Record? = single(
        "INSERT INTO record (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING name, value",
        record.name,
        record.value,
    )

    suspend fun read(name: String): Record? = single("SELECT name, value FROM record WHERE name = ?", name)

    /** The updated record, or null if there is none of that name. */
    suspend fun update(record: Record): Record? = single(
        "UPDATE record SET value = ? WHERE name = ? RETURNING name, value",
        record.value,
        record.name,
    )

    /** The deleted record, or null if there was none of that name. */
    suspend fun delete(name: String): Record? = single("DELETE FROM record WHERE name = ? RETURNING name, value", name)

    override fun close() = pool.close()

    /** The one row (name, value) that [sql] with [parameters] answers, if any. */
    private suspend fun single(sql: String, vararg parameters: String): Record? = withContext(jdbc) {
        try {
            pool.connection.use { connection ->
                connection.prepareStatement(sql).use { statement ->
                    parameters.forEachIndexed { i, parameter -> statement.setString(i + 1, parameter) }
                    statement.executeQuery().use { rows ->
                        if (rows.next()) Record(rows.getString(1), rows.getString(2)) else null
                    }
                }
            }
        } catch (error: SQLException) {
            throw answerFor(error)
        }
    }

    private fun answerFor(error: SQLException): ApiError {
        log.warn("/record: {}", error.toString())
        // No connection in time (Hikari), connection errors (08) and a server shutting down or
        // starting up (57): the database is unavailable. Anything else is unexpected.
        val unavailable = error is SQLTransientConnectionException || error.sqlState?.take(2) in setOf("08", "57")
        return if (unavailable) {
            ApiError(HttpStatusCode.ServiceUnavailable, "database unavailable")
        } else {
            ApiError(HttpStatusCode.InternalServerError, "database error")
        }
    }

    private companion object {
        val log = LoggerFactory.getLogger(RecordStore::class.java)
    }
}
