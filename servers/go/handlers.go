package main

import (
	"context"
	"net/http"
	"path"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// app is the whole server state; every handler is a method on it so tests
// can build independent instances.
type app struct {
	cfg        config
	helloPage  []byte        // hello.html, read once at start-up
	helloCount atomic.Uint64 // /hello requests so far, over all goroutines
	passwords  store[[]byte] // username → bcrypt hash
	users      store[[]byte] // username → raw JSON object
	db         *pgxpool.Pool // the records' database; nil when ARENA_DB_URL is unset
}

func newApp(cfg config, helloPage []byte, db *pgxpool.Pool) *app {
	return &app{cfg: cfg, helloPage: helloPage, db: db}
}

// routes uses method-and-path patterns, so ServeMux itself answers 404 for
// unknown paths (including empty or multi-segment usernames) and 405 for
// known paths with another method.
func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { writeOK(w) })
	mux.HandleFunc("GET /hello", a.hello)
	mux.HandleFunc("POST /password/set/{username}", a.setPassword)
	mux.HandleFunc("POST /password/verify/{username}", a.verifyPassword)
	mux.HandleFunc("POST /user/set/{username}", a.setUser)
	mux.HandleFunc("GET /user/get/{username}", a.getUser)
	mux.HandleFunc("GET /longPoll", a.longPoll)
	mux.HandleFunc("GET /long-operation", a.longOperation)
	mux.HandleFunc("PUT /record", a.recordHandler(insertRecord))
	mux.HandleFunc("GET /record", a.recordHandler(selectRecord))
	mux.HandleFunc("POST /record", a.recordHandler(updateRecord))
	mux.HandleFunc("DELETE /record", a.recordHandler(deleteRecord))
	return closeAfterChunked(canonicalOnly(mux))
}

// closeAfterChunked closes the connection after answering a chunked request.
// RFC 9112 (6.1) requires it after a request that had both Transfer-Encoding
// and Content-Length, lest what follows the chunked body be read as a second,
// smuggled request; Go 1.26 serves such a request by its chunks but keeps the
// connection (golang/go#80942), and it drops the Content-Length before a
// handler could tell, so every chunked request closes. The contract's clients
// send Content-Length, so no keep-alive they rely on is lost.
func closeAfterChunked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// canonicalOnly answers 404 for a path with "//", "/./", "/../" or a trailing
// slash, which ServeMux would redirect to its cleaned form: the contract has
// no redirects, and such a path is none of its paths. The escaped path is
// checked, as ServeMux does, so "a%2F..%2Fb" still reaches the username check.
func canonicalOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); p != "/" && path.Clean(p) != p {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hello delays every K-th request. Counting happens before the wait, so the
// waiting goroutine blocks nobody: the others are served on their own.
func (a *app) hello(w http.ResponseWriter, r *http.Request) {
	if a.helloCount.Add(1)%a.cfg.HelloEvery == 0 {
		if !sleep(r.Context(), a.cfg.HelloDelay) {
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(a.helloPage)
}

// longPoll parks only its own goroutine; the runtime's timer wakes it.
func (a *app) longPoll(w http.ResponseWriter, r *http.Request) {
	if sleep(r.Context(), a.cfg.LongPoll) {
		writeOK(w)
	}
}

// sleep waits d, or less when the client has gone away (there is nobody left
// to answer). It reports whether the full wait elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
