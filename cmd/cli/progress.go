package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/strata-eval/strata-eval/run"
)

// caseProgress shows how far a replay is on stderr, and only when stderr is a terminal; data
// on stdout is never mixed with it. With the size of the inputs known it is a bar over the
// bytes read (of the files named, or of the embedded corpus), with the total and the time left;
// otherwise (stdin) a counter of cases.
type caseProgress struct {
	w        io.Writer
	terminal bool
	bar      *progressbar.ProgressBar
	total    int64
}

// newCaseProgress returns the progress display on w, a no-op unless w is a terminal. The bar
// is made at the first report, which tells whether the total is known.
func newCaseProgress(w io.Writer, terminal bool) *caseProgress {
	return &caseProgress{w: w, terminal: terminal}
}

// start makes the bar for inputs of total bytes (0: unknown).
func (p *caseProgress) start(total int64) {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("replaying"),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
	}
	p.total = total
	if total <= 0 { // stdin: a spinner and the cases done so far, no "1/-"
		opts = append(opts, progressbar.OptionSetItsString("cases"), progressbar.OptionShowIts())
		p.bar = progressbar.NewOptions(-1, opts...)
		return
	}
	opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30))
	p.bar = progressbar.NewOptions64(total, opts...)
}

// update shows a progress report of the run.
func (p *caseProgress) update(pr run.Progress) {
	if !p.terminal {
		return
	}
	if p.bar == nil {
		p.start(pr.TotalBytes)
	}
	if p.total <= 0 {
		p.bar.Describe(fmt.Sprintf("replaying · %d cases", pr.Done))
		_ = p.bar.Add(1)
		return
	}
	p.bar.Describe(fmt.Sprintf("replaying · %d cases", pr.Done))
	_ = p.bar.Set64(pr.ReadBytes)
}

// finish clears the display.
func (p *caseProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
