package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func perOp(d time.Duration, n int) float64 {
	return d.Seconds() * 1e6 / float64(n)
}

// pingping: the main goroutine and one other send each other a message, then
// receive the other's, R times.
func pingping(c config) result {
	p := newPayload(c)
	toA, toB := mailbox[[]byte](), mailbox[[]byte]()
	start, receivedB := make(chan struct{}), make(chan int)
	go func() {
		<-start
		receivedB <- exchange(p, c.rounds, toB, toA, "pingping B")
	}()
	t0 := time.Now()
	close(start)
	received := exchange(p, c.rounds, toA, toB, "pingping A")
	received += <-receivedB
	elapsed := time.Since(t0)
	perMessage := perOp(elapsed, c.rounds)
	return result{elapsed, perMessage,
		map[string]any{"us_per_message": perMessage},
		map[string]any{"received": received}}
}

// exchange is one side of pingping; it returns how many messages it received.
func exchange(p payload, rounds int, in <-chan []byte, out chan<- []byte, who string) int {
	received := 0
	for seq := 0; seq < rounds; seq++ {
		out <- p.message(seq)
		p.verify(<-in, received, who)
		received++
	}
	return received
}

// pingpong: the main goroutine sends, an echoing goroutine answers, R times.
func pingpong(c config) result {
	p := newPayload(c)
	ping, pong, echoed := mailbox[[]byte](), mailbox[[]byte](), make(chan int)
	go func() { echoed <- echo(p, ping, pong, "pingpong ponger") }()
	t0 := time.Now()
	trips := 0
	for seq := 0; seq < c.rounds; seq++ {
		ping <- p.message(seq)
		p.verify(<-pong, trips, "pingpong pinger")
		trips++
	}
	elapsed := time.Since(t0)
	// Closing its mailbox ends the echo; it is gone before the next run.
	close(ping)
	<-echoed
	perTrip := perOp(elapsed, c.rounds)
	return result{elapsed, perTrip,
		map[string]any{"us_per_round_trip": perTrip},
		map[string]any{"round_trips": trips}}
}

// echo answers every message it receives until in is closed, and returns how
// many it received.
func echo(p payload, in <-chan []byte, out chan<- []byte, who string) int {
	received := 0
	for msg := range in {
		p.verify(msg, received, who)
		out <- p.message(received)
		received++
	}
	return received
}

// throughput: P pinger/echo pairs play ping-pong until D seconds have passed.
func throughput(c config) result {
	p := newPayload(c)
	limit := time.Duration(c.seconds * float64(time.Second))
	perPair := make([]int, c.pairs)
	start := make(chan struct{})
	var t0 time.Time // written before start is closed, read after
	var pairs sync.WaitGroup
	pairs.Add(c.pairs)
	for i := range perPair {
		ping, pong, echoed := mailbox[[]byte](), mailbox[[]byte](), make(chan int)
		go func() { echoed <- echo(p, ping, pong, "throughput ponger") }()
		go func(i int) {
			defer pairs.Done()
			<-start
			received := 0
			// Stop at the first round trip that ends after the limit,
			// and count at least one.
			for seq := 0; received == 0 || time.Since(t0) < limit; seq++ {
				ping <- p.message(seq)
				p.verify(<-pong, received, "throughput pinger")
				received++
			}
			close(ping)
			perPair[i] = received + <-echoed
		}(i)
	}
	t0 = time.Now()
	close(start)
	pairs.Wait()
	elapsed := time.Since(t0)
	messages := 0
	for _, n := range perPair {
		messages += n
	}
	rate := float64(messages) / elapsed.Seconds()
	return result{elapsed, rate,
		map[string]any{"messages_per_s": rate},
		map[string]any{"messages": messages, "per_pair": perPair}}
}

// spawn: N goroutines each count themselves, signal a wait group and block on
// the release channel.
func spawn(c config) result {
	before := rssKB()
	release := make(chan struct{})
	var alive atomic.Int64
	var started, finished sync.WaitGroup
	started.Add(c.procs)
	finished.Add(c.procs)
	t0 := time.Now()
	for i := 0; i < c.procs; i++ {
		go func() {
			alive.Add(1)
			started.Done()
			<-release
			finished.Done()
		}()
	}
	started.Wait()
	elapsed := time.Since(t0)
	peak := rssKB()
	close(release)
	finished.Wait()
	perSpawn := perOp(elapsed, c.procs)
	return result{elapsed, perSpawn,
		map[string]any{
			"us_per_spawn":      perSpawn,
			"bytes_per_process": float64(peak-before) * 1024 / float64(c.procs),
			"rss_before_kb":     before,
			"rss_peak_kb":       peak,
		},
		map[string]any{"alive": int(alive.Load())}}
}

// rssKB is VmRSS of /proc/self/status.
func rssKB() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail("spawn: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				fail("spawn: VmRSS: %v", err)
			}
			return kb
		}
	}
	fail("spawn: no VmRSS in /proc/self/status")
	return 0
}

// token is the ring's message: a hop counter and the S-byte body.
type token struct {
	hops int
	data []byte
}

// arrive counts the hop that brought t, after checking its body in copy mode,
// and gives it the body of its next hop.
func (p payload) arrive(t token, who string) token {
	p.verify(t.data, t.hops, who)
	t.hops++
	t.data = p.message(t.hops)
	return t
}

// ring: the main goroutine and N-1 others, each forwarding the token to the
// next, for R laps.
func ring(c config) result {
	p := newPayload(c)
	boxes := make([]chan token, c.procs)
	for i := range boxes {
		boxes[i] = mailbox[token]()
	}
	var relays sync.WaitGroup
	relays.Add(c.procs - 1)
	for i := 1; i < c.procs; i++ {
		go func(in <-chan token, out chan<- token, who string) {
			defer relays.Done()
			for t := range in {
				out <- p.arrive(t, who)
			}
		}(boxes[i], boxes[(i+1)%c.procs], fmt.Sprintf("ring process %d", i))
	}
	t0 := time.Now()
	t := token{data: p.message(0)}
	laps := 0
	for laps < c.rounds {
		boxes[1] <- t
		t = p.arrive(<-boxes[0], "ring process 0")
		laps++
	}
	elapsed := time.Since(t0)
	// The token is back here, so every relay waits on its mailbox: closing
	// them ends the relays, which are gone before the next run.
	for _, box := range boxes[1:] {
		close(box)
	}
	relays.Wait()
	perHop := perOp(elapsed, c.procs*c.rounds)
	return result{elapsed, perHop,
		map[string]any{"us_per_hop": perHop},
		map[string]any{"laps": laps, "hops": t.hops}}
}
