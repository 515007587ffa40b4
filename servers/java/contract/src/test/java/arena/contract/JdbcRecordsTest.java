package arena.contract;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class JdbcRecordsTest {

	@ParameterizedTest
	@ValueSource(strings = { "08006", "08001", "53300", "57P01", "57P03", "58030" })
	void aDatabaseAwayIsUnavailable(String state) {
		assertThat(JdbcRecords.isUnavailable(new SQLException("away", state))).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "23505", "42P01", "22021", "XX000" })
	void otherFailuresAreErrors(String state) {
		assertThat(JdbcRecords.isUnavailable(new SQLException("failed", state))).isFalse();
	}

	/** What HikariCP throws when no connection comes within its timeout. */
	@Test
	void noConnectionInTimeIsUnavailable() {
		assertThat(JdbcRecords.isUnavailable(new SQLTransientConnectionException("timeout"))).isTrue();
	}

}
