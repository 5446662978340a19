package replay

import (
	"hash/maphash"
	"sync"
)

// CheckMemo remembers the verdicts of the picture check (CheckPicture) by the picture's bytes,
// so that a picture a conversation re-sends every turn is inflated once per run rather than
// once per request and arm. The check is a function of the bytes and the limits alone, so a
// remembered verdict is the verdict. A nil *CheckMemo checks every time. It is safe for
// concurrent use.
type CheckMemo struct {
	seeds [2]maphash.Seed

	mu       sync.Mutex
	verdicts map[checkKey]checkVerdict
}

// checkKey identifies a picture's bytes as the count cache keys text (measure.textKey): the
// length and two 64-bit maphash values under independent seeds drawn per process, so that
// bytes cannot be crafted to collide (about 2⁻¹²⁸ per pair of distinct pictures of one
// length), with the limits it was checked under.
type checkKey struct {
	lo, hi uint64
	n      int
	lim    PictureLimits
}

type checkVerdict struct {
	info PictureInfo
	err  error
}

// Memo limits: pictures under minMemoBytes are checked directly (their check costs about what
// the look-up does); the memo is emptied when it reaches maxMemoEntries.
const (
	minMemoBytes   = 4 << 10
	maxMemoEntries = 1 << 14
)

// NewCheckMemo returns an empty memo.
func NewCheckMemo() *CheckMemo {
	return &CheckMemo{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, verdicts: map[checkKey]checkVerdict{}}
}

// Check returns CheckPicture(data, lim), from memory when the same bytes were checked under
// the same limits before.
func (m *CheckMemo) Check(data []byte, lim PictureLimits) (PictureInfo, error) {
	if m == nil || len(data) < minMemoBytes {
		return CheckPicture(data, lim)
	}
	key := checkKey{lo: maphash.Bytes(m.seeds[0], data), hi: maphash.Bytes(m.seeds[1], data), n: len(data), lim: lim}
	m.mu.Lock()
	v, ok := m.verdicts[key]
	m.mu.Unlock()
	if ok {
		return v.info, v.err
	}
	info, err := CheckPicture(data, lim)
	m.mu.Lock()
	if len(m.verdicts) >= maxMemoEntries {
		clear(m.verdicts)
	}
	m.verdicts[key] = checkVerdict{info: info, err: err}
	m.mu.Unlock()
	return info, err
}
