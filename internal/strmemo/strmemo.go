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

// Keyed remembers values of the last long strings it was asked about, each under a string and
// an extra key (what else the value depends on: a setting, a count). A nil *Keyed remembers
// nothing. It is safe for concurrent use.
type Keyed[K comparable, V any] struct {
	minBytes, maxEntries, maxBytes int

	mu      sync.Mutex
	entries map[key[K]]entry[V]
	order   []key[K] // oldest first
	bytes   int      // the bytes the entries keep alive
}

// key is a string's identity and the extra key.
type key[K comparable] struct {
	data  *byte
	n     int
	extra K
}

// entry is a string, its value and the bytes it keeps alive.
type entry[V any] struct {
	s     string
	value V
	size  int
}

// NewKeyed returns a memo of strings of at least minBytes (a shorter one costs about what the
// look-up does), keeping at most maxEntries of them and maxBytes in all (the sizes given to
// Put), which bounds the memory the entries keep alive.
func NewKeyed[K comparable, V any](minBytes, maxEntries, maxBytes int) *Keyed[K, V] {
	return &Keyed[K, V]{minBytes: minBytes, maxEntries: maxEntries, maxBytes: maxBytes, entries: map[key[K]]entry[V]{}}
}

// takes says whether m remembers strings as long as s.
func (m *Keyed[K, V]) takes(s string) bool {
	return m != nil && len(s) >= m.minBytes && len(s) <= m.maxBytes
}

// Lookup returns the value remembered for s itself under extra.
func (m *Keyed[K, V]) Lookup(s string, extra K) (V, bool) {
	if !m.takes(s) {
		var zero V
		return zero, false
	}
	m.mu.Lock()
	e, ok := m.entries[key[K]{unsafe.StringData(s), len(s), extra}]
	m.mu.Unlock()
	return e.value, ok
}

// Put remembers v for s under extra; size is what the entry keeps alive (s and what v holds,
// at least len(s)). An entry past maxBytes is not kept, nor one already there; the oldest
// entries go past the limits.
func (m *Keyed[K, V]) Put(s string, extra K, v V, size int) {
	if !m.takes(s) || size > m.maxBytes {
		return
	}
	k := key[K]{unsafe.StringData(s), len(s), extra}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[k]; ok {
		return // another goroutine remembered it meanwhile
	}
	m.entries[k] = entry[V]{s: s, value: v, size: size}
	m.order = append(m.order, k)
	m.bytes += size
	drop := 0
	for len(m.order)-drop > m.maxEntries || m.bytes > m.maxBytes {
		old := m.order[drop]
		m.bytes -= m.entries[old].size
		delete(m.entries, old)
		drop++
	}
	if drop > 0 {
		n := copy(m.order, m.order[drop:])
		clear(m.order[n:])
		m.order = m.order[:n]
	}
}

// Get returns compute(s), from memory when s itself was met lately under extra; compute must
// depend on the text of s and on extra alone. The entry's size is len(s).
func (m *Keyed[K, V]) Get(s string, extra K, compute func(string) V) V {
	if v, ok := m.Lookup(s, extra); ok {
		return v
	}
	v := compute(s)
	m.Put(s, extra, v, len(s))
	return v
}

// Len returns the number of strings remembered and the bytes they keep alive.
func (m *Keyed[K, V]) Len() (entries, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries), m.bytes
}

// Memo is a Keyed whose values depend on the string alone. A nil *Memo computes every time.
type Memo[V any] struct{ keyed *Keyed[struct{}, V] }

// New returns a Memo (see NewKeyed).
func New[V any](minBytes, maxEntries, maxBytes int) *Memo[V] {
	return &Memo[V]{keyed: NewKeyed[struct{}, V](minBytes, maxEntries, maxBytes)}
}

// Get returns compute(s), from memory when s itself was met lately; compute must depend on
// the text of s alone.
func (m *Memo[V]) Get(s string, compute func(string) V) V {
	if m == nil {
		return compute(s)
	}
	return m.keyed.Get(s, struct{}{}, compute)
}

// Len returns the number of strings remembered and their bytes.
func (m *Memo[V]) Len() (entries, bytes int) { return m.keyed.Len() }
