package arena.micro

/** The command line of spec/micro.md: `BENCH [--mode M] [--size S] [--rounds R] [--procs N] [--pairs P] [--seconds D]`. */
data class Options(
    val bench: String,
    val copy: Boolean,
    val size: Int,
    val rounds: Int,
    val procs: Int,
    val pairs: Int,
    val seconds: Double,
) {
    companion object {
        val BENCHES = listOf("pingping", "pingpong", "spawn", "throughput", "ring")
        private val NAMES = listOf("--mode", "--size", "--rounds", "--procs", "--pairs", "--seconds")

        fun parse(args: List<String>): Options {
            if (args.isEmpty()) {
                throw UsageException(
                    "usage: BENCH [--mode idiomatic|copy] [--size S] [--rounds R] [--procs N] [--pairs P] " +
                        "[--seconds D], BENCH one of ${BENCHES.joinToString()}",
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
                        else -> options.copy(seconds = positiveSeconds(value))
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
    }
}

/** A bad command line: exit status 2. */
class UsageException(message: String) : RuntimeException(message)
