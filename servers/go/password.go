package main

import (
	"encoding/json"
	"net/http"

	"golang.org/x/crypto/bcrypt"
)

// maxPasswordBytes is bcrypt's own limit; longer input would be truncated by
// most bcrypt libraries and refused by x/crypto, so it is refused up front.
const maxPasswordBytes = 72

// parsePassword extracts the string "password" of a JSON object body.
func parsePassword(body []byte) (string, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	pw, ok := obj["password"].(string)
	return pw, ok && len(pw) <= maxPasswordBytes
}

// passwordRequest reads the username and password shared by both handlers.
func passwordRequest(w http.ResponseWriter, r *http.Request) (name, pw string, ok bool) {
	if name, ok = username(w, r); !ok {
		return "", "", false
	}
	body, ok := readJSON(w, r)
	if !ok {
		return "", "", false
	}
	if pw, ok = parsePassword(body); !ok {
		http.Error(w, `body must be {"password": string of at most 72 bytes}`, http.StatusBadRequest)
		return "", "", false
	}
	return name, pw, true
}

func (a *app) setPassword(w http.ResponseWriter, r *http.Request) {
	name, pw, ok := passwordRequest(w, r)
	if !ok {
		return
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), a.cfg.BcryptCost)
	if err != nil {
		http.Error(w, "cannot hash password", http.StatusInternalServerError)
		return
	}
	a.passwords.save(name, hash)
	writeOK(w)
}

func (a *app) verifyPassword(w http.ResponseWriter, r *http.Request) {
	name, pw, ok := passwordRequest(w, r)
	if !ok {
		return
	}
	hash, found := a.passwords.load(name)
	if !found {
		// Spend the same bcrypt work as a known user would, so the answer
		// time does not tell which usernames exist.
		_, _ = bcrypt.GenerateFromPassword([]byte(pw), a.cfg.BcryptCost)
		http.Error(w, "unknown user", http.StatusNotFound)
		return
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(pw)) != nil {
		http.Error(w, "wrong password", http.StatusForbidden)
		return
	}
	writeOK(w)
}
