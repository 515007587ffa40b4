package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"
)

var helloPage = []byte("<!DOCTYPE html><p>test page</p>")

// testServer runs the real routes over TCP, so ServeMux matching, percent-
// decoding and MaxBytesReader behave as in production.
func testServer(t *testing.T, tweak func(*config)) (*app, *httptest.Server) {
	t.Helper()
	cfg, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BcryptCost = bcrypt.MinCost
	cfg.SortN = 10
	cfg.LongPoll = 100 * time.Millisecond
	cfg.HelloDelay = 200 * time.Millisecond
	cfg.HelloEvery = 3
	if tweak != nil {
		tweak(&cfg)
	}
	var db *pgxpool.Pool
	if cfg.DBURL != "" {
		if db, err = openDB(cfg.DBURL, cfg.DBPool); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
	}
	a := newApp(cfg, helloPage, db)
	ts := httptest.NewServer(a.routes())
	t.Cleanup(ts.Close)
	return a, ts
}

type reply struct {
	status int
	ctype  string
	body   string
}

func do(t *testing.T, ts *httptest.Server, method, path, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// Opaque sends the path as written: no client-side cleaning or re-escaping.
	p, query, _ := strings.Cut(path, "?")
	req.URL.Opaque, req.URL.RawQuery = p, query
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

func expect(t *testing.T, r reply, status int, ctypePrefix string) {
	t.Helper()
	if r.status != status || !strings.HasPrefix(r.ctype, ctypePrefix) {
		t.Errorf("got %d %q %q; want %d %s", r.status, r.ctype, r.body, status, ctypePrefix)
	}
	if status >= 400 && strings.TrimSpace(r.body) == "" {
		t.Errorf("status %d with an empty body", status)
	}
}

func TestRootAndRouting(t *testing.T) {
	_, ts := testServer(t, nil)
	r := do(t, ts, "GET", "/", "")
	expect(t, r, 200, "text/plain")
	if r.body != "OK" {
		t.Errorf("body %q", r.body)
	}
	for _, p := range []string{"/nope", "/hello/", "/user/get/", "/user/get/a/b", "/password/set/", "/longpoll",
		"/user/get//alice", "/hello/../hello", "/./hello", "//hello", "/hello/."} {
		expect(t, do(t, ts, "GET", p, ""), 404, "text/plain")
	}
	for _, mp := range [][2]string{
		{"POST", "/"}, {"DELETE", "/hello"}, {"GET", "/password/set/u"}, {"PUT", "/password/verify/u"},
		{"GET", "/user/set/u"}, {"POST", "/user/get/u"}, {"POST", "/longPoll"}, {"POST", "/long-operation"},
		{"PATCH", "/record"},
	} {
		expect(t, do(t, ts, mp[0], mp[1], ""), 405, "text/plain")
	}
}

func TestUsernames(t *testing.T) {
	_, ts := testServer(t, nil)
	ok := []string{"a", "A-z_0.9", strings.Repeat("x", 64)}
	bad := []string{"bad%20name", "a%2Fb", "a%2F..%2Fb", strings.Repeat("x", 65), "%C3%A9", "a+b", "a%00"}
	for _, u := range ok {
		expect(t, do(t, ts, "POST", "/user/set/"+u, `{}`), 200, "text/plain")
	}
	for _, u := range bad {
		expect(t, do(t, ts, "POST", "/user/set/"+u, `{}`), 400, "text/plain")
		expect(t, do(t, ts, "GET", "/user/get/"+u, ""), 400, "text/plain")
		expect(t, do(t, ts, "POST", "/password/set/"+u, `{"password":"p"}`), 400, "text/plain")
		expect(t, do(t, ts, "POST", "/password/verify/"+u, `{"password":"p"}`), 400, "text/plain")
	}
}

func TestPasswords(t *testing.T) {
	a, ts := testServer(t, nil)
	expect(t, do(t, ts, "POST", "/password/set/alice", `{"password":"secret"}`), 200, "text/plain")
	if hash, _ := a.passwords.load("alice"); func() int { c, _ := bcrypt.Cost(hash); return c }() != bcrypt.MinCost {
		t.Errorf("hash %q not at the configured cost", hash)
	}
	expect(t, do(t, ts, "POST", "/password/verify/alice", `{"password":"secret"}`), 200, "text/plain")
	expect(t, do(t, ts, "POST", "/password/verify/alice", `{"password":"Secret"}`), 403, "text/plain")
	expect(t, do(t, ts, "POST", "/password/verify/bob", `{"password":"secret"}`), 404, "text/plain")

	// Setting again replaces the old password.
	expect(t, do(t, ts, "POST", "/password/set/alice", `{"other":1, "password":"new"}`), 200, "text/plain")
	expect(t, do(t, ts, "POST", "/password/verify/alice", `{"password":"secret"}`), 403, "text/plain")
	expect(t, do(t, ts, "POST", "/password/verify/alice", `{"password":"new"}`), 200, "text/plain")

	// 72 bytes of UTF-8 is bcrypt's limit: 24 three-byte euro signs pass, 25 do not.
	expect(t, do(t, ts, "POST", "/password/set/carol", `{"password":"`+strings.Repeat("€", 24)+`"}`), 200, "text/plain")
	expect(t, do(t, ts, "POST", "/password/verify/carol", `{"password":"`+strings.Repeat("€", 24)+`"}`), 200, "text/plain")
	expect(t, do(t, ts, "POST", "/password/set/carol", `{"password":"`+strings.Repeat("€", 25)+`"}`), 400, "text/plain")
	expect(t, do(t, ts, "POST", "/password/set/carol", `{"password":"`+strings.Repeat("a", 73)+`"}`), 400, "text/plain")
	expect(t, do(t, ts, "POST", "/password/set/carol", `{"password":""}`), 200, "text/plain")

	for _, body := range []string{"", "{", "not json", `"pw"`, `["pw"]`, "null", `{}`,
		`{"password":null}`, `{"password":1}`, `{"password":["a"]}`, `{"password":"a"} x`,
		"{\"password\":\"\xff\"}"} {
		for _, op := range []string{"set", "verify"} {
			expect(t, do(t, ts, "POST", "/password/"+op+"/alice", body), 400, "text/plain")
		}
	}
}

func TestUsers(t *testing.T) {
	_, ts := testServer(t, nil)
	expect(t, do(t, ts, "GET", "/user/get/dave", ""), 404, "text/plain")
	doc := `{"name": "Dave", "age": 42, "tags": ["a", "b"], "nested": {"x": null}}`
	expect(t, do(t, ts, "POST", "/user/set/dave", doc), 200, "text/plain")
	r := do(t, ts, "GET", "/user/get/dave", "")
	expect(t, r, 200, "application/json")
	var got, want any
	_ = json.Unmarshal([]byte(doc), &want)
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || !jsonEqual(got, want) {
		t.Errorf("got %s, want %s", r.body, doc)
	}
	expect(t, do(t, ts, "POST", "/user/set/dave", ` {"v":2}`), 200, "text/plain")
	if r := do(t, ts, "GET", "/user/get/dave", ""); strings.TrimSpace(r.body) != `{"v":2}` {
		t.Errorf("not replaced: %s", r.body)
	}
	for _, body := range []string{"", "nope", "[1]", `"s"`, "3", "null", "true", "{", `{"a":1}}`, "{\"a\":\"\xff\"}"} {
		expect(t, do(t, ts, "POST", "/user/set/dave", body), 400, "text/plain")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestBodyLimit(t *testing.T) {
	_, ts := testServer(t, nil)
	// A JSON object padded with spaces to exactly n bytes.
	body := func(prefix string, n int) string {
		return prefix + strings.Repeat(" ", n-len(prefix)-1) + "}"
	}
	for _, tc := range []struct {
		path, prefix string
	}{{"/user/set/big", `{"k":1`}, {"/password/set/big", `{"password":"pw"`}} {
		expect(t, do(t, ts, "POST", tc.path, body(tc.prefix, maxBodyBytes)), 200, "text/plain")
		expect(t, do(t, ts, "POST", tc.path, body(tc.prefix, maxBodyBytes+1)), 413, "text/plain")
	}

	// Without a Content-Length the limit is found while reading.
	req, _ := http.NewRequest("POST", ts.URL+"/user/set/big", io.MultiReader(strings.NewReader(body(`{"k":1`, maxBodyBytes+1))))
	req.ContentLength = -1
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("chunked oversized body: %d", resp.StatusCode)
	}
}

// A request with both Content-Length and chunked, and a second hidden after its
// last chunk: answered once, then the connection closes (RFC 9112, 6.1).
func TestChunkedWithContentLengthClosesTheConnection(t *testing.T) {
	_, ts := testServer(t, nil)
	chunks := "2\r\n{}\r\n0\r\n\r\nGET /user/get/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "POST /user/set/framing HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%s", len(chunks), chunks)
	answer, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(answer), "HTTP/1.1 "); n != 1 || !strings.HasPrefix(string(answer), "HTTP/1.1 200") {
		t.Errorf("want one 200 answer, then a close; got %d answers: %q", n, answer)
	}
}

func TestLongOperation(t *testing.T) {
	_, ts := testServer(t, nil)
	for q, want := range map[string]string{
		"?n=1":     `{"message":"done","n":1,"checksum":0.5682303266439076}`,
		"?n=00010": `{"message":"done","n":10,"checksum":10.676268897597582}`,
		"":         `{"message":"done","n":10,"checksum":10.676268897597582}`, // ARENA_SORT_N
		"?n=1000":  `{"message":"done","n":1000,"checksum":169238.799942987}`,
	} {
		r := do(t, ts, "GET", "/long-operation"+q, "")
		expect(t, r, 200, "application/json")
		if r.body != want {
			t.Errorf("%s: %s, want %s", q, r.body, want)
		}
	}
	for _, q := range []string{"?n=0", "?n=abc", "?n=-1", "?n=%2B5", "?n=1e3", "?n=1.5", "?n=", "?n", "?n=200001", "?n=%zz"} {
		expect(t, do(t, ts, "GET", "/long-operation"+q, ""), 400, "text/plain")
	}
}

// timed runs a GET and returns how long it took.
func timed(t *testing.T, ts *httptest.Server, path string) time.Duration {
	start := time.Now()
	r := do(t, ts, "GET", path, "")
	if r.status != 200 {
		t.Errorf("%s: %d", path, r.status)
	}
	return time.Since(start)
}

func TestHelloDelaysEveryKth(t *testing.T) {
	_, ts := testServer(t, nil) // K = 3, delay 200 ms
	r := do(t, ts, "GET", "/hello", "")
	expect(t, r, 200, "text/html")
	if r.body != string(helloPage) {
		t.Errorf("body %q", r.body)
	}
	// Request 3 and 6 are delayed; while request 3 waits, 4 and 5 still go through at once.
	if d := timed(t, ts, "/hello"); d > 100*time.Millisecond {
		t.Errorf("request 2 took %v", d)
	}
	third := make(chan time.Duration)
	go func() { third <- timed(t, ts, "/hello") }()
	time.Sleep(50 * time.Millisecond) // let request 3 take its count first
	for i := 4; i <= 5; i++ {
		if d := timed(t, ts, "/hello"); d > 100*time.Millisecond {
			t.Errorf("request %d took %v", i, d)
		}
	}
	if d := <-third; d < 200*time.Millisecond {
		t.Errorf("request 3 took %v, want the delay", d)
	}
	if d := timed(t, ts, "/hello"); d < 200*time.Millisecond {
		t.Errorf("request 6 took %v, want the delay", d)
	}
	// Other paths do not count: the 7th and 8th /hello are quick.
	do(t, ts, "GET", "/", "")
	for i := 7; i <= 8; i++ {
		if d := timed(t, ts, "/hello"); d > 100*time.Millisecond {
			t.Errorf("request %d took %v", i, d)
		}
	}
}

func TestLongPollConcurrent(t *testing.T) {
	_, ts := testServer(t, func(c *config) { c.LongPoll = 300 * time.Millisecond })
	start := time.Now()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			r := do(t, ts, "GET", "/longPoll", "")
			if r.status != 200 || r.body != "OK" {
				t.Errorf("longPoll: %d %q", r.status, r.body)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < 300*time.Millisecond || d > 1500*time.Millisecond {
		t.Errorf("50 long polls of 300 ms took %v", d)
	}
}

// TestMalformedConfigExits runs the real main in a child process.
func TestMalformedConfigExits(t *testing.T) {
	if os.Getenv("ARENA_TEST_CHILD") == "1" {
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMalformedConfigExits$")
	cmd.Env = append(os.Environ(), "ARENA_TEST_CHILD=1", "ARENA_PORT=abc")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "ARENA_PORT") {
		t.Errorf("got %v, stderr %q; want exit status 2 naming ARENA_PORT", err, stderr.String())
	}
}
