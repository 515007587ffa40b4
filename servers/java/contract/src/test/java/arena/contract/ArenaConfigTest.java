package arena.contract;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ArenaConfigTest {

	@Test
	void unsetVariablesTakeTheContractDefaults() {
		assertThat(ArenaConfig.load(Map.<String, String>of()::get))
			.isEqualTo(new ArenaConfig("127.0.0.1", 8080, 1, 10, Duration.ofMillis(5000), Duration.ofMillis(2000), 10,
					50_000, Path.of("../../spec/data"), Optional.empty(), 8));
	}

	@Test
	void readsEveryVariable() {
		Map<String, String> env = Map.ofEntries(Map.entry("ARENA_HOST", "0.0.0.0"), Map.entry("ARENA_PORT", "9000"),
				Map.entry("ARENA_CPUS", "2"), Map.entry("ARENA_BCRYPT_COST", "4"), Map.entry("ARENA_LONGPOLL_MS", "0"),
				Map.entry("ARENA_HELLO_DELAY_MS", "15"), Map.entry("ARENA_HELLO_DELAY_EVERY", "1"),
				Map.entry("ARENA_SORT_N", "200000"), Map.entry("ARENA_DATA_DIR", "/data"),
				Map.entry("ARENA_DB_URL", "postgresql://arena:secret@127.0.0.1:5432/arena"),
				Map.entry("ARENA_DB_POOL", "1000"));
		assertThat(ArenaConfig.load(env::get)).isEqualTo(new ArenaConfig("0.0.0.0", 9000, 2, 4, Duration.ZERO,
				Duration.ofMillis(15), 1, 200_000, Path.of("/data"),
				Optional.of(new ArenaConfig.Database("jdbc:postgresql://127.0.0.1:5432/arena", "arena", "secret")),
				1000));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "postgres://u:p@db/arena|jdbc:postgresql://db/arena|u|p",
			"postgresql://u%40x:p%3Aw:d@[::1]:6543/a%20b?sslmode=disable|jdbc:postgresql://[::1]:6543/a%20b?sslmode=disable|u@x|p:w:d",
			"postgresql://u@localhost:5432/arena|jdbc:postgresql://localhost:5432/arena|u|''" })
	void convertsTheDatabaseUrlForJdbc(String url, String jdbcUrl, String user, String password) {
		assertThat(ArenaConfig.load(Map.of("ARENA_DB_URL", url)::get).database())
			.hasValue(new ArenaConfig.Database(jdbcUrl, user, password));
	}

	@ParameterizedTest
	@CsvSource({ "ARENA_PORT, 0", "ARENA_PORT, 65536", "ARENA_PORT, abc", "ARENA_PORT, ''", "ARENA_PORT, 80.5",
			"ARENA_CPUS, 0", "ARENA_BCRYPT_COST, 3", "ARENA_BCRYPT_COST, 32", "ARENA_LONGPOLL_MS, -1",
			"ARENA_HELLO_DELAY_MS, 1s", "ARENA_HELLO_DELAY_EVERY, 0", "ARENA_SORT_N, 0", "ARENA_SORT_N, 200001",
			"ARENA_SORT_N, 99999999999999999999", "ARENA_HOST, ''", "ARENA_DATA_DIR, ''", "ARENA_DB_POOL, 0",
			"ARENA_DB_POOL, 1001", "ARENA_DB_POOL, x", "ARENA_DB_URL, ''", "ARENA_DB_URL, mysql://u:p@h/db",
			"ARENA_DB_URL, postgresql://u:p@h", "ARENA_DB_URL, postgresql://h/db",
			"ARENA_DB_URL, postgresql://u:p@h:x/db" })
	void refusesMalformedValues(String name, String value) {
		assertThatIllegalArgumentException().isThrownBy(() -> ArenaConfig.load(Map.of(name, value)::get))
			.withMessageStartingWith(name);
	}

}
