package arena.micro

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import java.io.File
import java.util.concurrent.atomic.AtomicInteger

/** A benchmark's measurement: the elapsed time, its metric and its check values. */
data class Result(val elapsedNanos: Long, val metric: Map<String, Any>, val check: Map<String, Any>)

/**
 * The five benchmarks of spec/micro.md. A process is a coroutine launched in the caller's scope (on
 * Dispatchers.Default when run by the program); its mailbox is an unlimited [Channel]; a send is `send`, a receive
 * `receive`, and a process is told to end by closing its mailbox. A process that fails cancels the scope: its
 * partners stop waiting and the failure reaches the caller.
 */
class Benches(private val options: Options) {
    private val payload = Payload(options.copy, options.size)

    /** What a process reports when it ends: the messages it counted and when it saw the last. */
    private data class Done(val count: Long, val end: Long)

    /** What the ring's main process reports: the laps it saw, the token's last count, the time. */
    private data class Laps(val laps: Long, val hops: Long, val end: Long)

    /** The token of the ring: the payload and the hops made so far. */
    private class Token(val payload: ByteArray, val hops: Long)

    suspend fun run(): Result = when (options.bench) {
        "pingping" -> pingping()
        "pingpong" -> pingpong()
        "spawn" -> spawn()
        "throughput" -> throughput()
        else -> ring()
    }

    private suspend fun pingping() = coroutineScope {
        val gate = StartGate(2)
        val a = mailbox<ByteArray>()
        val b = mailbox<ByteArray>()
        val first = async { pingpingSide(gate, a, b) }
        val second = async { pingpingSide(gate, b, a) }
        val start = gate.open()
        val x = first.await()
        val y = second.await()
        val elapsed = maxOf(x.end, y.end) - start
        Result(
            elapsed,
            mapOf("us_per_message" to micros(elapsed) / options.rounds),
            mapOf("received" to x.count + y.count),
        )
    }

    /** Sends, then receives, R times: both sides at once (Intel MPI PingPing). */
    private suspend fun pingpingSide(
        gate: StartGate,
        own: ReceiveChannel<ByteArray>,
        peer: SendChannel<ByteArray>,
    ): Done {
        gate.readyToSend()
        var received = 0L
        for (i in 0L until options.rounds) {
            peer.send(payload.make(i))
            payload.check(own.receive(), i)
            received++
        }
        return Done(received, System.nanoTime())
    }

    private suspend fun pingpong() = coroutineScope {
        val gate = StartGate(2)
        val pinger = mailbox<ByteArray>()
        val ponger = mailbox<ByteArray>()
        launch { answer(gate, ponger, pinger) }
        val ping =
            async {
                gate.readyToSend()
                var roundTrips = 0L
                for (i in 0L until options.rounds) {
                    ponger.send(payload.make(i))
                    payload.check(pinger.receive(), i)
                    roundTrips++
                }
                ponger.close()
                Done(roundTrips, System.nanoTime())
            }
        val start = gate.open()
        val done = ping.await()
        val elapsed = done.end - start
        Result(
            elapsed,
            mapOf("us_per_round_trip" to micros(elapsed) / options.rounds),
            mapOf("round_trips" to done.count),
        )
    }

    /** The answering side of a ping-pong pair: answers every message until its mailbox is closed. */
    private suspend fun answer(gate: StartGate, own: ReceiveChannel<ByteArray>, peer: SendChannel<ByteArray>): Long {
        gate.ready()
        var received = 0L
        for (message in own) {
            payload.check(message, received)
            peer.send(payload.make(received))
            received++
        }
        return received
    }

    private suspend fun spawn() = coroutineScope {
        val n = options.procs
        val alive = AtomicInteger()
        val allStarted = CompletableDeferred<Unit>()
        val mailboxes = ArrayList<Channel<Unit>>(n)
        val rssBefore = rssKb()
        val start = System.nanoTime()
        val processes =
            List(n) {
                val mailbox = mailbox<Unit>().also { mailboxes += it }
                launch {
                    if (alive.incrementAndGet() == n) allStarted.complete(Unit)
                    mailbox.receive()
                }
            }
        allStarted.await()
        val elapsed = System.nanoTime() - start
        val rssPeak = rssKb()
        mailboxes.forEach { it.send(Unit) }
        processes.joinAll()
        Result(
            elapsed,
            mapOf(
                "us_per_spawn" to micros(elapsed) / n,
                "bytes_per_process" to (rssPeak - rssBefore) * 1024 / n,
                "rss_before_kb" to rssBefore,
                "rss_peak_kb" to rssPeak,
            ),
            mapOf("alive" to alive.get()),
        )
    }

    private suspend fun throughput() = coroutineScope {
        val duration = (options.seconds * 1e9).toLong()
        val gate = StartGate(2 * options.pairs)
        val pairs =
            List(options.pairs) {
                val pinger = mailbox<ByteArray>()
                val ponger = mailbox<ByteArray>()
                val pong = async { answer(gate, ponger, pinger) }
                val ping =
                    async {
                        val deadline = gate.readyToSend() + duration
                        var received = 0L
                        var now: Long
                        do {
                            ponger.send(payload.make(received))
                            payload.check(pinger.receive(), received)
                            received++
                            now = System.nanoTime()
                        } while (now - deadline < 0)
                        ponger.close()
                        Done(received, now)
                    }
                ping to pong
            }
        val start = gate.open()
        var end = start
        val perPair =
            pairs.map { (ping, pong) ->
                val done = ping.await()
                end = maxOf(end, done.end)
                done.count + pong.await()
            }
        val elapsed = end - start
        val total = perPair.sum()
        Result(
            elapsed,
            mapOf("messages_per_s" to total / (elapsed / 1e9)),
            mapOf("messages" to total, "per_pair" to perPair),
        )
    }

    private suspend fun ring() = coroutineScope {
        val n = options.procs
        val gate = StartGate(n)
        val mailboxes = List(n) { mailbox<Token>() }
        for (i in 1 until n) {
            val own = mailboxes[i]
            val next = mailboxes[(i + 1) % n]
            launch {
                gate.ready()
                for (token in own) next.send(hop(token))
                next.close()
            }
        }
        val main =
            async {
                val own = mailboxes[0]
                val next = mailboxes[1]
                gate.readyToSend()
                var token = Token(payload.make(0), 0)
                var laps = 0L
                while (laps < options.rounds) {
                    next.send(token)
                    token = hop(own.receive())
                    laps++
                }
                val end = System.nanoTime()
                next.close()
                Laps(laps, token.hops, end)
            }
        val start = gate.open()
        val done = main.await()
        val elapsed = done.end - start
        Result(
            elapsed,
            mapOf("us_per_hop" to micros(elapsed) / (n.toDouble() * options.rounds)),
            mapOf("laps" to done.laps, "hops" to done.hops),
        )
    }

    /** Receives a token (checking a copied payload) and makes the one to pass on, one hop further. */
    private fun hop(received: Token): Token {
        payload.check(received.payload, received.hops)
        val hops = received.hops + 1
        return Token(payload.make(hops), hops)
    }

    private fun <T> mailbox() = Channel<T>(Channel.UNLIMITED)

    private fun micros(nanos: Long) = nanos / 1e3

    private fun rssKb(): Long = File("/proc/self/status")
        .readLines()
        .first { it.startsWith("VmRSS:") }
        .filter { it.isDigit() }
        .toLong()
}
