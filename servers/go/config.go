package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"time"
)

// maxSortN bounds n of /long-operation: the bubble sort is O(n²), so a
// larger n would let one request occupy a core for minutes.
const maxSortN = 200000

// config holds the ARENA_* settings of spec/README.md.
type config struct {
	Host       string
	Port       int
	CPUs       int
	BcryptCost int
	LongPoll   time.Duration
	HelloDelay time.Duration
	HelloEvery uint64
	SortN      int
	DataDir    string
	DBURL      string // empty when unset: /record answers 503
	DBPool     int
}

// envReader keeps the first error so loadConfig reads like a table.
type envReader struct {
	lookup func(string) (string, bool)
	err    error
}

func (r *envReader) str(name, def string) string {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	if v == "" && r.err == nil {
		r.err = fmt.Errorf("%s is set but empty", name)
	}
	return v
}

func (r *envReader) int(name string, def, lo, hi int) int {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		if r.err == nil {
			want := fmt.Sprintf("in %d..%d", lo, hi)
			if hi == math.MaxInt {
				want = fmt.Sprintf(">= %d", lo)
			}
			r.err = fmt.Errorf("%s=%q: want an integer %s", name, v, want)
		}
		return def
	}
	return n
}

// millis reads a wait in milliseconds; the cap keeps time.Duration from overflowing.
func (r *envReader) millis(name string, def int) time.Duration {
	const maxMS = math.MaxInt64 / int64(time.Millisecond)
	return time.Duration(r.int(name, def, 0, int(maxMS))) * time.Millisecond
}

// loadConfig reads the settings through lookup (os.LookupEnv in production).
// A variable that is set but malformed is an error: the server must never run
// with a silently different setting than the harness asked for.
func loadConfig(lookup func(string) (string, bool)) (config, error) {
	r := &envReader{lookup: lookup}
	c := config{
		Host:       r.str("ARENA_HOST", "127.0.0.1"),
		Port:       r.int("ARENA_PORT", 8080, 1, 65535),
		CPUs:       r.int("ARENA_CPUS", 1, 1, math.MaxInt),
		BcryptCost: r.int("ARENA_BCRYPT_COST", 10, 4, 31),
		LongPoll:   r.millis("ARENA_LONGPOLL_MS", 5000),
		HelloDelay: r.millis("ARENA_HELLO_DELAY_MS", 2000),
		HelloEvery: uint64(r.int("ARENA_HELLO_DELAY_EVERY", 10, 1, math.MaxInt)),
		SortN:      r.int("ARENA_SORT_N", 50000, 1, maxSortN),
		DataDir:    r.str("ARENA_DATA_DIR", "../../spec/data"),
		DBURL:      r.str("ARENA_DB_URL", ""),
		DBPool:     r.int("ARENA_DB_POOL", 8, 1, 1000),
	}
	return c, r.err
}

// mustLoadConfig exits with status 2 on a malformed setting.
func mustLoadConfig() config {
	c, err := loadConfig(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		os.Exit(2)
	}
	return c
}
