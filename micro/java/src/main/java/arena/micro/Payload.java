package arena.micro;

import java.util.Arrays;

/**
 * What a send carries. Idiomatic: the one buffer made before the clock starts, passed by
 * reference as a queue passes any object. Copy: a fresh buffer per send filled with
 * {@code seq mod 256}, whose first and last byte the receiver checks.
 */
final class Payload {

	private final int size;

	private final byte[] shared;

	Payload(boolean copy, int size) {
		this.size = size;
		this.shared = copy ? null : new byte[size];
	}

	byte[] make(long seq) {
		if (this.shared != null) {
			return this.shared;
		}
		byte[] buffer = new byte[this.size];
		Arrays.fill(buffer, (byte) seq);
		return buffer;
	}

	void check(byte[] buffer, long seq) {
		if (this.shared == null && (buffer[0] != (byte) seq || buffer[this.size - 1] != (byte) seq)) {
			throw new IllegalStateException("copy check failed: message " + seq + " carries bytes " + buffer[0] + ".."
					+ buffer[this.size - 1] + ", expected " + (byte) seq);
		}
	}

}
