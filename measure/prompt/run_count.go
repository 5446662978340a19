package prompt

import (
	"fmt"
	"unsafe"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/thousands"
)

// A base64 run of a tool's text over corpora.LargeBase64Bytes is streamed past while reading
// (corpora.RunCounter): the text holds a marker in its place, and the run is counted as it
// streams by the tokenizer's own provable cuts (isChunkCut: a digit before an ASCII letter, in
// base64). Its characters up to the first cut are kept (Head), those from the first to the
// last cut are counted chunk by chunk (Middle), those after the last are kept (Tail). The text
// then counts as before+Head, Middle and Tail+after, each apart: the tokens of the whole text.

// Bounds of a run counter: the head is at most maxRunStretch characters, the rest is counted
// a runChunk at a time up to its last cut, and a stretch of more than runChunk+maxRunStretch
// without one is not counted (base64 has a cut every 8 characters on average).
const (
	maxRunStretch = 64 << 10
	runChunk      = 256 << 10
)

// NewRunCounter returns a counter of one run streamed past, for the reader
// (corpora.LargeRunOptions). A tokenizer whose pieces the cut rules are not proven for gives
// a counter that says so.
func (c *Counter) NewRunCounter() corpora.RunCounter {
	r := &runCounter{c: c}
	if !c.chunkable {
		r.err = fmt.Sprintf("the tokenizer %s cannot count a run in parts", c.tok.Name())
	}
	return r
}

// runCounter is the corpora.RunCounter of a Counter.
type runCounter struct {
	c     *Counter
	chars int64 // characters written
	head  []byte
	// cut says the first cut was met: pending holds the characters from the last cut counted
	// (or the first cut) on.
	cut     bool
	pending []byte
	middle  int64
	err     string
}

// Write takes the next characters of the run, a bounded piece at a time.
func (r *runCounter) Write(p []byte) {
	r.chars += int64(len(p))
	for len(p) > 0 && r.err == "" {
		n := min(len(p), maxRunStretch)
		r.write(p[:n])
		p = p[n:]
	}
}

func (r *runCounter) write(p []byte) {
	if r.cut {
		r.pending = append(r.pending, p...)
		if len(r.pending) >= runChunk {
			r.countToLastCut()
		}
		return
	}
	from := max(len(r.head), 1)
	r.head = append(r.head, p...)
	for i := from; i < len(r.head); i++ {
		if isRunCut(r.head, i) {
			r.pending = append(make([]byte, 0, runChunk+2*maxRunStretch), r.head[i:]...)
			r.head, r.cut = r.head[:i], true
			return
		}
	}
	if len(r.head) > maxRunStretch {
		r.fail(fmt.Sprintf("no place to cut it in its first %s characters", thousands.Format(int64(maxRunStretch))))
	}
}

// countToLastCut counts pending up to its last cut and keeps the rest; pending longer than a
// chunk and a stretch without a cut past its start fails the count.
func (r *runCounter) countToLastCut() {
	i := len(r.pending) - 1
	for i > 0 && !isRunCut(r.pending, i) {
		i--
	}
	if i == 0 {
		if len(r.pending) > runChunk+maxRunStretch {
			r.fail(fmt.Sprintf("%s characters without a place to cut them", thousands.Format(int64(len(r.pending)))))
		}
		return
	}
	// The tokenizer reads the bytes in place and keeps none of them: no copy of each chunk.
	r.middle += int64(r.c.tok.Count(unsafe.String(&r.pending[0], i)))
	r.pending = r.pending[:copy(r.pending, r.pending[i:])]
}

func (r *runCounter) fail(msg string) {
	r.err = msg
	r.head, r.pending = nil, nil
}

// Finish ends the run and returns its count.
func (r *runCounter) Finish() corpora.RunCount {
	name := r.c.tok.Name()
	if r.err == "" && !r.cut {
		r.fail("no place to cut it")
	}
	if r.err != "" {
		return corpora.RunCount{Tokenizer: name, Err: fmt.Sprintf("a base64 run of %s characters streamed past could not be counted: %s", thousands.Format(r.chars), r.err)}
	}
	r.countToLastCut()
	return corpora.RunCount{Tokenizer: name, Head: string(r.head), Middle: r.middle, Tail: string(r.pending)}
}

// isRunCut says whether i (0 < i < len(run)) is a provable cut of a base64 run's characters:
// isChunkCut's digit before an ASCII letter, the only kind of cut a run holds (it has no
// newline; TestRunCutIsChunkCut).
func isRunCut(run []byte, i int) bool { return digitLetterCut(run[i-1], run[i]) }

// runCountOf returns the count of a run streamed past, or why the text holding it cannot be
// counted by c.
func (c *Counter) runCountOf(r corpora.LargeRun) (*corpora.RunCount, error) {
	switch {
	case r.Count == nil:
		return nil, fmt.Errorf("a base64 run of %s characters in a tool text was streamed past without a count", thousands.Format(r.Chars))
	case r.Count.Err != "":
		return nil, fmt.Errorf("%s", r.Count.Err)
	case r.Count.Tokenizer != c.tok.Name():
		return nil, fmt.Errorf("a base64 run of %s characters in a tool text was counted with %s, not %s", thousands.Format(r.Chars), r.Count.Tokenizer, c.tok.Name())
	}
	return r.Count, nil
}
