package run

import (
	"sync"
	"sync/atomic"

	"github.com/strata-eval/strata-eval/records"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// thumbnailer makes the thumbnails of the report page as the cases are replayed: the workers
// make one per digest (take), and the cases, admitted in input order (admit), choose which go
// into the report, so that the report is the same for any number of workers.
type thumbnailer struct {
	mu   sync.Mutex
	made map[string]*madeThumbnail
	// full says the page's budget is spent: nothing more is made.
	full atomic.Bool
	// set is the report's thumbnails; only the goroutine that admits cases touches it.
	set results.ThumbnailSet
}

// madeThumbnail is one digest's thumbnail, made once by the first worker that meets it; the
// others wait for it.
type madeThumbnail struct {
	once sync.Once
	t    records.Thumbnail
	ok   bool
}

func newThumbnailer() *thumbnailer {
	return &thumbnailer{made: map[string]*madeThumbnail{}}
}

// take makes the thumbnails of the pictures an arm met (a nil thumbnailer makes none; nor for
// bytes that are no picture or failed the picture check), adds their digests to took, and drops
// the pictures' bytes from the records, so that the report keeps no picture.
func (t *thumbnailer) take(pics []replay.PictureRecord, took map[string]bool) {
	for i := range pics {
		p := &pics[i]
		if !p.Problem && p.Type != "" {
			t.make(p.SHA256, p.Data, took)
		}
		p.Data = nil
		if r := p.Resized; r != nil {
			t.make(r.ToSHA256, r.ToData, took)
			r.ToData = nil
		}
	}
}

// make makes the thumbnail of data under digest, once per digest, unless the budget is spent.
func (t *thumbnailer) make(digest string, data []byte, took map[string]bool) {
	if t == nil || digest == "" || len(data) == 0 || t.full.Load() {
		return
	}
	took[digest] = true
	t.mu.Lock()
	m, ok := t.made[digest]
	if !ok {
		m = &madeThumbnail{}
		t.made[digest] = m
	}
	t.mu.Unlock()
	m.once.Do(func() {
		th, err := replay.MakeThumbnail(data)
		m.t, m.ok = th, err == nil
	})
}

// admit adds the thumbnails of a finished case to the report's; cases come in input order,
// and took holds the digests the case's worker made (or waited for), so that what a case
// admits does not hang on what the other workers have done by then.
func (t *thumbnailer) admit(c *results.Case, took map[string]bool) {
	if t == nil || t.set.Cut {
		return
	}
	t.set.Admit(c, func(digest string) (records.Thumbnail, bool) {
		if !took[digest] {
			return records.Thumbnail{}, false
		}
		t.mu.Lock()
		m := t.made[digest]
		t.mu.Unlock()
		if m == nil {
			return records.Thumbnail{}, false
		}
		return m.t, m.ok
	})
	if t.set.Cut {
		t.full.Store(true)
		t.mu.Lock()
		t.made = map[string]*madeThumbnail{}
		t.mu.Unlock()
	}
}

// report puts the admitted thumbnails into rep.
func (t *thumbnailer) report(rep *results.Report) {
	if t == nil {
		return
	}
	rep.Thumbnails, rep.ThumbnailsCut = t.set.List, t.set.Cut
}
