package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// maxValueBytes is the contract's limit, also a CHECK of the table.
	maxValueBytes = 1024
	// connectTimeout and queryTimeout keep a dead or unreachable database
	// from holding a request past the contract's 5 s: queryTimeout covers
	// waiting for a pooled connection, connecting, and the statement itself.
	connectTimeout = 2 * time.Second
	queryTimeout   = 3 * time.Second
)

type record struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// statement is the one SQL statement of a /record request, and the answers
// for the record it returns and for no row.
type statement struct {
	sql       string
	found     int
	none      int
	noneWhy   string
	withValue bool // takes the body's value as $2, besides the name as $1
}

var (
	insertRecord = statement{
		sql:   `INSERT INTO record (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name, value`,
		found: http.StatusCreated, none: http.StatusConflict, noneWhy: "record already exists", withValue: true,
	}
	selectRecord = statement{
		sql:   `SELECT name, value FROM record WHERE name = $1`,
		found: http.StatusOK, none: http.StatusNotFound, noneWhy: "no such record",
	}
	updateRecord = statement{
		sql:   `UPDATE record SET value = $2 WHERE name = $1 RETURNING name, value`,
		found: http.StatusOK, none: http.StatusNotFound, noneWhy: "no such record", withValue: true,
	}
	deleteRecord = statement{
		sql:   `DELETE FROM record WHERE name = $1 RETURNING name, value`,
		found: http.StatusOK, none: http.StatusNotFound, noneWhy: "no such record",
	}
)

// openDB makes the pool without connecting: the server starts whether or not
// the database is up, and connections are made when requests need them.
func openDB(url string, size int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	cfg.ConnConfig.ConnectTimeout = connectTimeout
	// No liveness ping on acquire: the contract counts every round trip a
	// request makes. A connection the database dropped fails its statement
	// instead (503), and the pool discards it on release.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	return pgxpool.NewWithConfig(context.Background(), cfg)
}

// recordHandler answers one /record method. The request is checked first,
// so a 400 sends nothing to the database.
func (a *app) recordHandler(st statement) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var rec record
		var ok bool
		if st.withValue {
			rec, ok = recordBody(w, r)
		} else {
			rec.Name, ok = recordName(w, r)
		}
		if !ok {
			return
		}
		if a.db == nil {
			http.Error(w, "no database: ARENA_DB_URL is unset", http.StatusServiceUnavailable)
			return
		}
		args := []any{rec.Name}
		if st.withValue {
			args = append(args, rec.Value)
		}
		// Autocommit: one statement, no transaction around it.
		ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
		defer cancel()
		err := a.db.QueryRow(ctx, st.sql, args...).Scan(&rec.Name, &rec.Value)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			http.Error(w, st.noneWhy, st.none)
		case err != nil && unavailable(err):
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		case err != nil:
			log.Printf("record: %v", err)
			http.Error(w, "database error", http.StatusInternalServerError)
		default:
			body, _ := json.Marshal(rec) // two strings: cannot fail
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st.found)
			_, _ = w.Write(body)
		}
	}
}

// unavailable tells an outage from a failing statement: no answer from the
// server at all (refused, timed out, connection lost), or PostgreSQL saying
// it cannot serve now (classes 08 connection exception, 53 insufficient
// resources, 57 operator intervention such as a shutdown).
func unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return true
	}
	for _, class := range []string{"08", "53", "57"} {
		if strings.HasPrefix(pgErr.Code, class) {
			return true
		}
	}
	return false
}

// recordName reads ?name=, percent-decoded, answering 400 when invalid.
func recordName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.URL.Query().Get("name")
	if !validName(name) {
		http.Error(w, "name must match ^[A-Za-z0-9_.-]{1,64}$", http.StatusBadRequest)
		return "", false
	}
	return name, true
}

// recordBody reads {"name": N, "value": V}, answering 413 or 400 itself.
func recordBody(w http.ResponseWriter, r *http.Request) (record, bool) {
	body, ok := readJSON(w, r)
	if !ok {
		return record{}, false
	}
	rec, why := parseRecord(body)
	if why != "" {
		http.Error(w, why, http.StatusBadRequest)
		return record{}, false
	}
	return rec, true
}

// parseRecord checks a body that is valid JSON, returning why it is not a
// record. A map rather than a struct: encoding/json would match struct fields
// case-insensitively, taking "NAME" for "name".
func parseRecord(body []byte) (record, string) {
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return record{}, "body must be a JSON object"
	}
	name, _ := obj["name"].(string)
	if !validName(name) {
		return record{}, `"name" must be a string matching ^[A-Za-z0-9_.-]{1,64}$`
	}
	value, ok := obj["value"].(string)
	switch {
	case !ok:
		return record{}, `"value" must be a string`
	case len(value) > maxValueBytes:
		return record{}, `"value" is longer than 1024 bytes`
	case strings.ContainsRune(value, 0):
		// PostgreSQL text cannot hold U+0000.
		return record{}, `"value" must not contain U+0000`
	}
	return record{name, value}, ""
}
