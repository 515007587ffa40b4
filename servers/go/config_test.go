package main

import (
	"testing"
	"time"
)

func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Host: "127.0.0.1", Port: 8080, CPUs: 1, BcryptCost: 10,
		LongPoll: 5 * time.Second, HelloDelay: 2 * time.Second, HelloEvery: 10,
		SortN: 50000, DataDir: "../../spec/data", DBPool: 8}
	if c != want {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
}

func TestConfigValues(t *testing.T) {
	c, err := loadConfig(env(map[string]string{
		"ARENA_HOST": "0.0.0.0", "ARENA_PORT": "1", "ARENA_CPUS": "64",
		"ARENA_BCRYPT_COST": "31", "ARENA_LONGPOLL_MS": "0", "ARENA_HELLO_DELAY_MS": "15",
		"ARENA_HELLO_DELAY_EVERY": "1", "ARENA_SORT_N": "200000", "ARENA_DATA_DIR": "/d",
		"ARENA_DB_URL": "postgresql://u:p@h:1/d", "ARENA_DB_POOL": "1000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "0.0.0.0" || c.Port != 1 || c.CPUs != 64 || c.BcryptCost != 31 ||
		c.LongPoll != 0 || c.HelloDelay != 15*time.Millisecond || c.HelloEvery != 1 ||
		c.SortN != 200000 || c.DataDir != "/d" || c.DBURL != "postgresql://u:p@h:1/d" || c.DBPool != 1000 {
		t.Errorf("got %+v", c)
	}
}

func TestConfigMalformed(t *testing.T) {
	for _, kv := range [][2]string{
		{"ARENA_PORT", "0"}, {"ARENA_PORT", "65536"}, {"ARENA_PORT", "http"}, {"ARENA_PORT", ""},
		{"ARENA_CPUS", "0"}, {"ARENA_CPUS", "1.5"},
		{"ARENA_BCRYPT_COST", "3"}, {"ARENA_BCRYPT_COST", "32"},
		{"ARENA_LONGPOLL_MS", "-1"}, {"ARENA_LONGPOLL_MS", "99999999999999999999"},
		{"ARENA_HELLO_DELAY_MS", "2s"}, {"ARENA_HELLO_DELAY_EVERY", "0"},
		{"ARENA_SORT_N", "0"}, {"ARENA_SORT_N", "200001"},
		{"ARENA_HOST", ""}, {"ARENA_DATA_DIR", ""},
		{"ARENA_DB_URL", ""}, {"ARENA_DB_POOL", "0"}, {"ARENA_DB_POOL", "1001"}, {"ARENA_DB_POOL", "x"},
	} {
		if _, err := loadConfig(env(map[string]string{kv[0]: kv[1]})); err == nil {
			t.Errorf("%s=%q accepted", kv[0], kv[1])
		}
	}
}
