package arena

import io.ktor.http.ContentType
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.math.BigDecimal

private val DIGITS = Regex("[0-9]+")

/** `/long-operation?n=N`: the bubble sort of Sort.kt, in the request; [defaultN] without `n`. */
fun Route.longOperation(defaultN: Int) {
    endpoint("/long-operation") {
        get {
            val n = call.request.queryParameters["n"]?.let(::parseSortN) ?: defaultN
            // Seconds of CPU work: on the cores' pool, off the event loops that serve other requests.
            val checksum = withContext(Dispatchers.Default) { sortChecksum(n) }
            val body = """{"message":"done","n":$n,"checksum":${plainNumber(checksum)}}"""
            call.respondText(body, ContentType.Application.Json)
        }
    }
}

/** `n` as the contract writes it: decimal digits only (leading zeros allowed), in 1..[MAX_SORT_N]. */
fun parseSortN(text: String): Int {
    val n = text.takeIf(DIGITS::matches)?.toIntOrNull()
    if (n == null || n !in 1..MAX_SORT_N) throw badRequest("n must be decimal digits in 1..$MAX_SORT_N")
    return n
}

/**
 * The shortest digits that read back as [value] (Double.toString's, since JDK 19), written without
 * the exponent Java puts on values of 10^7 and more.
 */
fun plainNumber(value: Double): String = BigDecimal(value.toString()).toPlainString()
