package arena

import java.net.URI
import java.net.URISyntaxException
import java.nio.file.Path
import kotlin.io.path.Path

/** The contract's settings, from the `ARENA_*` environment variables (spec/README.md). */
data class Config(
    val host: String = "127.0.0.1",
    val port: Int = 8080,
    val cpus: Int = 1,
    val bcryptCost: Int = 10,
    val longPollMs: Int = 5000,
    val helloDelayMs: Int = 2000,
    val helloDelayEvery: Int = 10,
    val sortN: Int = 50_000,
    val dataDir: Path = Path("../../spec/data"),
    val dbUrl: DbUrl? = null,
    val dbPool: Int = 8,
) {
    companion object {
        /** Unset variables keep their default; a set but malformed one throws [ConfigError]. */
        fun fromEnv(env: Map<String, String>): Config {
            val default = Config()
            return Config(
                host = env.text("ARENA_HOST") ?: default.host,
                port = env.int("ARENA_PORT", default.port, 1..65535),
                cpus = env.int("ARENA_CPUS", default.cpus, 1..Int.MAX_VALUE),
                bcryptCost = env.int("ARENA_BCRYPT_COST", default.bcryptCost, 4..31),
                longPollMs = env.int("ARENA_LONGPOLL_MS", default.longPollMs, 0..Int.MAX_VALUE),
                helloDelayMs = env.int("ARENA_HELLO_DELAY_MS", default.helloDelayMs, 0..Int.MAX_VALUE),
                helloDelayEvery = env.int("ARENA_HELLO_DELAY_EVERY", default.helloDelayEvery, 1..Int.MAX_VALUE),
                sortN = env.int("ARENA_SORT_N", default.sortN, 1..MAX_SORT_N),
                dataDir = env.text("ARENA_DATA_DIR")?.let(::Path) ?: default.dataDir,
                dbUrl = env.text("ARENA_DB_URL")?.let(DbUrl::parse),
                dbPool = env.int("ARENA_DB_POOL", default.dbPool, 1..1000),
            )
        }
    }
}

/** `ARENA_DB_URL` as JDBC takes it: the server's address in [jdbcUrl], the credentials apart. */
data class DbUrl(val jdbcUrl: String, val user: String?, val password: String?) {
    companion object {
        /** A `postgresql://user:password@host:port/db` URL; anything else throws [ConfigError]. */
        fun parse(text: String): DbUrl {
            val uri = try {
                URI(text)
            } catch (_: URISyntaxException) {
                null
            }
            // The message leaves the value out: it holds a password.
            if (uri == null || uri.scheme !in setOf("postgresql", "postgres") || uri.host == null) {
                throw ConfigError("ARENA_DB_URL is not a postgresql://user:password@host:port/db URL")
            }
            val port = if (uri.port == -1) "" else ":${uri.port}"
            val credentials = uri.userInfo?.split(":", limit = 2).orEmpty()
            return DbUrl(
                jdbcUrl = "jdbc:postgresql://${uri.host}$port${uri.rawPath}",
                user = credentials.getOrNull(0),
                password = credentials.getOrNull(1),
            )
        }
    }
}

class ConfigError(override val message: String) : Exception(message)

/** The value of a text variable, or null when unset; set but empty is malformed, as for the numbers. */
private fun Map<String, String>.text(name: String): String? {
    val text = this[name] ?: return null
    if (text.isEmpty()) throw ConfigError("$name is set but empty")
    return text
}

private fun Map<String, String>.int(name: String, default: Int, range: IntRange): Int {
    val text = this[name] ?: return default
    val value = text.toIntOrNull() ?: throw ConfigError("$name=\"$text\" is not an integer")
    if (value !in range) {
        val bounds = if (range.last == Int.MAX_VALUE) "at least ${range.first}" else "in ${range.first}..${range.last}"
        throw ConfigError("$name=$text must be $bounds")
    }
    return value
}
