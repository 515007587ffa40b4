package arena;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ArenaConfigTest {

	@Test
	void unsetVariablesTakeTheContractDefaults() {
		assertThat(ArenaConfig.load(Map.<String, String>of()::get)).isEqualTo(new ArenaConfig("127.0.0.1", 8080, 1, 10,
				Duration.ofMillis(5000), Duration.ofMillis(2000), 10, 50_000, Path.of("../../spec/data")));
	}

	@Test
	void readsEveryVariable() {
		Map<String, String> env = Map.of("ARENA_HOST", "0.0.0.0", "ARENA_PORT", "9000", "ARENA_CPUS", "2",
				"ARENA_BCRYPT_COST", "4", "ARENA_LONGPOLL_MS", "0", "ARENA_HELLO_DELAY_MS", "15",
				"ARENA_HELLO_DELAY_EVERY", "1", "ARENA_SORT_N", "200000", "ARENA_DATA_DIR", "/data");
		assertThat(ArenaConfig.load(env::get)).isEqualTo(new ArenaConfig("0.0.0.0", 9000, 2, 4, Duration.ZERO,
				Duration.ofMillis(15), 1, 200_000, Path.of("/data")));
	}

	@ParameterizedTest
	@CsvSource({ "ARENA_PORT, 0", "ARENA_PORT, 65536", "ARENA_PORT, abc", "ARENA_PORT, ''", "ARENA_PORT, 80.5",
			"ARENA_CPUS, 0", "ARENA_BCRYPT_COST, 3", "ARENA_BCRYPT_COST, 32", "ARENA_LONGPOLL_MS, -1",
			"ARENA_HELLO_DELAY_MS, 1s", "ARENA_HELLO_DELAY_EVERY, 0", "ARENA_SORT_N, 0", "ARENA_SORT_N, 200001",
			"ARENA_SORT_N, 99999999999999999999", "ARENA_HOST, ''", "ARENA_DATA_DIR, ''" })
	void refusesMalformedValues(String name, String value) {
		assertThatIllegalArgumentException().isThrownBy(() -> ArenaConfig.load(Map.of(name, value)::get))
			.withMessageStartingWith(name);
	}

}
