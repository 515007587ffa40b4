package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func recordJSON(name, value any) string {
	b, _ := json.Marshal(map[string]any{"name": name, "value": value})
	return string(b)
}

func recordPath(name string) string { return "/record?name=" + url.QueryEscape(name) }

func TestParseRecord(t *testing.T) {
	for body, want := range map[string]record{
		`{"name":"a","value":"","extra":[1]}`:           {"a", ""},
		recordJSON("A-z_0.9", strings.Repeat("é", 512)): {"A-z_0.9", strings.Repeat("é", 512)},
		`{"value":"v","name":"x","name":"last"}`:        {"last", "v"},
	} {
		if got, why := parseRecord([]byte(body)); why != "" || got != want {
			t.Errorf("%s: got %+v %q, want %+v", body, got, why, want)
		}
	}
	for _, body := range []string{
		"[1]", `"s"`, "3", "null", `{}`, `{"value":"v"}`, `{"name":"a"}`, `{"NAME":"a","value":"v"}`,
		recordJSON("a", 5), recordJSON("a", nil), recordJSON("a", []string{"v"}), recordJSON(5, "v"),
		recordJSON("", "v"), recordJSON("bad name", "v"), recordJSON(strings.Repeat("y", 65), "v"),
		recordJSON("a", strings.Repeat("é", 512)+"x"), recordJSON("a", "nul\x00"),
	} {
		if got, why := parseRecord([]byte(body)); why == "" {
			t.Errorf("%s: accepted as %+v", body, got)
		}
	}
}

// Without a database every well-formed request is 503, and a malformed one
// is still 400: it is refused before the database would be asked.
func TestRecordWithoutDatabase(t *testing.T) {
	_, ts := testServer(t, nil)
	expect(t, do(t, ts, "GET", recordPath("r1"), ""), 503, "text/plain")
	expect(t, do(t, ts, "DELETE", recordPath("r1"), ""), 503, "text/plain")
	expect(t, do(t, ts, "PUT", "/record", recordJSON("r1", "v")), 503, "text/plain")
	expect(t, do(t, ts, "POST", "/record", recordJSON("r1", "v")), 503, "text/plain")
	for _, p := range []string{"/record", "/record?name=", "/record?name=bad%20name", "/record?nam=r1",
		"/record?name=" + strings.Repeat("y", 65), "/record?name=%zz"} {
		expect(t, do(t, ts, "GET", p, ""), 400, "text/plain")
		expect(t, do(t, ts, "DELETE", p, ""), 400, "text/plain")
	}
	for _, body := range []string{"", "{", "[1]", recordJSON("bad name", "v"), recordJSON("a", 1)} {
		expect(t, do(t, ts, "PUT", "/record", body), 400, "text/plain")
		expect(t, do(t, ts, "POST", "/record", body), 400, "text/plain")
	}
	big := `{"name":"a","value":"` + strings.Repeat("v", maxBodyBytes) + `"}`
	expect(t, do(t, ts, "PUT", "/record", big), 413, "text/plain")
}

func TestRecordUnreachableDatabase(t *testing.T) {
	// Port 1 on the loopback refuses at once: a database that is down.
	_, ts := testServer(t, func(c *config) { c.DBURL = "postgresql://arena:arena@127.0.0.1:1/arena" })
	start := time.Now()
	expect(t, do(t, ts, "GET", recordPath("r1"), ""), 503, "text/plain")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("503 after %v", d)
	}
	expect(t, do(t, ts, "GET", "/", ""), 200, "text/plain")
}

// A database that accepts connections but never answers (hung, or packets
// dropped) must still give a 503 within the contract's 5 s.
func TestRecordSilentDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			if _, err := ln.Accept(); err != nil {
				return
			}
		}
	}()
	_, ts := testServer(t, func(c *config) { c.DBURL = "postgresql://arena:arena@" + ln.Addr().String() + "/arena" })
	start := time.Now()
	expect(t, do(t, ts, "GET", recordPath("r1"), ""), 503, "text/plain")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("503 after %v", d)
	}
}

