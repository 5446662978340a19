package prompt

import "github.com/strata-eval/strata-eval/internal/strmemo"

// wireMemo remembers wireText of the last long texts by the identity of their strings
// (strmemo): the arms of a case render the same history and tool texts. A nil *wireMemo
// computes every time.
type wireMemo = strmemo.Memo[wired]

// wired is what wireText returns.
type wired struct {
	text  string
	ascii bool
}

// Limits of a wireMemo: texts of at least minWireMemo bytes, at most maxWireEntries of them
// and maxWireBytes in all.
const (
	minWireMemo    = 16 << 10
	maxWireEntries = 16
	maxWireBytes   = 32 << 20
)

// newWireMemo returns an empty memo.
func newWireMemo() *wireMemo { return strmemo.New[wired](minWireMemo, maxWireEntries, maxWireBytes) }

// memoWireText returns wireText(s), from m when s itself was met lately.
func memoWireText(m *wireMemo, s string) (string, bool) {
	w := m.Get(s, func(s string) wired {
		text, ascii := wireText(s)
		return wired{text, ascii}
	})
	return w.text, w.ascii
}
