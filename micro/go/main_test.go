package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || strings.Count(stdout.String(), "\n") != 1 {
		t.Fatalf("%v: want one JSON line, got %q (%v)", args, stdout.String(), err)
	}
	return out
}

func TestBenches(t *testing.T) {
	cases := []struct {
		args  []string
		check map[string]float64
	}{
		{[]string{"pingping", "--size", "100", "--rounds", "300"}, map[string]float64{"received": 600}},
		{[]string{"pingpong", "--size", "3000", "--rounds", "300"}, map[string]float64{"round_trips": 300}},
		{[]string{"spawn", "--procs", "2000"}, map[string]float64{"alive": 2000}},
		{[]string{"ring", "--procs", "50", "--size", "10", "--rounds", "7"}, map[string]float64{"laps": 7, "hops": 350}},
		{[]string{"ring", "--procs", "2", "--size", "1", "--rounds", "300"}, map[string]float64{"laps": 300, "hops": 600}},
		{[]string{"throughput", "--pairs", "3", "--size", "100", "--seconds", "0.05"}, nil},
	}
	for _, mode := range []string{"idiomatic", "copy"} {
		for _, tc := range cases {
			// A short warm-up: its iterations check their counts and bytes too.
			out := runJSON(t, append(tc.args, "--mode", mode, "--warmup-s", "0.02")...)
			payload := map[string]string{"idiomatic": "shared", "copy": "copied"}[mode]
			if out["bench"] != tc.args[0] || out["mode"] != mode || out["payload"] != payload {
				t.Errorf("%v %s: header %v", tc.args, mode, out)
			}
			check := out["check"].(map[string]any)
			for name, want := range tc.check {
				if check[name] != want {
					t.Errorf("%v %s: check.%s = %v, want %v", tc.args, mode, name, check[name], want)
				}
			}
			if tc.args[0] == "throughput" {
				sum := 0.0
				for _, n := range check["per_pair"].([]any) {
					sum += n.(float64)
				}
				if len(check["per_pair"].([]any)) != 3 || sum != check["messages"] || sum < 6 {
					t.Errorf("throughput %s: inconsistent check %v", mode, check)
				}
			}
		}
	}
}

func TestParams(t *testing.T) {
	out := runJSON(t, "throughput", "--seconds", "0.01", "--rounds", "5", "--warmup-s", "0")
	want := map[string]any{"pairs": 1.0, "size": 5000.0, "seconds": 0.01}
	params := out["params"].(map[string]any)
	if len(params) != len(want) {
		t.Fatalf("params %v, want %v", params, want)
	}
	for k, v := range want {
		if params[k] != v {
			t.Errorf("params %v, want %v", params, want)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuchbench"},
		{"--size", "5"},
		{"pingpong", "--size", "0"},
		{"pingpong", "--rounds", "-3"},
		{"pingpong", "--size", "abc"},
		{"pingpong", "--size"},
		{"pingpong", "--mode", "weird"},
		{"pingpong", "--bogus", "1"},
		{"pingpong", "extra"},
		{"spawn", "--procs", "99999999999999999999"},
		{"ring", "--procs", "1"},
		{"throughput", "--seconds", "0"},
		{"throughput", "--seconds", "NaN"},
		{"throughput", "--seconds", "Inf"},
		{"throughput", "--seconds", "1e300"},
		{"pingpong", "--warmup-s", "-1"},
		{"pingpong", "--warmup-s", "-0.5"},
		{"pingpong", "--warmup-s", "abc"},
		{"pingpong", "--warmup-s", "NaN"},
		{"pingpong", "--warmup-s", "Inf"},
		{"pingpong", "--warmup-s"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line on stderr only",
				args, code, stdout.String(), stderr.String())
		}
	}
}

func TestSteady(t *testing.T) {
	for _, tc := range []struct {
		series []float64
		want   bool
	}{
		{nil, false},
		{[]float64{10, 10, 10, 10}, false},
		{[]float64{10, 10, 10, 10, 10}, true},
		{[]float64{9, 11, 10, 10, 10}, true},               // ±10% of the median, bounds included
		{[]float64{8.9, 10, 10, 10, 10}, false},            // 11% under
		{[]float64{10, 10, 10, 10, 11.1}, false},           // 11% over
		{[]float64{50, 20, 10, 10.5, 9.5, 10, 10.9}, true}, // only the last 5 count
		{[]float64{10, 10, 10, 10, 10, 30}, false},         // the newest breaks it
		{[]float64{1, 1, 100, 100, 100}, false},            // median 100; the 1s are far off
		{[]float64{100, 1, 1, 1, 1}, false},                // median 1; 100 is far off
		{[]float64{0, 0, 0, 0, 0}, true},
		{[]float64{10, 10, math.NaN(), 10, 10}, false},
		{[]float64{10, 10, math.Inf(1), 10, 10}, false},
	} {
		if got := steady(tc.series); got != tc.want {
			t.Errorf("steady(%v) = %v, want %v", tc.series, got, tc.want)
		}
	}
}

func TestWarmup(t *testing.T) {
	for _, args := range [][]string{
		{"pingpong", "--size", "100", "--rounds", "100", "--mode", "copy", "--warmup-s", "0.05"},
		{"spawn", "--procs", "500", "--warmup-s", ".05"},
		{"throughput", "--seconds", "0.02", "--warmup-s", "0.03"},
		{"ring", "--procs", "20", "--rounds", "3", "--warmup-s", "0.05"},
	} {
		w := runJSON(t, args...)["warmup"].(map[string]any)
		series := w["series"].([]any)
		seconds := w["seconds"].(float64)
		if len(w) != 4 || w["iterations"] != float64(len(series)) || len(series) < 1 || seconds <= 0 {
			t.Errorf("%v: warmup %v", args, w)
		}
		values := make([]float64, len(series))
		for i, v := range series {
			values[i] = v.(float64)
		}
		if w["steady"] != steady(values) {
			t.Errorf("%v: steady %v, but the rule says %v of %v", args, w["steady"], steady(values), values)
		}
		// Without steadiness the warm-up lasts at least W.
		if w["steady"] == false && seconds < 0.03 {
			t.Errorf("%v: stopped after %vs, unsteady", args, seconds)
		}
	}
}

func TestNoWarmup(t *testing.T) {
	for _, args := range [][]string{
		{"pingpong", "--rounds", "10", "--warmup-s", "0"},
		{"spawn", "--procs", "10", "--warmup-s=0.0"},
	} {
		line, err := json.Marshal(runJSON(t, args...)["warmup"])
		if want := `{"iterations":0,"seconds":0,"series":[],"steady":false}`; err != nil || string(line) != want {
			t.Errorf("%v: warmup %s, want %s", args, line, want)
		}
	}
}