func TestOpenDBRefusesMalformedURL(t *testing.T) {
	if _, err := openDB("postgresql://u:p@127.0.0.1:port/db", 1); err == nil {
		t.Error("accepted")
	}
}

func TestUnavailable(t *testing.T) {
	for code, want := range map[string]bool{
		"08006": true, "53300": true, "57P01": true, "57014": true, // lost, too many connections, shutdown, canceled
		"23514": false, "42P01": false, "22021": false, // check violation, no table, bad encoding
	} {
		if got := unavailable(&pgconn.PgError{Code: code}); got != want {
			t.Errorf("%s: %t", code, got)
		}
	}
	if !unavailable(os.ErrDeadlineExceeded) {
		t.Error("a timeout is not an outage")
	}
}

// dbServer serves on the database of ARENA_DB_URL, which holds the table of
// spec/data/record.sql (`arena test` gives one).
func dbServer(t *testing.T) (*app, *httptest.Server, string) {
	t.Helper()
	dbURL := os.Getenv("ARENA_DB_URL")
	if dbURL == "" {
		t.Skip("ARENA_DB_URL is unset: no database to test /record on")
	}
	a, ts := testServer(t, func(c *config) { c.DBURL, c.DBPool = dbURL, 3 })
	t.Cleanup(func() { // a failed test leaves no records behind
		_, _ = a.db.Exec(context.Background(), "DELETE FROM record WHERE name LIKE 'gotest.%'")
	})
	return a, ts, "gotest." + strconv.FormatInt(time.Now().UnixNano(), 36)
}

func expectRecord(t *testing.T, r reply, status int, name, value string) {
	t.Helper()
	expect(t, r, status, "application/json")
	if r.body != recordJSON(name, value) {
		t.Errorf("body %s, want %s", r.body, recordJSON(name, value))
	}
}

func TestRecordCRUD(t *testing.T) {
	_, ts, name := dbServer(t)
	expectRecord(t, do(t, ts, "PUT", "/record", `{"value":"first","name":"`+name+`","x":1}`), 201, name, "first")
	expect(t, do(t, ts, "PUT", "/record", recordJSON(name, "second")), 409, "text/plain")
	expectRecord(t, do(t, ts, "GET", recordPath(name), ""), 200, name, "first")
	expectRecord(t, do(t, ts, "POST", "/record", recordJSON(name, "second")), 200, name, "second")
	expectRecord(t, do(t, ts, "GET", recordPath(name), ""), 200, name, "second")
	expect(t, do(t, ts, "POST", "/record", recordJSON(name+".none", "v")), 404, "text/plain")
	expect(t, do(t, ts, "GET", recordPath(name+".none"), ""), 404, "text/plain")
	expectRecord(t, do(t, ts, "DELETE", recordPath(name), ""), 200, name, "second")
	expect(t, do(t, ts, "DELETE", recordPath(name), ""), 404, "text/plain")

	// Text that would change a statement built by pasting is only data.
	for _, value := range []string{"x' OR '1'='1", "'; DROP TABLE record; --", "", strings.Repeat("é", 512)} {
		expectRecord(t, do(t, ts, "PUT", "/record", recordJSON(name, value)), 201, name, value)
		expectRecord(t, do(t, ts, "DELETE", recordPath(name), ""), 200, name, value)
	}
}

func TestRecordConcurrentCreates(t *testing.T) {
	a, ts, name := dbServer(t)
	const racers = 16
	statuses := make(chan int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { statuses <- do(t, ts, "PUT", "/record", recordJSON(name, strconv.Itoa(i))).status })
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[409] != racers-1 {
		t.Errorf("statuses %v, want one 201 and %d 409", count, racers-1)
	}
	if s := a.db.Stat(); s.TotalConns() > 3 {
		t.Errorf("%d connections, pool of 3", s.TotalConns())
	}
}
