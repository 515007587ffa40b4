package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"
	"unicode/utf8"
)

const (
	maxBodyBytes = 64 << 10
	// bodyTimeout bounds how long a client may take to send its body; the
	// server's ReadHeaderTimeout covers only the headers.
	bodyTimeout = 10 * time.Second
)

// username returns the {username} path value, already percent-decoded by
// ServeMux, or answers 400 when it is not ^[A-Za-z0-9_.-]{1,64}$.
func username(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("username")
	if !validName(name) {
		http.Error(w, "invalid username", http.StatusBadRequest)
		return "", false
	}
	return name, true
}

// validName is the contract's ^[A-Za-z0-9_.-]{1,64}$ for usernames and record names.
func validName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == '.' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// readJSON reads a body of at most maxBodyBytes that is valid UTF-8 JSON,
// answering 413 or 400 itself when it is not.
func readJSON(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > maxBodyBytes {
		// Refuse before reading: the declared length already says too much.
		http.Error(w, "body larger than 65536 bytes", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	// A per-request read deadline instead of Server.ReadTimeout, which would
	// also cancel the contexts of legitimately long handlers such as /longPoll.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	_ = rc.SetReadDeadline(time.Time{})

	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, "body larger than 65536 bytes", http.StatusRequestEntityTooLarge)
		return nil, false
	case err != nil:
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return nil, false
	// encoding/json tolerates invalid UTF-8 (it substitutes U+FFFD), but JSON
	// text must be UTF-8 and a substituted password would hash differently.
	case !utf8.Valid(body) || !json.Valid(body):
		http.Error(w, "body is not valid JSON", http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

func writeOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "OK")
}
