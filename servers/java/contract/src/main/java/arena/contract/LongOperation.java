package arena.contract;

import java.util.OptionalInt;

/**
 * The honours report's long operation: the spec's LCG array, bubble-sorted, checksummed.
 * Each server runs it in the request, on whatever thread its model gives the request.
 */
public final class LongOperation {

	private LongOperation() {
	}

	/**
	 * The array size {@code ?n=} asks for, or {@code fallback} (the setting
	 * {@code ARENA_SORT_N}) when the query has no {@code n}.
	 * @throws HttpError 400 when {@code n} is not decimal digits in 1..200000
	 */
	public static int size(String n, int fallback) {
		if (n == null) {
			return fallback;
		}
		return parseN(n)
			.orElseThrow(() -> HttpError.badRequest("n must be decimal digits in 1.." + ArenaConfig.MAX_SORT_N));
	}

	/** The answer for an array of {@code n}: O(n²) work on the calling thread. */
	public static Result sort(int n) {
		return new Result("done", n, run(n));
	}

	/**
	 * n floats in [0, 1) from a 64-bit LCG seeded with 42; long arithmetic wraps mod
	 * 2^64.
	 */
	static double[] lcgArray(int n) {
		double[] a = new double[n];
		long x = 42;
		for (int i = 0; i < n; i++) {
			x = x * 6364136223846793005L + 1442695040888963407L;
			a[i] = (x >>> 11) * 0x1p-53;
		}
		return a;
	}

	/** The spec's exact O(n²) bubble sort, descending: the CPU work is the point. */
	static void bubbleSortDescending(double[] a) {
		int n = a.length;
		for (int i = 0; i < n; i++) {
			for (int j = 1; j < n - i; j++) {
				if (a[j - 1] < a[j]) {
					double swap = a[j - 1];
					a[j - 1] = a[j];
					a[j] = swap;
				}
			}
		}
	}

	/**
	 * Σ (i+1)·a[i] in index order; Java never fuses it into an FMA, so it is exact per
	 * spec.
	 */
	static double checksum(double[] a) {
		double sum = 0;
		for (int i = 0; i < a.length; i++) {
			sum += (i + 1) * a[i];
		}
		return sum;
	}

	static double run(int n) {
		double[] a = lcgArray(n);
		bubbleSortDescending(a);
		return checksum(a);
	}

	/**
	 * Decimal digits only (leading zeros allowed) in 1..{@link ArenaConfig#MAX_SORT_N}.
	 */
	static OptionalInt parseN(String text) {
		if (text.isEmpty()) {
			return OptionalInt.empty();
		}
		int n = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				return OptionalInt.empty();
			}
			n = n * 10 + (c - '0');
			// Stopping here also keeps n from overflowing on a long digit string.
			if (n > ArenaConfig.MAX_SORT_N) {
				return OptionalInt.empty();
			}
		}
		return (n >= 1) ? OptionalInt.of(n) : OptionalInt.empty();
	}

	/**
	 * The answer's JSON, {@code {"message":"done","n":N,"checksum":C}}: every server's
	 * Jackson prints the checksum in its shortest round-trip form, as the contract asks.
	 */
	public record Result(String message, int n, double checksum) {
	}

}
