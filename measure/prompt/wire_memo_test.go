package prompt

import (
	"strings"
	"testing"
	"unsafe"
)

// TestWireMemoAnswersTheSameString: a long text met again as the same string is answered from
// memory (the very string made the first time), an equal copy at another address is computed
// again, and every answer is wireText's, for ASCII text and text with invalid bytes.
func TestWireMemoAnswersTheSameString(t *testing.T) {
	m := newWireMemo()
	ascii := strings.Repeat("build step 12 finished in 3.4 s\n", 1000)
	mixed := strings.Repeat("Größe \xff\xfe café ", 2000)
	for _, s := range []string{ascii, mixed} {
		first, _ := memoWireText(m, s)
		for i, in := range []string{s, strings.Clone(s), s} {
			got, gotASCII := memoWireText(m, in)
			want, wantASCII := wireText(in)
			if got != want || gotASCII != wantASCII {
				t.Fatalf("text %d: memo answered %q… (ascii %v), wireText %q… (ascii %v)", i, got[:20], gotASCII, want[:20], wantASCII)
			}
			fromMemory := unsafe.StringData(got) == unsafe.StringData(first)
			if sameString := unsafe.StringData(in) == unsafe.StringData(s); fromMemory != sameString && s == mixed {
				t.Errorf("text %d: answered from memory %v, the same string %v", i, fromMemory, sameString)
			}
		}
	}
	if n, _ := m.Len(); n != 4 {
		t.Errorf("%d texts remembered; want 4 (two texts, two copies)", n)
	}
}
