// Command micro runs the actor micro-benchmarks of spec/micro.md with
// goroutines as the processes and channels as their mailboxes.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"time"
)

// payloadShared is what an idiomatic send does (the manifest's payload): a
// []byte sent over a channel is a slice header pointing at the one buffer.
const payloadShared = "shared"

// maxSeconds keeps --seconds within what a time.Duration holds.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

type config struct {
	bench   string
	mode    string
	size    int
	rounds  int
	procs   int
	pairs   int
	seconds float64
	warmupS float64
}

// result is what a bench measured and counted; value is its metric of the
// spec's table (us_per_message, ..., messages_per_s, us_per_hop).
type result struct {
	elapsed time.Duration
	value   float64
	metric  map[string]any
	check   map[string]any
}

var benches = map[string]struct {
	run    func(config) result
	params []string
}{
	"pingping":   {pingping, []string{"size", "rounds"}},
	"pingpong":   {pingpong, []string{"size", "rounds"}},
	"spawn":      {spawn, []string{"procs"}},
	"throughput": {throughput, []string{"pairs", "size", "seconds"}},
	"ring":       {ring, []string{"procs", "size", "rounds"}},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "micro: %v\n", err)
		return 2
	}
	w, first := warmUp(c)
	r := benches[c.bench].run(c)
	if first != nil && c.bench == "spawn" {
		// What a fresh runtime pays per process: the first iteration's.
		for _, name := range []string{"rss_before_kb", "rss_peak_kb", "bytes_per_process"} {
			r.metric[name] = first.metric[name]
		}
	}
	payload := payloadShared
	if c.mode == "copy" {
		payload = "copied"
	}
	line, err := json.Marshal(struct {
		Bench   string         `json:"bench"`
		Mode    string         `json:"mode"`
		Payload string         `json:"payload"`
		Params  map[string]any `json:"params"`
		Elapsed float64        `json:"elapsed_s"`
		Metric  map[string]any `json:"metric"`
		Check   map[string]any `json:"check"`
		Warmup  warmup         `json:"warmup"`
		Runtime string         `json:"runtime"`
		CPUs    int            `json:"cpus"`
	}{c.bench, c.mode, payload, c.params(), r.elapsed.Seconds(), r.metric, r.check, w,
		runtime.Version(), runtime.GOMAXPROCS(0)})
	if err != nil {
		fmt.Fprintf(stderr, "micro: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", line)
	return 0
}

func parseArgs(args []string) (config, error) {
	c := config{mode: "idiomatic", size: 5000, rounds: 10000, procs: 1000, pairs: 1, seconds: 1, warmupS: 10}
	if len(args) == 0 {
		return c, errors.New("missing benchmark: pingping, pingpong, spawn, throughput or ring")
	}
	c.bench = args[0]
	if _, ok := benches[c.bench]; !ok {
		return c, fmt.Errorf("unknown benchmark %q: want pingping, pingpong, spawn, throughput or ring", c.bench)
	}
	fs := flag.NewFlagSet(c.bench, flag.ContinueOnError)
	// The contract wants a one-line message, not flag's usage text.
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.mode, "mode", c.mode, "")
	fs.IntVar(&c.size, "size", c.size, "")
	fs.IntVar(&c.rounds, "rounds", c.rounds, "")
	fs.IntVar(&c.procs, "procs", c.procs, "")
	fs.IntVar(&c.pairs, "pairs", c.pairs, "")
	fs.Float64Var(&c.seconds, "seconds", c.seconds, "")
	fs.Float64Var(&c.warmupS, "warmup-s", c.warmupS, "")
	if err := fs.Parse(args[1:]); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.mode != "idiomatic" && c.mode != "copy":
		return c, fmt.Errorf("--mode %q: want idiomatic or copy", c.mode)
	case c.size < 1 || c.rounds < 1 || c.procs < 1 || c.pairs < 1:
		return c, errors.New("--size, --rounds, --procs and --pairs must be integers >= 1")
	case c.bench == "ring" && c.procs < 2:
		return c, errors.New("ring needs --procs >= 2")
	case !(c.seconds > 0 && c.seconds < maxSeconds):
		return c, fmt.Errorf("--seconds %v: want a number > 0 and < %.0f", c.seconds, maxSeconds)
	case !(c.warmupS >= 0 && c.warmupS <= math.MaxFloat64):
		return c, fmt.Errorf("--warmup-s %v: want a number >= 0", c.warmupS)
	}
	return c, nil
}

// params are the parameters of the bench's row in spec/micro.md.
func (c config) params() map[string]any {
	all := map[string]any{"size": c.size, "rounds": c.rounds, "procs": c.procs, "pairs": c.pairs, "seconds": c.seconds}
	params := map[string]any{}
	for _, name := range benches[c.bench].params {
		params[name] = all[name]
	}
	return params
}

// fail ends the program when a bench cannot go on; a goroutine that just
// returned would leave its partner blocked forever.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "micro: "+format+"\n", args...)
	os.Exit(1)
}
