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
    // The coordinating coroutine runs on Dispatchers.Default too, and the processes inherit it from its scope. Each
    // run of Benches returns once every coroutine it launched has completed (coroutineScope).
    val (warmup, result) =
        runBlocking(Dispatchers.Default) {
            val warmupOptions = options.forWarmup()
            val warmup = Warmup.run(options.warmupSeconds, options.metricName) { Benches(warmupOptions).run() }
            warmup to Benches(options).run()
        }
    val line =
        mapOf(
            "bench" to options.bench,
            "mode" to if (options.copy) "copy" else "idiomatic",
            "payload" to if (options.copy) "copied" else "shared",
            "params" to params(options),
            "elapsed_s" to result.elapsedNanos / 1e9,
            "metric" to metric(result, warmup),
            "check" to result.check,
            "warmup" to warmup.json(),
            "runtime" to
                "Kotlin ${KotlinVersion.CURRENT} on Java ${Runtime.version()} (${System.getProperty("java.vendor")})",
            "cpus" to defaultParallelism(),
        )
    out.println(json(line))
    return 0
}

/**
 * The measured run's metric, but spawn's memory from the first warm-up iteration when there was one: what a fresh
 * runtime pays per process.
 */
fun metric(measured: Result, warmup: Warmup): Map<String, Any> {
    val first = warmup.first ?: return measured.metric
    return measured.metric.mapValues { (name, value) ->
        if (name in SPAWN_MEMORY) first.metric.getValue(name) else value
    }
}

private val SPAWN_MEMORY = setOf("bytes_per_process", "rss_before_kb", "rss_peak_kb")

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
