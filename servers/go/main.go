// Command server is Arena's Go implementation of the REST workload contract
// (spec/README.md): net/http, x/crypto/bcrypt and sync.Map, as in the
// thesis' Go server, plus the blog's /hello and the honours' /long-operation.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	cfg := mustLoadConfig()
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	// The harness sets GOMAXPROCS to the core budget; only when it is
	// unset (a run by hand) does ARENA_CPUS fill in.
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(cfg.CPUs)
	}
	page, err := os.ReadFile(filepath.Join(cfg.DataDir, "hello.html"))
	if err != nil {
		return err
	}

	// One process: the whole ARENA_DB_POOL is its pool.
	var db *pgxpool.Pool
	if cfg.DBURL != "" {
		if db, err = openDB(cfg.DBURL, cfg.DBPool); err != nil {
			return fmt.Errorf("ARENA_DB_URL: %w", err)
		}
		defer db.Close()
	}

	srv := &http.Server{
		Addr:    net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		Handler: newApp(cfg, page, db).routes(),
		// Slow or silent clients must not pin a connection forever. There is
		// no WriteTimeout: /longPoll and /long-operation are long on purpose.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	// Listen before logging, so the start line means the port is bound.
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return err
	}
	log.Printf("go server on http://%s: GOMAXPROCS=%d cpus=%d bcrypt_cost=%d longpoll=%s hello_delay=%s every %d sort_n=%d data=%s db=%t db_pool=%d",
		ln.Addr(), runtime.GOMAXPROCS(0), cfg.CPUs, cfg.BcryptCost, cfg.LongPoll,
		cfg.HelloDelay, cfg.HelloEvery, cfg.SortN, cfg.DataDir, db != nil, cfg.DBPool)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Finish answers in flight, but do not wait out a long sort or poll.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
	}
	log.Print("stopped")
	return nil
}
