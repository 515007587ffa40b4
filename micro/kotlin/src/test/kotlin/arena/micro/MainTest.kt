package arena.micro

import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import java.io.ByteArrayOutputStream
import java.io.PrintStream
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/** The command line and the JSON line. */
class MainTest {
    private companion object {
        val WARMUP =
            Regex(
                """"warmup": \{"iterations": (\d+), "seconds": ([^,]+), "steady": (true|false), "series": \[([^]]*)]}""",
            )
    }

    private val out = ByteArrayOutputStream()
    private val err = ByteArrayOutputStream()

    @Test
    fun printsOneJsonLine() {
        val args = listOf("--mode", "copy", "--procs", "3", "--rounds", "2", "--size", "5", "--pairs", "9")
        assertEquals(0, run("ring", *args.toTypedArray(), "--warmup-s", "0"))
        val line = out.toString(Charsets.UTF_8)
        assertTrue(
            line.startsWith(
                "{\"bench\": \"ring\", \"mode\": \"copy\", \"payload\": \"copied\", " +
                    "\"params\": {\"procs\": 3, \"size\": 5, \"rounds\": 2}, \"elapsed_s\": ",
            ),
            line,
        )
        assertTrue(line.contains("\"check\": {\"laps\": 2, \"hops\": 6}, \"warmup\": {"), line)
        assertTrue(line.endsWith(", \"cpus\": ${defaultParallelism()}}${System.lineSeparator()}"), line)
        assertEquals(1, line.lines().count { it.isNotEmpty() })
    }

    @Test
    fun idiomaticPayloadIsShared() {
        assertEquals(0, run("throughput", "--seconds", "0.01", "--size", "8", "--warmup-s", "0"))
        val line = out.toString(Charsets.UTF_8)
        assertTrue(
            line.contains("\"payload\": \"shared\", \"params\": {\"pairs\": 1, \"size\": 8, \"seconds\": 0.01}"),
            line,
        )
    }

    @ParameterizedTest
    @ValueSource(
        strings = [
            "", "nosuchbench", "pingpong --size 0", "pingpong --rounds -3", "pingpong --size abc",
            "pingpong --mode weird", "pingpong --bogus 1", "pingpong --size", "ring --procs 1",
            "throughput --seconds 0", "throughput --seconds NaN", "spawn --procs 99999999999",
            "pingpong --warmup-s -1", "pingpong --warmup-s abc", "pingpong --warmup-s", "pingpong --warmup-s NaN",
            "pingpong --warmup-s Infinity", "pingpong --warmup-s -0.5",
        ],
    )
    fun rejectsBadArguments(args: String) {
        assertEquals(2, run(*args.split(" ").filter { it.isNotEmpty() }.toTypedArray()))
        assertEquals("", out.toString(Charsets.UTF_8))
        assertEquals(1, err.toString(Charsets.UTF_8).lines().count { it.isNotEmpty() })
    }

    @ParameterizedTest
    @ValueSource(strings = ["pingping", "pingpong", "spawn", "throughput", "ring"])
    fun warmsUpFirst(bench: String) {
        val args = listOf("--mode", "copy", "--size", "16", "--rounds", "50", "--procs", "20", "--seconds", "0.02")
        assertEquals(0, run(bench, *args.toTypedArray(), "--warmup-s", "0.3"))
        val warmup = warmup()
        val (iterations, seconds, steady, values) = warmup.destructured
        val series = if (values.isEmpty()) emptyList() else values.split(", ").map { it.toDouble() }
        assertTrue(iterations.toInt() >= 1, warmup.value)
        assertEquals(iterations.toInt(), series.size, warmup.value)
        assertEquals(steady.toBoolean(), Warmup.steady(series), warmup.value)
        assertTrue(seconds.toDouble() > 0, warmup.value)
    }

    @Test
    fun noWarmupWithZeroSeconds() {
        assertEquals(0, run("pingpong", "--rounds", "10", "--warmup-s", "0"))
        assertEquals(
            "\"warmup\": {\"iterations\": 0, \"seconds\": 0, \"steady\": false, \"series\": []}",
            warmup().value,
        )
    }

    @Test
    fun spawnMemoryComesFromTheFirstWarmupIteration() {
        val first =
            Result(
                1,
                mapOf(
                    "us_per_spawn" to 9.0,
                    "bytes_per_process" to 3000L,
                    "rss_before_kb" to 100L,
                    "rss_peak_kb" to 400L,
                ),
                mapOf("alive" to 1000),
            )
        val measured =
            Result(
                1,
                mapOf(
                    "us_per_spawn" to 1.0,
                    "bytes_per_process" to 10L,
                    "rss_before_kb" to 900L,
                    "rss_peak_kb" to 901L,
                ),
                mapOf("alive" to 1000),
            )
        assertEquals(
            listOf(1.0, 3000L, 100L, 400L),
            metric(measured, Warmup(listOf(9.0), 0.1, false, first)).values.toList(),
        )
        assertEquals(measured.metric, metric(measured, Warmup.NONE))
        val ring = Result(1, mapOf("us_per_hop" to 2.0), mapOf("laps" to 1L, "hops" to 3L))
        assertEquals(ring.metric, metric(ring, Warmup(listOf(3.0), 0.1, false, ring)))
    }

    /** The warmup object of the output line; its groups: iterations, seconds, steady, series. */
    private fun warmup(): MatchResult {
        val line = out.toString(Charsets.UTF_8)
        return assertNotNull(WARMUP.find(line), line)
    }

    private fun run(vararg args: String) =
        run(args.asList(), PrintStream(out, true, Charsets.UTF_8), PrintStream(err, true, Charsets.UTF_8))
}
