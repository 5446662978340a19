package cli

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// caseProgress counts finished cases on stderr, and only when stderr is a terminal; data on
// stdout is never mixed with it.
type caseProgress struct {
	bar *progressbar.ProgressBar
}

// newCaseProgress returns a spinner-style counter of cases (the total is unknown while the
// inputs stream in), or a no-op when w is not a terminal.
func newCaseProgress(w io.Writer, terminal bool) *caseProgress {
	if !terminal {
		return &caseProgress{}
	}
	return &caseProgress{bar: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("replaying"),
		progressbar.OptionSetItsString("cases"),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// done counts one finished case.
func (p *caseProgress) done() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// finish clears the counter.
func (p *caseProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
