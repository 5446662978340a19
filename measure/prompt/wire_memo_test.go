package prompt

import (
	"strings"
	"testing"
	"unsafe"
)

// TestWireMemoAnswersTheSameString: a long text met again as the same string is answered from
// memory (the very string made the first time), an equal copy at another address is computed
// again, and every answer is wireText's.
func TestWireMemoAnswersTheSameString(t *testing.T) {
	m := newWireMemo()
	ascii := strings.Repeat("build step 12 finished in 3.4 s\n", 1000)
	mixed := strings.Repeat("Größe \xff\xfe café ", 2000)
	for _, s := range []string{ascii, mixed} {
		first, firstASCII := m.wireText(s)
		for i, in := range []string{s, strings.Clone(s), s} {
			got, gotASCII := m.wireText(in)
			want, wantASCII := wireText(in)
			if got != want || gotASCII != wantASCII {
				t.Fatalf("text %d: memo answered %q… (ascii %v), wireText %q… (ascii %v)", i, got[:20], gotASCII, want[:20], wantASCII)
			}
			fromMemory := unsafe.StringData(got) == unsafe.StringData(first) && gotASCII == firstASCII
			if sameString := unsafe.StringData(in) == unsafe.StringData(s); fromMemory != sameString && s == mixed {
				t.Errorf("text %d: answered from memory %v, the same string %v", i, fromMemory, sameString)
			}
		}
	}
	if len(m.entries) != 4 || len(m.order) != 4 {
		t.Errorf("%d entries, %d in order; want 4 (two texts, two copies)", len(m.entries), len(m.order))
	}
	short := "hi \xff"
	if got, _ := m.wireText(short); got != wireString(short) || len(m.entries) != 4 {
		t.Errorf("short text: %q, %d entries", got, len(m.entries))
	}
	var nilMemo *wireMemo
	if got, isASCII := nilMemo.wireText(mixed); got != wireString(mixed) || isASCII {
		t.Errorf("nil memo: %q…, ascii %v", got[:20], isASCII)
	}
}

// TestWireMemoLimits fills the memo past both limits: the oldest entries go, the byte total
// stays exact and under its limit, and every answer is still wireText's.
func TestWireMemoLimits(t *testing.T) {
	m := newWireMemo()
	big := strings.Repeat("x", maxWireBytes/4)
	for i := 0; i < 3*maxWireEntries; i++ {
		s := strings.Clone(big[:minWireMemo+i])
		if i%7 == 0 {
			s = strings.Clone(big)
		}
		if got, isASCII := m.wireText(s); got != s || !isASCII {
			t.Fatalf("text %d: not answered as itself", i)
		}
		sum := 0
		for _, e := range m.entries {
			sum += len(e.in)
		}
		if sum != m.bytes || len(m.order) != len(m.entries) || len(m.entries) > maxWireEntries || m.bytes > maxWireBytes {
			t.Fatalf("text %d: %d entries (%d in order) of %d bytes, counted %d", i, len(m.entries), len(m.order), sum, m.bytes)
		}
	}
}
