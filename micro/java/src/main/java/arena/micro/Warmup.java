package arena.micro;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The warm-up of spec/micro.md: the bench repeated in-process, each iteration with new
 * processes, until its metric is steady or the time is up.
 *
 * @param series each iteration's metric, in order
 * @param seconds the time the iterations took
 * @param steady whether the series met the rule of {@link #steady(List)}
 * @param first the first iteration's result (spawn's memory), {@code null} without
 * warm-up
 */
record Warmup(List<Double> series, double seconds, boolean steady, Result first) {

	/** How many of the last values the rule looks at. */
	static final int WINDOW = 5;

	/** How far from their median those values may lie, as a fraction of it. */
	static final double TOLERANCE = 0.10;

	/** No warm-up ({@code --warmup-s 0}). */
	static final Warmup NONE = new Warmup(List.of(), 0, false, null);

	/**
	 * The rule: at least {@value #WINDOW} values, and the last {@value #WINDOW} all
	 * within ±10% of their median.
	 */
	static boolean steady(List<Double> series) {
		if (series.size() < WINDOW) {
			return false;
		}
		double[] last = series.subList(series.size() - WINDOW, series.size())
			.stream()
			.mapToDouble(Double::doubleValue)
			.toArray();
		double[] sorted = last.clone();
		Arrays.sort(sorted);
		double median = sorted[WINDOW / 2];
		return Arrays.stream(last).allMatch((value) -> Math.abs(value - median) <= TOLERANCE * Math.abs(median));
	}

	/**
	 * Runs {@code iteration} until the metric named {@code metric} is steady or
	 * {@code budgetSeconds} have passed since the first began (the iteration under way is
	 * finished); none at all when the budget is 0.
	 */
	static Warmup run(double budgetSeconds, Callable<Result> iteration, String metric) throws Exception {
		if (budgetSeconds <= 0) {
			return NONE;
		}
		long budget = (long) (budgetSeconds * 1e9);
		List<Double> series = new ArrayList<>();
		Result first = null;
		boolean steady;
		long start = System.nanoTime();
		long now;
		do {
			Result result = iteration.call();
			first = (first != null) ? first : result;
			series.add(((Number) result.metric().get(metric)).doubleValue());
			steady = steady(series);
			now = System.nanoTime();
		}
		while (!steady && now - start < budget);
		return new Warmup(List.copyOf(series), (now - start) / 1e9, steady, first);
	}

	/** The output's {@code warmup} object. */
	Map<String, Object> json() {
		// Without warm-up, "seconds": 0 as spec/micro.md writes it, not 0.0.
		Object seconds = this.series.isEmpty() ? (Object) 0 : (Object) this.seconds;
		return Json.object("iterations", this.series.size(), "seconds", seconds, "steady", this.steady, "series",
				this.series);
	}

}
