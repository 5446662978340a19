package strmemo

import (
	"strings"
	"testing"
)

// TestMemoAnswersTheSameString: a long string met again is answered from memory, an equal
// copy at another address and a short string are computed again, a nil memo computes always.
func TestMemoAnswersTheSameString(t *testing.T) {
	m := New[int](64, 8, 1<<20)
	calls := 0
	count := func(s string) int { calls++; return strings.Count(s, "a") }
	long := strings.Repeat("abc", 100)
	for i, c := range []struct {
		s     string
		calls int
	}{{long, 1}, {long, 1}, {strings.Clone(long), 2}, {long, 2}, {"aaa", 3}, {"aaa", 4}} {
		if got := m.Get(c.s, count); got != strings.Count(c.s, "a") || calls != c.calls {
			t.Errorf("step %d: %d, %d computations; want %d, %d", i, got, calls, strings.Count(c.s, "a"), c.calls)
		}
	}
	if n, b := m.Len(); n != 2 || b != 2*len(long) {
		t.Errorf("%d strings of %d bytes remembered, want 2 of %d", n, b, 2*len(long))
	}
	var none *Memo[int]
	if got := none.Get(long, count); got != 100 || calls != 5 {
		t.Errorf("nil memo: %d, %d computations", got, calls)
	}
}

// TestMemoLimits fills a memo past both limits: the oldest strings go, the byte total stays
// exact and under its limit, a string past the limit is not kept.
func TestMemoLimits(t *testing.T) {
	const maxEntries, maxBytes = 4, 1000
	m := New[int](10, maxEntries, maxBytes)
	big := strings.Repeat("x", maxBytes)
	var kept []string
	for i := range 20 {
		s := strings.Clone(big[:10+i*37%400])
		kept = append(kept, s)
		m.Get(s, func(s string) int { return len(s) })
		checkAccount(t, m.keyed, maxEntries, maxBytes)
	}
	m.Get(big+"y", func(s string) int { return len(s) })
	if _, b := m.Len(); b > maxBytes {
		t.Errorf("a string past the byte limit is kept: %d bytes", b)
	}
	calls := 0
	m.Get(kept[len(kept)-1], func(s string) int { calls++; return len(s) })
	if calls != 0 {
		t.Error("the newest string was computed again")
	}
}

// checkAccount fails when m's byte total is not the sum of its entries' sizes, its order does
// not list every entry, or it is past its limits.
func checkAccount[K comparable, V any](t *testing.T, m *Keyed[K, V], maxEntries, maxBytes int) {
	t.Helper()
	sum := 0
	for _, e := range m.entries {
		sum += e.size
	}
	if sum != m.bytes || len(m.order) != len(m.entries) || len(m.entries) > maxEntries || m.bytes > maxBytes {
		t.Fatalf("%d entries (%d in order) of %d bytes, counted %d", len(m.entries), len(m.order), sum, m.bytes)
	}
}

// TestKeyedExtraKeyAndSizes: the same string under another extra key is another entry, an
// entry's size is the one given (an entry past the byte limit is not kept), and the oldest
// entries go when the sizes pass the limit.
func TestKeyedExtraKeyAndSizes(t *testing.T) {
	const maxEntries, maxBytes = 8, 1000
	m := NewKeyed[int, string](10, maxEntries, maxBytes)
	s := strings.Repeat("z", 100)
	m.Put(s, 1, "one", 300)
	m.Put(s, 2, "two", 300)
	if v, ok := m.Lookup(s, 1); !ok || v != "one" {
		t.Errorf("extra 1: %q %v", v, ok)
	}
	if v, ok := m.Lookup(s, 2); !ok || v != "two" {
		t.Errorf("extra 2: %q %v", v, ok)
	}
	if _, ok := m.Lookup(s, 3); ok {
		t.Error("extra 3 found")
	}
	if _, ok := m.Lookup(strings.Clone(s), 1); ok {
		t.Error("a copy at another address found")
	}
	m.Put(s, 4, "too big", maxBytes+1)
	if _, ok := m.Lookup(s, 4); ok {
		t.Error("an entry past the byte limit is kept")
	}
	m.Put(s, 5, "five", 500) // 1,100 bytes: the oldest goes
	checkAccount(t, m, maxEntries, maxBytes)
	if _, ok := m.Lookup(s, 1); ok {
		t.Error("the oldest entry is kept past the byte limit")
	}
	if v, ok := m.Lookup(s, 5); !ok || v != "five" {
		t.Errorf("extra 5: %q %v", v, ok)
	}
	var none *Keyed[int, string]
	none.Put(s, 1, "x", 1)
	if _, ok := none.Lookup(s, 1); ok {
		t.Error("a nil memo remembers")
	}
}
