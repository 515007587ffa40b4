package main

import (
	"bytes"
	"net/http"
)

// setUser stores the body's raw bytes: they already are a JSON value equal to
// the one sent, so decoding and re-encoding it (as the thesis did) would only
// cost time.
func (a *app) setUser(w http.ResponseWriter, r *http.Request) {
	name, ok := username(w, r)
	if !ok {
		return
	}
	body, ok := readJSON(w, r)
	if !ok {
		return
	}
	// The body is valid JSON, so its first non-space byte names its type.
	if !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		http.Error(w, "body must be a JSON object", http.StatusBadRequest)
		return
	}
	a.users.save(name, body)
	writeOK(w)
}

func (a *app) getUser(w http.ResponseWriter, r *http.Request) {
	name, ok := username(w, r)
	if !ok {
		return
	}
	doc, found := a.users.load(name)
	if !found {
		http.Error(w, "unknown user", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}
