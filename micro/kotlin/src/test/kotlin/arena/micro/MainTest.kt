package arena.micro

import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import java.io.ByteArrayOutputStream
import java.io.PrintStream
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The command line and the JSON line. */
class MainTest {
    private val out = ByteArrayOutputStream()
    private val err = ByteArrayOutputStream()

    @Test
    fun printsOneJsonLine() {
        assertEquals(0, run("ring", "--mode", "copy", "--procs", "3", "--rounds", "2", "--size", "5", "--pairs", "9"))
        val line = out.toString(Charsets.UTF_8)
        assertTrue(
            line.startsWith(
                "{\"bench\": \"ring\", \"mode\": \"copy\", \"payload\": \"copied\", " +
                    "\"params\": {\"procs\": 3, \"size\": 5, \"rounds\": 2}, \"elapsed_s\": ",
            ),
            line,
        )
        assertTrue(line.contains("\"check\": {\"laps\": 2, \"hops\": 6}"), line)
        assertTrue(line.endsWith(", \"cpus\": ${defaultParallelism()}}${System.lineSeparator()}"), line)
        assertEquals(1, line.lines().count { it.isNotEmpty() })
    }

    @Test
    fun idiomaticPayloadIsShared() {
        assertEquals(0, run("throughput", "--seconds", "0.01", "--size", "8"))
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
        ],
    )
    fun rejectsBadArguments(args: String) {
        assertEquals(2, run(*args.split(" ").filter { it.isNotEmpty() }.toTypedArray()))
        assertEquals("", out.toString(Charsets.UTF_8))
        assertEquals(1, err.toString(Charsets.UTF_8).lines().count { it.isNotEmpty() })
    }

    private fun run(vararg args: String) =
        run(args.asList(), PrintStream(out, true, Charsets.UTF_8), PrintStream(err, true, Charsets.UTF_8))
}
