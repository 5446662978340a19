package prompt

import (
	"sync"
	"unsafe"
)

// wireMemo remembers wireText of the last long texts by the identity of their strings: the
// arms of a case render the same history and tool texts (the same strings), and so does the
// next request of a conversation when its reader hands over the re-sent texts as the strings
// it read before. An entry holds its text, so no other text can come to lie at the same
// address while it is kept: a string at the same address with the same length is the same
// text (strings are immutable). A nil *wireMemo computes every time. It is safe for
// concurrent use.
type wireMemo struct {
	mu      sync.Mutex
	entries map[wireKey]wireEntry
	order   []wireKey // oldest first
	bytes   int       // the input bytes the entries hold
}

// wireKey is a string's identity: the address of its bytes and its length.
type wireKey struct {
	data *byte
	n    int
}

// wireEntry is a text and what wireText made of it.
type wireEntry struct {
	in, out string
	ascii   bool
}

// Limits of a wireMemo: texts of at least minWireMemo bytes are remembered (a shorter one costs
// about what the look-up does), at most maxWireEntries of them and maxWireBytes in all, which
// bounds the memory the entries keep alive.
const (
	minWireMemo    = 16 << 10
	maxWireEntries = 16
	maxWireBytes   = 32 << 20
)

// newWireMemo returns an empty memo.
func newWireMemo() *wireMemo { return &wireMemo{entries: map[wireKey]wireEntry{}} }

// wireText returns wireText(s), from memory when s itself was met lately.
func (m *wireMemo) wireText(s string) (string, bool) {
	if m == nil || len(s) < minWireMemo || len(s) > maxWireBytes {
		return wireText(s)
	}
	key := wireKey{unsafe.StringData(s), len(s)}
	m.mu.Lock()
	e, ok := m.entries[key]
	m.mu.Unlock()
	if ok {
		return e.out, e.ascii
	}
	out, ascii := wireText(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[key]; ok {
		return out, ascii // another goroutine remembered it meanwhile
	}
	m.entries[key] = wireEntry{in: s, out: out, ascii: ascii}
	m.order = append(m.order, key)
	m.bytes += len(s)
	drop := 0
	for len(m.order)-drop > maxWireEntries || m.bytes > maxWireBytes {
		old := m.order[drop]
		m.bytes -= len(m.entries[old].in)
		delete(m.entries, old)
		drop++
	}
	if drop > 0 {
		k := copy(m.order, m.order[drop:])
		clear(m.order[k:])
		m.order = m.order[:k]
	}
	return out, ascii
}
