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

	// scans are the runs of the last tool texts scanned, newest last, and scanBytes the sum
	// of their lengths (see runs).
	scanMu    sync.Mutex
	scans     []textScan
	scanBytes int

	// lifts are the last lifts that met a picture, newest last, and liftBytes what they hold
	// (see lift).
	liftMu    sync.Mutex
	lifts     []textLift
	liftBytes int
}

// textScan is the runs NextRun finds in a text with a minimum run length, and the time the
// scan took; it holds the text, so that no other text can take its address while it is
// remembered.
type textScan struct {
	text   string
	minRun int
	runs   []Run
	nanos  int64
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
		runTexts: strmemo.New[runFacts](minMemoBytes, maxLifts, maxLiftBytes)}
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
	if m == nil || len(text) < minMemoBytes || len(text) > maxScanBytes {
		return scanRuns(text, minRun), 0
	}
	m.scanMu.Lock()
	for i := len(m.scans) - 1; i >= 0; i-- {
		if sc := m.scans[i]; sc.minRun == minRun && len(sc.text) == len(text) && unsafe.StringData(sc.text) == unsafe.StringData(text) {
			m.scanMu.Unlock()
			return sc.runs, sc.nanos
		}
	}
	m.scanMu.Unlock()
	start := time.Now()
	runs = scanRuns(text, minRun)
	nanos := time.Since(start).Nanoseconds()
	m.scanMu.Lock()
	defer m.scanMu.Unlock()
	m.scans = append(m.scans, textScan{text: text, minRun: minRun, runs: runs, nanos: nanos})
	m.scanBytes += len(text)
	m.scans = dropOldest(m.scans, &m.scanBytes, maxScans, maxScanBytes, func(sc textScan) int { return len(sc.text) })
	return runs, 0
}

// dropOldest drops the first entries of a memo's list until at most maxEntries are left and
// their size (*size, kept up to date; sizeOf gives an entry's) is at most maxSize.
func dropOldest[E any](entries []E, size *int, maxEntries, maxSize int, sizeOf func(E) int) []E {
	drop := 0
	for len(entries)-drop > maxEntries || *size > maxSize {
		*size -= sizeOf(entries[drop])
		drop++
	}
	if drop == 0 {
		return entries
	}
	k := copy(entries, entries[drop:])
	clear(entries[k:])
	return entries[:k]
}

// liftKey identifies a lift: the text by its identity (the address of its bytes and its
// length), the Lifter's settings and the pictures it had lifted before (the cap counts them).
type liftKey struct {
	data     *byte
	n        int
	settings liftSettings
	lifted   int
}

// textLift is a lift remembered: its text (held, so that no other text can take its address
// while it is remembered), what the lift made of it, the pictures it lifted, its scan time, and
// the bytes it keeps alive (the text and the pictures' decoded bytes).
type textLift struct {
	key    liftKey
	text   string
	lift   TextLift
	lifted int
	nanos  int64
	bytes  int
}

// Lift limits: a memo keeps the last maxLifts lifts that met a picture (the arms of a case
// lift the same tool texts, and so do the next requests of a conversation when their reader
// hands over the re-sent texts as the same strings), holding at most maxLiftBytes.
const (
	maxLifts     = 8
	maxLiftBytes = 16 << 20
)

// lift returns the remembered lift of key (a nil memo remembers none).
func (m *PictureMemo) lift(key liftKey) (textLift, bool) {
	if m == nil {
		return textLift{}, false
	}
	m.liftMu.Lock()
	defer m.liftMu.Unlock()
	for i := len(m.lifts) - 1; i >= 0; i-- {
		if m.lifts[i].key == key {
			return m.lifts[i], true
		}
	}
	return textLift{}, false
}

// rememberLift remembers the lift t of text under key, which lifted lifted pictures and took
// nanos to scan: only a lift that met a picture (one that met none costs its scan, which scan
// remembers) of a text of at least minMemoBytes. The memo keeps a copy of t.
func (m *PictureMemo) rememberLift(key liftKey, text string, t TextLift, lifted int, nanos int64) {
	if m == nil || len(t.Pictures) == 0 || len(text) < minMemoBytes {
		return
	}
	e := textLift{key: key, text: text, lift: t.clone(), lifted: lifted, nanos: nanos, bytes: len(text) + len(t.Text)}
	for _, p := range t.Pictures {
		if p.Image != nil {
			e.bytes += len(p.Image.Data)
		}
	}
	if e.bytes > maxLiftBytes {
		return
	}
	m.liftMu.Lock()
	defer m.liftMu.Unlock()
	m.lifts = append(m.lifts, e)
	m.liftBytes += e.bytes
	m.lifts = dropOldest(m.lifts, &m.liftBytes, maxLifts, maxLiftBytes, func(e textLift) int { return e.bytes })
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
