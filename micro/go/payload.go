package main

import "bytes"

// payload makes the message bodies of one run (spec/micro.md, payload rule).
type payload struct {
	copy   bool
	size   int
	shared []byte
}

func newPayload(c config) payload {
	if c.mode == "copy" {
		return payload{copy: true, size: c.size}
	}
	return payload{size: c.size, shared: make([]byte, c.size)}
}

// message is the body of a sender's seq-th send: the one shared buffer, or
// in copy mode a fresh one filled with seq mod 256.
func (p payload) message(seq int) []byte {
	if !p.copy {
		return p.shared
	}
	return bytes.Repeat([]byte{byte(seq)}, p.size)
}

// verify fails the run when, in copy mode, msg is not the seq-th message of
// its sender.
func (p payload) verify(msg []byte, seq int, who string) {
	if p.copy && (len(msg) != p.size || msg[0] != byte(seq) || msg[len(msg)-1] != byte(seq)) {
		fail("%s: message %d is not %d bytes of %d", who, seq, p.size, byte(seq))
	}
}

// mailbox is a process's incoming channel. One slot is enough, as no bench has
// more than one message in flight towards a process, and it lets pingping's
// two processes send at the same time before either receives.
func mailbox[T any]() chan T {
	return make(chan T, 1)
}
