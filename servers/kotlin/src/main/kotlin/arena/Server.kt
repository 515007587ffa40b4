package arena

import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.netty.channel.ChannelOption

/** Ktor on Netty with the contract's module, its event loops sized by the core budget. */
fun arenaServer(config: Config, hello: ByteArray) = embeddedServer(Netty, configure = {
    connector {
        host = config.host
        port = config.port
    }
    // One thread accepts; the event loops that parse HTTP and run the handlers follow the budget.
    connectionGroupSize = 1
    workerGroupSize = config.cpus
    callGroupSize = config.cpus
    // A prompt stop: answers still in the making (a long poll, a sort) are not waited for.
    shutdownGracePeriod = 0
    shutdownTimeout = 1000
    // Plain HTTP/1.1 only (no TLS, so no HTTP/2), with clients that half-close answered too, and
    // requests in transfer codings Netty does not know refused before Ktor sees them.
    enableHttp2 = false
    configureBootstrap = { childOption(ChannelOption.ALLOW_HALF_CLOSURE, true) }
    channelPipelineConfig = {
        addBefore("http1", "half-close", HalfCloseHandler())
        addBefore("http1", "transfer-codings", UnknownCodingHandler())
    }
}) { arena(config, hello) }
