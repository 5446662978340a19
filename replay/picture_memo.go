package replay

import (
	"hash/maphash"
	"sync"
	"time"
	"unsafe"

	"github.com/strata-eval/strata-eval/internal/strmemo"
)

// PictureMemo remembers what a run learns about a picture from its bytes: the verdict of the
// picture check (CheckPicture), and the sha256 and declared size its record carries. A
// conversation re-sends its pictures every turn, and every arm meets them again; with a memo a
// picture is inflated and hashed once per run rather than once per request and arm. Each
// figure is a function of the bytes (and the limits) alone, so a remembered figure is the
// figure. A nil *PictureMemo computes everything every time. It is safe for concurrent use.
type PictureMemo struct {
	seeds [2]maphash.Seed

	mu       sync.Mutex
	verdicts map[memoKey]checkVerdict
	facts    map[memoKey]runFacts
	// runTexts remembers the facts of the last runs by the identity of their text (the run's
	// substring of the same tool text string has the same address and length), as many as
	// the lifts (each holds its whole tool text).
	runTexts *strmemo.Memo[runFacts]

	// scans are the runs of the last tool texts scanned, by the text's identity and the
	// minimum run length (see scan).
	scans *strmemo.Keyed[int, textScan]
	// lifts are the last lifts that met a picture, by the text's identity and what else the
	// lift depends on (see lift).
	lifts *strmemo.Keyed[liftKey, textLift]
}

// textScan is the runs NextRun finds in a text with a minimum run length, and the time the
// scan took.
type textScan struct {
	runs  []Run
	nanos int64
}

// Scan limits: a memo keeps the runs of the last maxScans texts (the arms of a case meet the
// same tool texts, one arm after the other), holding at most maxScanBytes of text.
const (
	maxScans     = 16
	maxScanBytes = 32 << 20
)

// memoKey identifies bytes as the count cache keys text (measure.textKey): the length and two
// 64-bit maphash values under independent seeds drawn per process, so that bytes cannot be
// crafted to collide (about 2⁻¹²⁸ per pair of distinct inputs of one length); what says
// whether the bytes are a picture's or the base64 text of a run, lim the limits of a check.
type memoKey struct {
	lo, hi uint64
	n      int
	what   memoSubject
	lim    PictureLimits
}

// memoSubject says what a memo key's bytes are.
type memoSubject uint8

const (
	memoPictureBytes memoSubject = iota // a picture's decoded bytes
	memoRunText                         // the text of a base64 run, escapes included
)

type checkVerdict struct {
	info PictureInfo
	err  error
}

type runFacts struct {
	facts pictureFacts
	ok    bool
}

// Memo limits: inputs under minMemoBytes are computed directly (that costs about what the
// look-up does); each table is emptied when it reaches maxMemoEntries.
const (
	minMemoBytes   = 4 << 10
	maxMemoEntries = 1 << 14
)

// NewPictureMemo returns an empty memo.
func NewPictureMemo() *PictureMemo {
	return &PictureMemo{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		verdicts: map[memoKey]checkVerdict{}, facts: map[memoKey]runFacts{},
		runTexts: strmemo.New[runFacts](minMemoBytes, maxLifts, maxLiftBytes),
		scans:    strmemo.NewKeyed[int, textScan](minMemoBytes, maxScans, maxScanBytes),
		lifts:    strmemo.NewKeyed[liftKey, textLift](minMemoBytes, maxLifts, maxLiftBytes)}
}

func (m *PictureMemo) key(b []byte, what memoSubject, lim PictureLimits) memoKey {
	return memoKey{lo: maphash.Bytes(m.seeds[0], b), hi: maphash.Bytes(m.seeds[1], b), n: len(b), what: what, lim: lim}
}

