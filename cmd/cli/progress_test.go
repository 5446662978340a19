package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/run"
)

// TestProgressOnlyOnATerminal: with the inputs' size known the bar shows the percentage, the
// bytes read of the total, and the elapsed and remaining time; nothing is written when stderr
// is not a terminal.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var quiet bytes.Buffer
	p := newCaseProgress(&quiet, false)
	p.update(run.Progress{Done: 1, TotalBytes: 4_000_000, ReadBytes: 1_000_000})
	p.finish()
	if quiet.Len() != 0 {
		t.Errorf("not a terminal, yet the progress wrote %q", quiet.String())
	}

	var tty bytes.Buffer
	p = newCaseProgress(&tty, true)
	p.update(run.Progress{Done: 1, TotalBytes: 4_000_000, ReadBytes: 1_000_000})
	time.Sleep(150 * time.Millisecond) // past the redraw throttle
	p.update(run.Progress{Done: 2, TotalBytes: 4_000_000, ReadBytes: 2_000_000})
	bar := regexp.MustCompile(`replaying · \d+ cases +\d+% \|[█ ]+\| \([0-9. ]+[kMG]?B/4\.0 MB.*\) \[\d+s:\d+s\]`)
	if !bar.MatchString(tty.String()) {
		t.Errorf("the bar lacks the count, percentage, total or time left: %q", tty.String())
	}

	var spin bytes.Buffer // stdin: no total, a counter of cases and no "1/-"
	p = newCaseProgress(&spin, true)
	p.update(run.Progress{Done: 1})
	time.Sleep(150 * time.Millisecond)
	p.update(run.Progress{Done: 2})
	if !regexp.MustCompile(`replaying · [12] cases .*\([0-9.]+ cases/s\)`).MatchString(spin.String()) || strings.Contains(spin.String(), "/-") {
		t.Errorf("the counter lacks the cases: %q", spin.String())
	}
}
