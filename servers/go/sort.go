package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// lcgArray builds the spec's deterministic input: n floats in [0, 1) from a
// 64-bit LCG seeded with 42 (uint64 arithmetic wraps mod 2^64 by itself).
func lcgArray(n int) []float64 {
	a := make([]float64, n)
	x := uint64(42)
	for i := range a {
		x = x*6364136223846793005 + 1442695040888963407
		a[i] = float64(x>>11) * 0x1p-53
	}
	return a
}

// bubbleSortDesc is the spec's exact O(n²) bubble sort: the CPU work is the
// point of the endpoint, so no library sort.
func bubbleSortDesc(a []float64) {
	n := len(a)
	for i := 0; i < n; i++ {
		b := a[:n-i] // lets the compiler drop bounds checks in the inner loop
		for j := 1; j < len(b); j++ {
			if b[j-1] < b[j] {
				b[j-1], b[j] = b[j], b[j-1]
			}
		}
	}
}

// checksum is Σ (i+1)·a[i] in index order. The explicit float64 conversion
// rounds the product, which forbids the compiler from fusing it with the
// addition into an FMA (allowed by the Go spec on arm64 and others) and so
// keeps the result equal to the reference on every architecture.
func checksum(a []float64) float64 {
	var s float64
	for i, v := range a {
		s += float64(float64(i+1) * v)
	}
	return s
}

// parseN accepts decimal digits only (leading zeros allowed) in 1..maxSortN.
func parseN(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s) // only fails on overflow here, which is out of range anyway
	return n, err == nil && n >= 1 && n <= maxSortN
}

type longOperationResult struct {
	Message  string  `json:"message"`
	N        int     `json:"n"`
	Checksum float64 `json:"checksum"` // encoding/json prints the shortest round-trip form
}

// longOperation sorts in the request's own goroutine, as the honours
// report's server did. It does not stop when the client goes away: the other
// implementations cannot either, and results must stay comparable.
func (a *app) longOperation(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, "malformed query", http.StatusBadRequest)
		return
	}
	n := a.cfg.SortN
	if vs, given := q["n"]; given {
		var ok bool
		if n, ok = parseN(vs[0]); !ok {
			http.Error(w, "n must be decimal digits in 1..200000", http.StatusBadRequest)
			return
		}
	}
	arr := lcgArray(n)
	bubbleSortDesc(arr)
	body, err := json.Marshal(longOperationResult{Message: "done", N: n, Checksum: checksum(arr)})
	if err != nil {
		http.Error(w, "cannot encode result", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
