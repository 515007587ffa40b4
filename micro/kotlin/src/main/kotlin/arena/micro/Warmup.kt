package arena.micro

import kotlin.math.abs

/**
 * The warm-up of spec/micro.md: the bench repeated in-process, each iteration with new coroutines, until its metric
 * is steady or the time is up. [series] holds each iteration's metric in order, [seconds] the time they took,
 * [first] the first iteration's result (spawn's memory; null without warm-up).
 */
class Warmup(val series: List<Double>, val seconds: Double, val steady: Boolean, val first: Result?) {
    /** The output's `warmup` object; without warm-up `"seconds": 0` as spec/micro.md writes it, not 0.0. */
    fun json(): Map<String, Any> = mapOf(
        "iterations" to series.size,
        "seconds" to if (series.isEmpty()) 0 else seconds,
        "steady" to steady,
        "series" to series,
    )

    companion object {
        /** How many of the last values the rule looks at. */
        const val WINDOW = 5

        /** How far from their median those values may lie, as a fraction of it. */
        const val TOLERANCE = 0.10

        /** No warm-up (`--warmup-s 0`). */
        val NONE = Warmup(emptyList(), 0.0, false, null)

        /** The rule: at least [WINDOW] values, and the last [WINDOW] all within ±10% of their median. */
        fun steady(series: List<Double>): Boolean {
            if (series.size < WINDOW) return false
            val last = series.takeLast(WINDOW)
            val median = last.sorted()[WINDOW / 2]
            return last.all { abs(it - median) <= TOLERANCE * abs(median) }
        }

        /**
         * Runs [iteration] until the metric named [metric] is steady or [budgetSeconds] have passed since the first
         * began (the iteration under way is finished); none at all when the budget is 0.
         */
        suspend fun run(budgetSeconds: Double, metric: String, iteration: suspend () -> Result): Warmup {
            if (budgetSeconds <= 0) return NONE
            val budget = (budgetSeconds * 1e9).toLong()
            val series = mutableListOf<Double>()
            var first: Result? = null
            val start = System.nanoTime()
            while (true) {
                val result = iteration()
                if (first == null) first = result
                series += (result.metric.getValue(metric) as Number).toDouble()
                val steady = steady(series)
                val now = System.nanoTime()
                if (steady || now - start >= budget) return Warmup(series.toList(), (now - start) / 1e9, steady, first)
            }
        }
    }
}
