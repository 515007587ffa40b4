package main

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"
)

// warmupThroughputS bounds a throughput warm-up iteration: min(D, 0.1 s).
const warmupThroughputS = 0.1

// warmup is the output's warm-up object (spec/micro.md, Warm-up).
type warmup struct {
	Iterations int       `json:"iterations"`
	Seconds    float64   `json:"seconds"`
	Steady     bool      `json:"steady"`
	Series     []float64 `json:"series"`
}

// steady is the spec's rule: at least 5 values, and the last 5 all within
// ±10% of their median. A value that is not finite is never steady.
func steady(series []float64) bool {
	if len(series) < 5 {
		return false
	}
	last := append([]float64(nil), series[len(series)-5:]...)
	sort.Float64s(last)
	median := last[2]
	for _, v := range last {
		if !(math.Abs(v-median) <= 0.1*math.Abs(median)) {
			return false
		}
	}
	return true
}

// warmUp repeats the bench with c's parameters until its metric is steady or
// c.warmupS seconds have passed since it began (the iteration under way is
// finished). It also returns the first iteration, whose memory spawn reports;
// nil when there was none.
func warmUp(c config) (warmup, *result) {
	w := warmup{Series: []float64{}}
	if c.warmupS == 0 {
		return w, nil
	}
	each := c
	if c.bench == "throughput" {
		each.seconds = math.Min(c.seconds, warmupThroughputS)
	}
	var first *result
	t0 := time.Now()
	for {
		before := runtime.NumGoroutine()
		r := benches[c.bench].run(each)
		if err := each.verify(r); err != nil {
			fail("warm-up iteration %d: %v", len(w.Series)+1, err)
		}
		gone(before)
		if first == nil {
			first = &r
		}
		w.Series = append(w.Series, r.value)
		if steady(w.Series) {
			w.Steady = true
			break
		}
		if time.Since(t0).Seconds() >= c.warmupS {
			break
		}
	}
	w.Iterations = len(w.Series)
	w.Seconds = time.Since(t0).Seconds()
	return w, first
}

// gone waits until the goroutines an iteration started have exited: the
// benches join them, and this covers the instant between a goroutine's last
// statement and its exit.
func gone(before int) {
	for runtime.NumGoroutine() > before {
		runtime.Gosched()
	}
}

// verify compares what an iteration's processes counted with what its
// parameters call for, as the harness does with the measured run's check.
func (c config) verify(r result) error {
	var want map[string]int
	switch c.bench {
	case "pingping":
		want = map[string]int{"received": 2 * c.rounds}
	case "pingpong":
		want = map[string]int{"round_trips": c.rounds}
	case "spawn":
		want = map[string]int{"alive": c.procs}
	case "ring":
		want = map[string]int{"laps": c.rounds, "hops": c.procs * c.rounds}
	case "throughput":
		perPair, sum := r.check["per_pair"].([]int), 0
		for _, n := range perPair {
			sum += n
		}
		if messages := r.check["messages"].(int); messages <= 0 || messages != sum || len(perPair) != c.pairs {
			return fmt.Errorf("check %v: want messages > 0, the sum of %d per_pair counts", r.check, c.pairs)
		}
	}
	for name, n := range want {
		if r.check[name] != n {
			return fmt.Errorf("check.%s = %v, want %d", name, r.check[name], n)
		}
	}
	return nil
}
