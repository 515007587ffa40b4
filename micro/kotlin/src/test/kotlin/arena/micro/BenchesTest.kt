package arena.micro

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Every bench at small sizes, in both modes. */
class BenchesTest {
    @ParameterizedTest
    @ValueSource(strings = ["idiomatic", "copy"])
    fun pingping(mode: String) {
        assertEquals(mapOf("received" to 400L), check("pingping", "--mode", mode, "--size", "300", "--rounds", "200"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["idiomatic", "copy"])
    fun pingpong(mode: String) {
        assertEquals(mapOf("round_trips" to 300L), check("pingpong", "--mode", mode, "--size", "1", "--rounds", "300"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["idiomatic", "copy"])
    fun spawn(mode: String) {
        assertEquals(mapOf("alive" to 2000), check("spawn", "--mode", mode, "--procs", "2000"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["idiomatic", "copy"])
    fun throughput(mode: String) {
        val check = check("throughput", "--mode", mode, "--pairs", "3", "--size", "64", "--seconds", "0.05")
        val perPair = check.getValue("per_pair") as List<*>
        assertEquals(3, perPair.size)
        assertEquals(check["messages"], perPair.sumOf { it as Long })
        perPair.forEach { assertTrue(it as Long >= 2, "every pair made a round trip") }
    }

    @ParameterizedTest
    @ValueSource(strings = ["idiomatic", "copy"])
    fun ring(mode: String) {
        assertEquals(
            mapOf("laps" to 7L, "hops" to 350L),
            check("ring", "--mode", mode, "--procs", "50", "--size", "10", "--rounds", "7"),
        )
        assertEquals(
            mapOf("laps" to 300L, "hops" to 600L),
            check("ring", "--mode", mode, "--procs", "2", "--size", "1000", "--rounds", "300"),
        )
    }

    private fun check(vararg args: String): Map<String, Any> {
        val result = runBlocking(Dispatchers.Default) { Benches(Options.parse(args.asList())).run() }
        assertTrue(result.elapsedNanos > 0)
        return result.check
    }
}
