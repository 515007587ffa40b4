package arena.micro

/**
 * The command line of spec/micro.md:
 * `BENCH [--mode M] [--size S] [--rounds R] [--procs N] [--pairs P] [--seconds D] [--warmup-s W]`.
 */
data class Options(
    val bench: String,
    val copy: Boolean,
    val size: Int,
    val rounds: Int,
    val procs: Int,
    val pairs: Int,
    val seconds: Double,
    val warmupSeconds: Double = 10.0,
) {
    /** The options of one warm-up iteration: the same, but throughput lasts at most [WARMUP_THROUGHPUT_SECONDS]. */
    fun forWarmup() = copy(seconds = minOf(seconds, WARMUP_THROUGHPUT_SECONDS))

    /** The name of the bench's metric in `metric`, the one the warm-up follows. */
    val metricName: String
        get() = when (bench) {
            "pingping" -> "us_per_message"
            "pingpong" -> "us_per_round_trip"
            "spawn" -> "us_per_spawn"
            "throughput" -> "messages_per_s"
            else -> "us_per_hop"
        }

    companion object {
        val BENCHES = listOf("pingping", "pingpong", "spawn", "throughput", "ring")
        private val NAMES = listOf("--mode", "--size", "--rounds", "--procs", "--pairs", "--seconds", "--warmup-s")

        /** The longest warm-up iteration of throughput (spec/micro.md: min(D, 0.1 s)). */
        const val WARMUP_THROUGHPUT_SECONDS = 0.1

        fun parse(args: List<String>): Options {
            if (args.isEmpty()) {
                throw UsageException(
                    "usage: BENCH [--mode idiomatic|copy] [--size S] [--rounds R] [--procs N] [--pairs P] " +
                        "[--seconds D] [--warmup-s W], BENCH one of ${BENCHES.joinToString()}",
                )
            }
            val bench = args[0]
            if (bench !in BENCHES) throw UsageException("unknown bench: $bench")
            var options =
                Options(bench, copy = false, size = 5000, rounds = 10000, procs = 1000, pairs = 1, seconds = 1.0)
            for (i in 1 until args.size step 2) {
                val name = args[i]
                if (name !in NAMES) throw UsageException("unknown option: $name")
                val value = args.getOrNull(i + 1) ?: throw UsageException("missing value for $name")
                options =
                    when (name) {
                        "--mode" -> options.copy(copy = mode(value))
                        "--size" -> options.copy(size = atLeastOne(name, value))
                        "--rounds" -> options.copy(rounds = atLeastOne(name, value))
                        "--procs" -> options.copy(procs = atLeastOne(name, value))
                        "--pairs" -> options.copy(pairs = atLeastOne(name, value))
                        "--seconds" -> options.copy(seconds = positiveSeconds(value))
                        else -> options.copy(warmupSeconds = nonNegativeSeconds(value))
                    }
            }
            if (bench == "ring" && options.procs < 2) throw UsageException("ring needs --procs of at least 2")
            return options
        }

        private fun mode(value: String) = when (value) {
            "idiomatic" -> false
            "copy" -> true
            else -> throw UsageException("--mode must be idiomatic or copy, not $value")
        }

        private fun atLeastOne(name: String, value: String) = value.toIntOrNull()?.takeIf { it >= 1 }
            ?: throw UsageException("$name must be an integer of at least 1, not $value")

        private fun positiveSeconds(value: String) = value.toDoubleOrNull()?.takeIf { it > 0 && it.isFinite() }
            ?: throw UsageException("--seconds must be a number above 0, not $value")

        private fun nonNegativeSeconds(value: String) = value.toDoubleOrNull()?.takeIf { it >= 0 && it.isFinite() }
            ?: throw UsageException("--warmup-s must be a number of at least 0, not $value")
    }
}

/** A bad command line: exit status 2. */
class UsageException(message: String) : RuntimeException(message)