// remember returns the memo's value for key in table, computing and storing it when absent.
func remember[V any](m *PictureMemo, table map[memoKey]V, key memoKey, compute func() V) V {
	m.mu.Lock()
	v, ok := table[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	m.mu.Lock()
	if len(table) >= maxMemoEntries {
		clear(table)
	}
	table[key] = v
	m.mu.Unlock()
	return v
}

// memoPicture is a picture's bytes met once, for the look-ups made about them: the bytes are
// hashed at the first look-up that needs their key, and that key serves the others (a part
// whose facts are recorded and that is then checked is hashed once, not twice).
type memoPicture struct {
	m     *PictureMemo
	data  []byte
	key   memoKey // the key of the bytes, lim unset; valid when keyed
	keyed bool
}

// picture returns data for look-ups in m (a nil m computes everything every time).
func (m *PictureMemo) picture(data []byte) memoPicture { return memoPicture{m: m, data: data} }

// holds says whether p is data itself (the same bytes at the same address), not a copy.
func (p *memoPicture) holds(data []byte) bool {
	return len(data) > 0 && len(p.data) == len(data) && unsafe.SliceData(p.data) == unsafe.SliceData(data)
}

// memoized says whether the look-ups go through the memo: not for a nil memo or small bytes.
func (p *memoPicture) memoized() bool { return p.m != nil && len(p.data) >= minMemoBytes }

// keyFor returns the key of the bytes under the limits lim, hashing them the first time.
func (p *memoPicture) keyFor(lim PictureLimits) memoKey {
	if !p.keyed {
		p.key, p.keyed = p.m.key(p.data, memoPictureBytes, PictureLimits{}), true
	}
	k := p.key
	k.lim = lim
	return k
}

// check returns CheckPicture(p.data, lim), remembered.
func (p *memoPicture) check(lim PictureLimits) (PictureInfo, error) {
	if !p.memoized() {
		return CheckPicture(p.data, lim)
	}
	data := p.data
	v := remember(p.m, p.m.verdicts, p.keyFor(lim), func() checkVerdict {
		info, err := CheckPicture(data, lim)
		return checkVerdict{info: info, err: err}
	})
	return v.info, v.err
}

// describe returns describePictureBytes(p.data), remembered.
func (p *memoPicture) describe() pictureFacts {
	if !p.memoized() {
		return describePictureBytes(p.data)
	}
	data := p.data
	return remember(p.m, p.m.facts, p.keyFor(PictureLimits{}), func() runFacts {
		return runFacts{facts: describePictureBytes(data), ok: true}
	}).facts
}

// Check returns CheckPicture(data, lim), from memory when the same bytes were checked under
// the same limits before.
func (m *PictureMemo) Check(data []byte, lim PictureLimits) (PictureInfo, error) {
	pic := m.picture(data)
	return pic.check(lim)
}

// describeBytes returns describePictureBytes(data), remembered.
func (m *PictureMemo) describeBytes(data []byte) pictureFacts {
	pic := m.picture(data)
	return pic.describe()
}

// describeRun returns describeRun(text, r), remembered by the run's text: a picture that is
// only recorded is neither decoded nor hashed again, and the run of a text met again as the
// same string is not even hashed (runTexts).
func (m *PictureMemo) describeRun(text string, r Run) (pictureFacts, bool) {
	run := text[r.Start:r.End]
	if m == nil || len(run) < minMemoBytes {
		return describeRun(text, r)
	}
	v := m.runTexts.Get(run, func(run string) runFacts {
		return remember(m, m.facts, m.key(stringBytes(run), memoRunText, PictureLimits{}), func() runFacts {
			f, ok := describeRun(text, r)
			return runFacts{facts: f, ok: ok}
		})
	})
	return v.facts, v.ok
}

// runs returns every run NextRun finds in text with at least minRun characters, in order (see
// scan).
func (m *PictureMemo) runs(text string, minRun int) []Run {
	runs, _ := m.scan(text, minRun)
	return runs
}

// scan returns every run NextRun finds in text with at least minRun characters, in order. A
// text met again (the same string at the same address: another arm of the case) is not
// scanned again: remembered is then the time its scan took, 0 when text was scanned now. A nil
// memo, a short text or one past maxScanBytes is always scanned. The runs are shared: callers
// do not modify them.
func (m *PictureMemo) scan(text string, minRun int) (runs []Run, remembered int64) {
	if m == nil {
		return scanRuns(text, minRun), 0
	}
	if sc, ok := m.scans.Lookup(text, minRun); ok {
		return sc.runs, sc.nanos
	}
	start := time.Now()
	runs = scanRuns(text, minRun)
	m.scans.Put(text, minRun, textScan{runs: runs, nanos: time.Since(start).Nanoseconds()}, len(text))
	return runs, 0
}

// liftKey is what a lift depends on besides its text (by its identity): the Lifter's settings
// and the pictures it had lifted before (the cap counts them).
type liftKey struct {
	settings liftSettings
	lifted   int
}

// textLift is a lift remembered: what the lift made of its text, the pictures it lifted and
// its scan time.
type textLift struct {
	lift   TextLift
	lifted int
	nanos  int64
}

// Lift limits: a memo keeps the last maxLifts lifts that met a picture (the arms of a case
// lift the same tool texts, and so do the next requests of a conversation when their reader
// hands over the re-sent texts as the same strings), holding at most maxLiftBytes.
const (
	maxLifts     = 8
	maxLiftBytes = 16 << 20
)

// lift returns the remembered lift of text under key (a nil memo remembers none).
func (m *PictureMemo) lift(text string, key liftKey) (textLift, bool) {
	if m == nil {
		return textLift{}, false
	}
	return m.lifts.Lookup(text, key)
}

// rememberLift remembers the lift t of text under key, which lifted lifted pictures and took
// nanos to scan: only a lift that met a picture (one that met none costs its scan, which scan
// remembers), kept with what it holds alive (the text, the lifted text, the pictures' decoded
// bytes). The memo keeps a copy of t.
func (m *PictureMemo) rememberLift(text string, key liftKey, t TextLift, lifted int, nanos int64) {
	if m == nil || len(t.Pictures) == 0 {
		return
	}
	size := len(text) + len(t.Text)
	for _, p := range t.Pictures {
		if p.Image != nil {
			size += len(p.Image.Data)
		}
	}
	m.lifts.Put(text, key, textLift{lift: t.clone(), lifted: lifted, nanos: nanos}, size)
}

// scanRuns returns every run NextRun finds in text with at least minRun characters, in order.
func scanRuns(text string, minRun int) []Run {
	var runs []Run
	for from := 0; ; {
		r, ok := NextRun(text, from, minRun)
		if !ok {
			return runs
		}
		runs = append(runs, r)
		from = r.End
	}
}
