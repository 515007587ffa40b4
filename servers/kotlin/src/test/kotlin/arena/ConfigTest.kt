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
            ),
        )
        assertEquals(Config("0.0.0.0", 9000, 4, 4, 0, 10, 1, 200_000, Path("/data")), config)
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
        )
        for (setting in bad) {
            val error = assertFailsWith<ConfigError>(setting.toString()) { Config.fromEnv(mapOf(setting)) }
            assertTrue(error.message.startsWith(setting.first), error.message)
        }
    }
}
