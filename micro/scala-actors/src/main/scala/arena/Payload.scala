package arena

/** What a send carries (spec/micro.md, payload rule). Idiomatic: the one buffer made before the clock starts, passed by
  * reference like every local scala.actors message ("shared"). Copy: a fresh buffer per send filled with the sender's
  * `seq mod 256`, whose first and last byte the receiver checks against its own count.
  */
final class Payload(size: Int, copy: Boolean, fail: String => Unit) {
  private val shared = if (copy) Array.emptyByteArray else new Array[Byte](size)

  def make(seq: Long): Array[Byte] =
    if (copy) {
      val data = new Array[Byte](size)
      java.util.Arrays.fill(data, seq.toByte)
      data
    } else shared

  /** Whether `data` is the `seq`-th buffer from its sender; in copy mode a wrong one fails the whole run. */
  def valid(data: Array[Byte], seq: Long): Boolean = {
    val ok = !copy || (data.length == size && data(0) == seq.toByte && data(size - 1) == seq.toByte)
    if (!ok) fail(s"copy check failed: message $seq from one sender does not carry byte ${seq & 0xff} at both ends")
    ok
  }
}
