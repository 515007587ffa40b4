package arena.micro;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The steadiness rule of spec/micro.md and the warm-up loop. */
class WarmupTest {

	static Stream<Arguments> series() {
		return Stream.of(
				// fewer than 5 values is never steady
				Arguments.of(List.of(), false), Arguments.of(List.of(1.0), false),
				Arguments.of(List.of(1.0, 1.0, 1.0, 1.0), false),
				// five equal values
				Arguments.of(List.of(1.0, 1.0, 1.0, 1.0, 1.0), true),
				// within ±10% of the median (10.0), the bounds included
				Arguments.of(List.of(9.0, 11.0, 10.0, 9.5, 10.5), true),
				Arguments.of(List.of(10.0, 10.0, 10.0, 9.0, 11.0), true),
				// one value just outside, either side
				Arguments.of(List.of(10.0, 10.0, 10.0, 10.0, 11.2), false),
				Arguments.of(List.of(8.9, 10.0, 10.0, 10.0, 10.0), false),
				// the median, not the mean: one outlier far off is still an outlier
				Arguments.of(List.of(10.0, 10.0, 10.0, 10.0, 100.0), false),
				// only the last five count: a slow start does not matter
				Arguments.of(List.of(50.0, 30.0, 20.0, 10.0, 10.2, 9.9, 10.1, 10.0), true),
				// ...but a late spike does
				Arguments.of(List.of(10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 13.0), false),
				// still falling: 20 → 12 is not within 10% of 15
				Arguments.of(List.of(20.0, 18.0, 15.0, 13.0, 12.0), false),
				// the order of the five does not matter, only their spread around the
				// median
				Arguments.of(List.of(2e6, 2.1e6, 1.9e6, 2.05e6, 1.95e6), true),
				// a zero median: only zeros are within 10% of it
				Arguments.of(List.of(0.0, 0.0, 0.0, 0.0, 0.0), true),
				Arguments.of(List.of(0.0, 0.0, 0.0, 0.0, 1e-9), false));
	}

	@ParameterizedTest
	@MethodSource("series")
	void steady(List<Double> series, boolean steady) {
		assertEquals(steady, Warmup.steady(series), series.toString());
	}

	@Test
	void zeroSecondsRunsNothing() throws Exception {
		Warmup warmup = Warmup.run(0, () -> {
			throw new AssertionError("no iteration without warm-up");
		}, "us_per_hop");
		assertSame(Warmup.NONE, warmup);
		assertNull(warmup.first());
		assertEquals(Json.object("iterations", 0, "seconds", 0, "steady", false, "series", List.of()), warmup.json());
	}

	@Test
	void stopsOnceSteady() throws Exception {
		Iterator<Double> values = List.of(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2, 1.0).iterator();
		List<Result> results = new ArrayList<>();
		Warmup warmup = Warmup.run(60, () -> {
			Result result = new Result(1, Json.object("us_per_round_trip", values.next()), Json.object());
			results.add(result);
			return result;
		}, "us_per_round_trip");
		assertEquals(List.of(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2), warmup.series());
		assertTrue(warmup.steady());
		assertSame(results.get(0), warmup.first());
		assertEquals(7, warmup.json().get("iterations"));
	}

	@Test
	void stopsWhenTheTimeIsUpAfterFinishingTheIteration() throws Exception {
		var calls = new AtomicInteger();
		Warmup warmup = Warmup.run(0.05, () -> {
			// never steady: every value doubles the last
			Thread.sleep(20);
			return new Result(1, Json.object("messages_per_s", Math.pow(2, calls.incrementAndGet())), Json.object());
		}, "messages_per_s");
		assertFalse(warmup.steady());
		assertEquals(calls.get(), warmup.series().size());
		// not before the time is up, and the last iteration finished: the time passes the
		// budget
		assertTrue(warmup.seconds() >= 0.05, "stopped after " + warmup.seconds() + " s");
	}

}
