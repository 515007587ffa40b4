package arena

import io.netty.buffer.Unpooled
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelInboundHandlerAdapter
import io.netty.handler.codec.http.DefaultFullHttpResponse
import io.netty.handler.codec.http.HttpHeaderNames
import io.netty.handler.codec.http.HttpHeaderValues
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.handler.codec.http.HttpVersion
import io.netty.util.ReferenceCountUtil

/**
 * Refuses a request whose `Transfer-Encoding` names a coding other than chunked (`xchunked`,
 * `chunked, identity`), with 501, then closes the connection (RFC 9112, 6.1 and 6.3).
 *
 * Netty's decoder reads such a request by its `Content-Length`, while a proxy in front may read it
 * another way; what Netty then takes for the next request is part of this one's body (request
 * smuggling). Ktor would answer that next request too, having been handed it before this answer
 * was written, so the refusal is made here, between the HTTP codec and Ktor's handler, and
 * everything read after it on the connection is dropped.
 */
class UnknownCodingHandler : ChannelInboundHandlerAdapter() {
    private var refused = false

    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        if (!refused && msg is HttpRequest && unknownCoding(msg)) {
            refused = true
            val body = Unpooled.copiedBuffer("unsupported transfer coding", Charsets.UTF_8)
            val answer = DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_IMPLEMENTED, body)
            answer
                .headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE)
        }
        if (refused) ReferenceCountUtil.release(msg) else ctx.fireChannelRead(msg)
    }

    private fun unknownCoding(request: HttpRequest) = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING).any {
        !it.trim().equals("chunked", ignoreCase = true)
    }
}
