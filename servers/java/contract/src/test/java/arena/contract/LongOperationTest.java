package arena.contract;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class LongOperationTest {

	@ParameterizedTest
	@CsvSource({ "1, 0.5682303266439076", "10, 10.676268897597582", "1000, 169238.799942987" })
	void checksumEqualsTheReference(int n, double expected) {
		assertThat(LongOperation.run(n)).isEqualTo(expected);
	}

	@Test
	void sortsDescending() {
		double[] a = LongOperation.lcgArray(500);
		LongOperation.bubbleSortDescending(a);
		for (int i = 1; i < a.length; i++) {
			assertThat(a[i - 1]).isGreaterThanOrEqualTo(a[i]);
		}
	}

	@Test
	void lcgValuesAreInTheUnitInterval() {
		assertThat(Arrays.stream(LongOperation.lcgArray(10_000))).allMatch((v) -> v >= 0 && v < 1);
	}

	@ParameterizedTest
	@CsvSource({ "1, 1", "0777, 777", "200000, 200000", "000000000000000000001, 1" })
	void parsesDecimalDigits(String text, int expected) {
		assertThat(LongOperation.parseN(text)).hasValue(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "0", "000", "200001", "-1", "+5", " 5", "1.5", "1e3", "abc", "٣",
			"99999999999999999999999" })
	void refusesAnythingElse(String text) {
		assertThat(LongOperation.parseN(text)).isEmpty();
		assertThatExceptionOfType(HttpError.class).isThrownBy(() -> LongOperation.size(text, 300))
			.satisfies((error) -> assertThat(error.status()).isEqualTo(400));
	}

	@Test
	void withoutNTheSettingCounts() {
		assertThat(LongOperation.size(null, 300)).isEqualTo(300);
		assertThat(LongOperation.sort(10)).isEqualTo(new LongOperation.Result("done", 10, 10.676268897597582));
	}

}
