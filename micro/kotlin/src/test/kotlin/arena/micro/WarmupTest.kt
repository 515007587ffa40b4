package arena.micro

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import kotlin.math.pow
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue
import kotlin.test.fail

/** The steadiness rule of spec/micro.md and the warm-up loop. */
class WarmupTest {
    companion object {
        @JvmStatic
        fun series() = listOf(
            // fewer than 5 values is never steady
            Arguments.of(listOf<Double>(), false),
            Arguments.of(listOf(1.0), false),
            Arguments.of(listOf(1.0, 1.0, 1.0, 1.0), false),
            // five equal values
            Arguments.of(listOf(1.0, 1.0, 1.0, 1.0, 1.0), true),
            // within ±10% of the median (10.0), the bounds included
            Arguments.of(listOf(9.0, 11.0, 10.0, 9.5, 10.5), true),
            Arguments.of(listOf(10.0, 10.0, 10.0, 9.0, 11.0), true),
            // one value just outside, either side
            Arguments.of(listOf(10.0, 10.0, 10.0, 10.0, 11.2), false),
            Arguments.of(listOf(8.9, 10.0, 10.0, 10.0, 10.0), false),
            // the median, not the mean: one outlier far off is still an outlier
            Arguments.of(listOf(10.0, 10.0, 10.0, 10.0, 100.0), false),
            // only the last five count: a slow start does not matter
            Arguments.of(listOf(50.0, 30.0, 20.0, 10.0, 10.2, 9.9, 10.1, 10.0), true),
            // ...but a late spike does
            Arguments.of(listOf(10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 13.0), false),
            // still falling: 20 → 12 is not within 10% of 15
            Arguments.of(listOf(20.0, 18.0, 15.0, 13.0, 12.0), false),
            // the order of the five does not matter, only their spread around the median
            Arguments.of(listOf(2e6, 2.1e6, 1.9e6, 2.05e6, 1.95e6), true),
            // a zero median: only zeros are within 10% of it
            Arguments.of(listOf(0.0, 0.0, 0.0, 0.0, 0.0), true),
            Arguments.of(listOf(0.0, 0.0, 0.0, 0.0, 1e-9), false),
        )
    }

    @ParameterizedTest
    @MethodSource("series")
    fun steady(series: List<Double>, steady: Boolean) {
        assertEquals(steady, Warmup.steady(series), series.toString())
    }

    @Test
    fun zeroSecondsRunsNothing() = runBlocking {
        val warmup = Warmup.run(0.0, "us_per_hop") { fail("no iteration without warm-up") }
        assertSame(Warmup.NONE, warmup)
        assertNull(warmup.first)
        assertEquals(
            mapOf("iterations" to 0, "seconds" to 0, "steady" to false, "series" to emptyList<Double>()),
            warmup.json(),
        )
    }

    @Test
    fun stopsOnceSteady() = runBlocking {
        val values = listOf(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2, 1.0).iterator()
        val results = mutableListOf<Result>()
        val warmup =
            Warmup.run(60.0, "us_per_round_trip") {
                Result(1, mapOf("us_per_round_trip" to values.next()), emptyMap()).also { results += it }
            }
        assertEquals(listOf(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2), warmup.series)
        assertTrue(warmup.steady)
        assertSame(results.first(), warmup.first)
        assertEquals(7, warmup.json()["iterations"])
    }

    @Test
    fun stopsWhenTheTimeIsUpAfterFinishingTheIteration() = runBlocking {
        var calls = 0
        val warmup =
            Warmup.run(0.05, "messages_per_s") {
                // never steady: every value doubles the last
                delay(20)
                calls++
                Result(1, mapOf("messages_per_s" to 2.0.pow(calls)), emptyMap())
            }
        assertFalse(warmup.steady)
        assertEquals(calls, warmup.series.size)
        // not before the time is up, and the last iteration finished: the time passes the budget
        assertTrue(warmup.seconds >= 0.05, "stopped after ${warmup.seconds} s")
    }
}
