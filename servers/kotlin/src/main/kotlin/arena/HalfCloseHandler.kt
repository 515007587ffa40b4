package arena

import io.netty.channel.ChannelDuplexHandler
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelPromise
import io.netty.channel.socket.ChannelInputShutdownEvent
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.LastHttpContent

/**
 * Answers clients that half-close: send a request, then shut down their sending side.
 *
 * By default Netty closes the whole connection when the client's side ends, dropping the answers
 * still being computed. With `ALLOW_HALF_CLOSURE` set on the channels, this handler (placed
 * between the HTTP codec and Ktor's handler) closes the connection itself once every request read
 * on it has been answered — or at once if a request's body can no longer arrive.
 */
class HalfCloseHandler : ChannelDuplexHandler() {
    private var unanswered = 0
    private var readingBody = false
    private var inputShut = false

    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        if (msg is HttpRequest) {
            unanswered++
            readingBody = true
        }
        if (msg is LastHttpContent) readingBody = false
        ctx.fireChannelRead(msg)
    }

    override fun userEventTriggered(ctx: ChannelHandlerContext, evt: Any) {
        if (evt is ChannelInputShutdownEvent) {
            inputShut = true
            if (unanswered == 0 || readingBody) ctx.close()
        }
        ctx.fireUserEventTriggered(evt)
    }

    override fun write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise) {
        val lastAnswer = msg is LastHttpContent && --unanswered == 0 && inputShut
        val written = ctx.write(msg, if (lastAnswer) promise.unvoid() else promise)
        if (lastAnswer) written.addListener(ChannelFutureListener.CLOSE)
    }
}
