package arena.micro

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import java.io.PrintStream
import kotlin.system.exitProcess

/** Runs one benchmark of spec/micro.md and prints its JSON line; a runtime failure exits with status 1. */
fun main(args: Array<String>) {
    val status =
        try {
            run(args.asList(), System.out, System.err)
        } catch (e: Throwable) {
            System.err.println("micro: $e")
            exitProcess(1)
        }
    exitProcess(status)
}

/** Runs the command line; returns the exit status, 0 or 2 (a bad command line). */
fun run(args: List<String>, out: PrintStream, err: PrintStream): Int {
    val options =
        try {
            Options.parse(args)
        } catch (e: UsageException) {
            err.println(e.message)
            return 2
        }
    // The coordinating coroutine runs on Dispatchers.Default too, and the processes inherit it from its scope.
    val result = runBlocking(Dispatchers.Default) { Benches(options).run() }
    val line =
        mapOf(
            "bench" to options.bench,
            "mode" to if (options.copy) "copy" else "idiomatic",
            "payload" to if (options.copy) "copied" else "shared",
            "params" to params(options),
            "elapsed_s" to result.elapsedNanos / 1e9,
            "metric" to result.metric,
            "check" to result.check,
            "runtime" to
                "Kotlin ${KotlinVersion.CURRENT} on Java ${Runtime.version()} (${System.getProperty("java.vendor")})",
            "cpus" to defaultParallelism(),
        )
    out.println(json(line))
    return 0
}

/**
 * The threads of Dispatchers.Default: the scheduler's core pool size, which the run command sets to the budget with
 * `-Dkotlinx.coroutines.scheduler.core.pool.size`; without it kotlinx.coroutines uses the processors, at least 2.
 */
fun defaultParallelism(): Int = System.getProperty("kotlinx.coroutines.scheduler.core.pool.size")?.toInt()
    ?: maxOf(2, Runtime.getRuntime().availableProcessors())

private fun params(options: Options): Map<String, Any> = when (options.bench) {
    "pingping", "pingpong" -> mapOf("size" to options.size, "rounds" to options.rounds)
    "spawn" -> mapOf("procs" to options.procs)
    "throughput" -> mapOf("pairs" to options.pairs, "size" to options.size, "seconds" to options.seconds)
    else -> mapOf("procs" to options.procs, "size" to options.size, "rounds" to options.rounds)
}

/** Just enough JSON for the result line: objects, lists, strings and numbers. */
private fun json(value: Any): String = when (value) {
    is Map<*, *> -> value.entries.joinToString(", ", "{", "}") { (k, v) -> "${json(k!!)}: ${json(v!!)}" }
    is List<*> -> value.joinToString(", ", "[", "]") { json(it!!) }
    is String -> "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\""
    else -> value.toString()
}
