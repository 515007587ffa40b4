package arena.micro

import kotlinx.coroutines.CompletableDeferred
import java.util.concurrent.atomic.AtomicInteger

/**
 * Starts a benchmark's clock once every one of its processes exists and waits (spec/micro.md: creation is not
 * timed), then lets the first senders go.
 */
class StartGate(processes: Int) {
    private val waiting = AtomicInteger(processes)
    private val allReady = CompletableDeferred<Unit>()
    private val go = CompletableDeferred<Long>()

    /** Said by a process that waits for a message, just before its first receive. */
    fun ready() {
        if (waiting.decrementAndGet() == 0) allReady.complete(Unit)
    }

    /** Said by a process that sends first: waits for the clock and returns its start. */
    suspend fun readyToSend(): Long {
        ready()
        return go.await()
    }

    /** Waits for every process, starts the clock and lets the senders go. */
    suspend fun open(): Long {
        allReady.await()
        return System.nanoTime().also { go.complete(it) }
    }
}
