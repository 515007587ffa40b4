package arena

import sun.misc.Signal
import java.io.IOException
import java.util.concurrent.CountDownLatch
import kotlin.io.path.readBytes
import kotlin.system.exitProcess

fun main() {
    val stop = awaitableStopSignal()
    val config = try {
        Config.fromEnv(System.getenv())
    } catch (error: ConfigError) {
        fail(error.message)
    }
    val helloFile = config.dataDir.resolve("hello.html")
    val hello = try {
        helloFile.readBytes()
    } catch (error: IOException) {
        fail("cannot read $helloFile: $error", status = 1)
    }

    val server = arenaServer(config, hello)
    try {
        server.start(wait = false)
    } catch (error: IOException) {
        fail("cannot listen on ${config.host}:${config.port}: $error", status = 1)
    }
    println(
        "arena kotlin: listening on ${config.host}:${config.port}, ARENA_CPUS=${config.cpus}, " +
            "JVM processors=${Runtime.getRuntime().availableProcessors()}, bcrypt cost ${config.bcryptCost}",
    )

    stop.await()
    server.stop()
    exitProcess(0)
}

/**
 * Takes SIGTERM and SIGINT from the JVM, whose own handling would exit with 143 or 130; the
 * contract wants a prompt stop with status 0.
 */
private fun awaitableStopSignal(): CountDownLatch {
    val stop = CountDownLatch(1)
    for (name in listOf("TERM", "INT")) Signal.handle(Signal(name)) { stop.countDown() }
    return stop
}

/** Ends a start that cannot go on; status 2 is the contract's for a malformed setting. */
private fun fail(message: String, status: Int = 2): Nothing {
    System.err.println("arena kotlin: $message")
    exitProcess(status)
}
