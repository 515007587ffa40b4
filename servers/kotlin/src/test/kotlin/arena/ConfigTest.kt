package arena

import kotlin.io.path.Path
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class ConfigTest {
    @Test
    fun `unset variables take the defaults`() {
        assertEquals(Config(), Config.fromEnv(emptyMap()))
        assertEquals(Path("../../spec/data"), Config().dataDir)
    }

    @Test
    fun `set variables are read`() {
        val config = Config.fromEnv(
            mapOf(
                "ARENA_HOST" to "0.0.0.0",
                "ARENA_PORT" to "9000",
                "ARENA_CPUS" to "4",
                "ARENA_BCRYPT_COST" to "4",
                "ARENA_LONGPOLL_MS" to "0",
                "ARENA_HELLO_DELAY_MS" to "10",
                "ARENA_HELLO_DELAY_EVERY" to "1",
                "ARENA_SORT_N" to "200000",
                "ARENA_DATA_DIR" to "/data",
                "ARENA_DB_URL" to "postgresql://arena:pa%40ss:word@db.local:5433/arena",
                "ARENA_DB_POOL" to "1000",
            ),
        )
        val dbUrl = DbUrl("jdbc:postgresql://db.local:5433/arena", "arena", "pa@ss:word")
        assertEquals(Config("0.0.0.0", 9000, 4, 4, 0, 10, 1, 200_000, Path("/data"), dbUrl, 1000), config)
    }

    @Test
    fun `database URLs become JDBC URLs with the credentials apart`() {
        assertEquals(DbUrl("jdbc:postgresql://127.0.0.1/db", null, null), DbUrl.parse("postgres://127.0.0.1/db"))
        assertEquals(DbUrl("jdbc:postgresql://h:1/db", "u", null), DbUrl.parse("postgresql://u@h:1/db"))
    }

    @Test
    fun `malformed values are refused`() {
        val bad = listOf(
            "ARENA_PORT" to "0", "ARENA_PORT" to "65536", "ARENA_PORT" to "", "ARENA_PORT" to "80x",
            "ARENA_CPUS" to "0", "ARENA_CPUS" to "1.5",
            "ARENA_BCRYPT_COST" to "3", "ARENA_BCRYPT_COST" to "32",
            "ARENA_LONGPOLL_MS" to "-1", "ARENA_HELLO_DELAY_MS" to "-5", "ARENA_HELLO_DELAY_EVERY" to "0",
            "ARENA_SORT_N" to "0", "ARENA_SORT_N" to "200001", "ARENA_SORT_N" to "99999999999",
            "ARENA_SORT_N" to "", "ARENA_HOST" to "", "ARENA_DATA_DIR" to "",
            "ARENA_DB_POOL" to "0", "ARENA_DB_POOL" to "1001", "ARENA_DB_POOL" to "x",
            "ARENA_DB_URL" to "", "ARENA_DB_URL" to "mysql://u:p@h/db", "ARENA_DB_URL" to "not a url",
            "ARENA_DB_URL" to "postgresql:///db",
        )
        for (setting in bad) {
            val error = assertFailsWith<ConfigError>(setting.toString()) { Config.fromEnv(mapOf(setting)) }
            assertTrue(error.message.startsWith(setting.first), error.message)
        }
    }
}
