package arena.micro

/**
 * What a send carries. Idiomatic: the one buffer made before the clock starts, passed by reference as a channel
 * passes any object. Copy: a fresh buffer per send filled with `seq mod 256`, whose first and last byte the
 * receiver checks.
 */
class Payload(copy: Boolean, private val size: Int) {
    private val shared = if (copy) null else ByteArray(size)

    fun make(seq: Long): ByteArray = shared ?: ByteArray(size).apply { fill(seq.toByte()) }

    fun check(buffer: ByteArray, seq: Long) {
        check(shared != null || (buffer[0] == seq.toByte() && buffer[size - 1] == seq.toByte())) {
            "copy check failed: message $seq carries bytes ${buffer[0]}..${buffer[size - 1]}, expected ${seq.toByte()}"
        }
    }
}
