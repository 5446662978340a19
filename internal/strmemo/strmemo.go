// Package strmemo remembers what was computed from long strings by the identity of the
// strings: the address of their bytes and their length, never a hash of their content. The
// arms of a replayed case hand the same strings to every stage (a tool text no arm changes, the
// history), and so do the requests of a conversation whose reader hands over re-sent texts as
// the strings it read before: a pass over megabytes is then made once. An entry holds its
// string, so no other text can come to lie at the same address while it is kept: a string at
// the same address with the same length is the same text (strings are immutable).
package strmemo

import (
	"sync"
	"unsafe"
)

// Memo remembers values of the last long strings it was asked about. A nil *Memo computes
// every time. It is safe for concurrent use.
type Memo[V any] struct {
	minBytes, maxEntries, maxBytes int

	mu      sync.Mutex
	entries map[key]entry[V]
	order   []key // oldest first
	bytes   int   // the bytes of the strings the entries hold
}

// key is a string's identity.
type key struct {
	data *byte
	n    int
}

// entry is a string and its value.
type entry[V any] struct {
	s     string
	value V
}

// New returns a memo of strings of at least minBytes (a shorter one costs about what the
// look-up does), keeping at most maxEntries of them and maxBytes in all, which bounds the
// memory the entries keep alive.
func New[V any](minBytes, maxEntries, maxBytes int) *Memo[V] {
	return &Memo[V]{minBytes: minBytes, maxEntries: maxEntries, maxBytes: maxBytes, entries: map[key]entry[V]{}}
}

// Get returns compute(s), from memory when s itself was met lately; compute must depend on
// the text of s alone.
func (m *Memo[V]) Get(s string, compute func(string) V) V {
	if m == nil || len(s) < m.minBytes || len(s) > m.maxBytes {
		return compute(s)
	}
	k := key{unsafe.StringData(s), len(s)}
	m.mu.Lock()
	e, ok := m.entries[k]
	m.mu.Unlock()
	if ok {
		return e.value
	}
	v := compute(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[k]; ok {
		return v // another goroutine remembered it meanwhile
	}
	m.entries[k] = entry[V]{s: s, value: v}
	m.order = append(m.order, k)
	m.bytes += len(s)
	drop := 0
	for len(m.order)-drop > m.maxEntries || m.bytes > m.maxBytes {
		old := m.order[drop]
		m.bytes -= len(m.entries[old].s)
		delete(m.entries, old)
		drop++
	}
	if drop > 0 {
		n := copy(m.order, m.order[drop:])
		clear(m.order[n:])
		m.order = m.order[:n]
	}
	return v
}

// Len returns the number of strings remembered and their bytes.
func (m *Memo[V]) Len() (entries, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries), m.bytes
}
