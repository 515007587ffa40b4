package main

import "sync"

// store is a typed face over sync.Map: the thesis' Go server kept users and
// passwords in sync.Map, which suits this load (keys written once or rarely,
// read from many goroutines) without a global lock.
type store[V any] struct{ m sync.Map }

func (s *store[V]) load(key string) (V, bool) {
	v, ok := s.m.Load(key)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (s *store[V]) save(key string, v V) { s.m.Store(key, v) }
