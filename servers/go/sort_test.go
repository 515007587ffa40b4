package main

import (
	"encoding/json"
	"testing"
)

func TestChecksumReference(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string // as printed by encoding/json
	}{
		{1, "0.5682303266439076"},
		{10, "10.676268897597582"},
		{1000, "169238.799942987"},
	} {
		a := lcgArray(tc.n)
		bubbleSortDesc(a)
		got, _ := json.Marshal(checksum(a))
		if string(got) != tc.want {
			t.Errorf("n=%d: checksum %s, want %s", tc.n, got, tc.want)
		}
	}
}

func TestBubbleSortDescending(t *testing.T) {
	a := lcgArray(500)
	bubbleSortDesc(a)
	for i := 1; i < len(a); i++ {
		if a[i-1] < a[i] {
			t.Fatalf("a[%d]=%v < a[%d]=%v", i-1, a[i-1], i, a[i])
		}
	}
}

func TestParseN(t *testing.T) {
	for s, want := range map[string]int{"1": 1, "007": 7, "200000": 200000, "0000000000000000000000050": 50} {
		if n, ok := parseN(s); !ok || n != want {
			t.Errorf("parseN(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
	for _, s := range []string{"", "0", "000", "200001", "-1", "+5", "1e3", "1.5", "abc", " 5", "5 ", "0x10", "99999999999999999999999"} {
		if n, ok := parseN(s); ok {
			t.Errorf("parseN(%q) = %d, accepted", s, n)
		}
	}
}
