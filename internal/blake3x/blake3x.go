// Package blake3x hashes with BLAKE3-256 (what `b3sum` prints), 16 whole chunks of 1 KiB at a
// time with AVX-512 where the CPU has it. Elsewhere New returns github.com/zeebo/blake3's hasher,
// whose AVX2 and SSE4.1 kernels are the faster ones there.
//
// The input is cut into chunks of 1 KiB, each hashed into a chaining value (CV), and the CVs
// are joined pairwise by parent nodes into BLAKE3's binary tree. Whole batches of 16 chunks go
// to the vector kernel as they arrive; their CVs wait, level by level, until 32 are there, and
// the kernel joins those into 16 parents of the level above, so that parents too are hashed 16
// at a time. A chunk or parent hashed this way is never the root: a batch holds 16 chunks and a
// join 32 CVs. Above the vector levels the CVs go to the usual BLAKE3 stack, merged only when
// the next one comes; Sum hashes what is left and joins it all up to the root.
package blake3x

import (
	"encoding/binary"
	"hash"
	"math/bits"

	"github.com/zeebo/blake3"
)

const (
	chunkLen = 1024
	blockLen = 64
	lanes    = 16
	// batchLen is what the kernel hashes in one call: one chunk per lane.
	batchLen = lanes * chunkLen
	// vectorLevels is how many levels of the tree join their CVs with the kernel: a CV of the
	// level above stands for 2^vectorLevels chunks (16 MiB) and goes to the stack.
	vectorLevels = 14
	// maxDepth bounds the stack: one CV per bit of a count of chunks (2^64 bytes is 2^54
	// chunks) and the one pushed on them.
	maxDepth = 55
)

// The domain flags of BLAKE3's compression function.
const (
	flagChunkStart = 1 << 0
	flagChunkEnd   = 1 << 1
	flagParent     = 1 << 2
	flagRoot       = 1 << 3
)

// iv is BLAKE3's initial chaining value (SHA-256's), the key of the plain hash mode.
var iv = [8]uint32{0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19}

// cv is a chaining value: the first eight words of a compression's output.
type cv = [8]uint32

// New returns a BLAKE3-256 hash: this package's where the CPU has AVX-512, zeebo/blake3's
// elsewhere.
func New() hash.Hash {
	if !hasAVX512 {
		return blake3.New()
	}
	return newHasher(true)
}

// hasher is the incremental BLAKE3-256 hash of this package. It does not allocate after New.
type hasher struct {
	// vector says the batches and joins go to the AVX-512 kernel, else to the portable one.
	vector bool
	// buf holds the input not hashed yet, less than a batch between calls.
	buf [batchLen]byte
	n   int
	// chunks counts the chunks hashed so far, all whole: buf starts at chunk chunks.
	chunks uint64
	// pending holds, per level l, the CVs of subtrees of 2^l chunks waiting for their parents:
	// 0 or 16 of them between calls.
	pending  [vectorLevels][2 * lanes]cv
	npending [vectorLevels]int
	// stack holds the CVs above the vector levels.
	stack cvStack
	// ctr is the kernel's per-lane chunk counters, low and high words.
	ctr [2][lanes]uint32
}

func newHasher(vector bool) *hasher { return &hasher{vector: vector} }

// Size is 32: BLAKE3-256.
func (h *hasher) Size() int { return 32 }

// BlockSize is BLAKE3's block of 64 bytes.
func (h *hasher) BlockSize() int { return blockLen }

// Reset forgets the input.
func (h *hasher) Reset() {
	h.n = 0
	h.chunks = 0
	h.npending = [vectorLevels]int{}
	h.stack.n = 0
}

// Write adds p to the input; it never fails. Whole batches go straight from p to the kernel.
func (h *hasher) Write(p []byte) (int, error) {
	written := len(p)
	if h.n > 0 {
		k := copy(h.buf[h.n:], p)
		h.n += k
		p = p[k:]
		if h.n < batchLen {
			return written, nil
		}
		h.hashBatch((*[batchLen]byte)(h.buf[:]))
		h.n = 0
	}
	for len(p) >= batchLen {
		h.hashBatch((*[batchLen]byte)(p))
		p = p[batchLen:]
	}
	h.n = copy(h.buf[:], p)
	return written, nil
}

// hashBatch hashes 16 whole chunks into CVs of level 0 and joins the levels that fill.
func (h *hasher) hashBatch(in *[batchLen]byte) {
	np := h.npending[0]
	h.chunkCVs(in, h.chunks, (*[lanes]cv)(h.pending[0][np:np+lanes]))
	h.chunks += lanes
	h.npending[0] = np + lanes
	for l := 0; l < vectorLevels && h.npending[l] == 2*lanes; l++ {
		h.npending[l] = 0
		if l+1 < vectorLevels {
			np := h.npending[l+1]
			h.parentCVs(&h.pending[l], (*[lanes]cv)(h.pending[l+1][np:np+lanes]))
			h.npending[l+1] = np + lanes
			continue
		}
		var top [lanes]cv
		h.parentCVs(&h.pending[l], &top)
		// The subtrees of the top level are 2^vectorLevels chunks each; count the chunks
		// the stack held before them.
		done := h.chunks - uint64(len(top))<<vectorLevels
		for i := range top {
			h.stack.push(top[i], done+uint64(i)<<vectorLevels)
		}
	}
}

// chunkCVs hashes 16 whole chunks, the first being chunk counter, into their CVs.
func (h *hasher) chunkCVs(in *[batchLen]byte, counter uint64, out *[lanes]cv) {
	setCounters(&h.ctr, counter)
	if h.vector {
		hashChunks(in, &h.ctr, out)
	} else {
		portableChunks(in, &h.ctr, out)
	}
}

// parentCVs joins 32 CVs pairwise into 16 parent CVs.
func (h *hasher) parentCVs(in *[2 * lanes]cv, out *[lanes]cv) {
	if h.vector {
		hashParents(in, out)
	} else {
		portableParents(in, out)
	}
}

// setCounters sets the chunk counters of the 16 lanes from first on.
func setCounters(ctr *[2][lanes]uint32, first uint64) {
	for i := range lanes {
		c := first + uint64(i)
		ctr[0][i], ctr[1][i] = uint32(c), uint32(c>>32)
	}
}

// portableChunks is the kernel's chunk hashing in Go, a lane after the other.
func portableChunks(in *[batchLen]byte, ctr *[2][lanes]uint32, out *[lanes]cv) {
	for i := range out {
		counter := uint64(ctr[0][i]) | uint64(ctr[1][i])<<32
		out[i] = chunkCV(in[i*chunkLen:(i+1)*chunkLen], counter, 0)
	}
}

// portableParents is the kernel's parent hashing in Go, a lane after the other.
func portableParents(in *[2 * lanes]cv, out *[lanes]cv) {
	for i := range out {
		out[i] = parentCV(&in[2*i], &in[2*i+1], flagParent)
	}
}

// Sum appends the hash of the input so far to b; the input may go on after it.
func (h *hasher) Sum(b []byte) []byte {
	var root cv
	if h.chunks == 0 && h.n <= chunkLen {
		root = chunkCV(h.buf[:h.n], 0, flagRoot)
	} else {
		root = h.rootOfTree()
	}
	var out [32]byte
	for i, w := range root {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return append(b, out[:]...)
}

// rootOfTree returns the root of an input of two chunks or more: every CV not joined yet, on
// a copy of the stack, then the joins from the top of it down, the last one flagged as root.
func (h *hasher) rootOfTree() cv {
	st := h.stack
	done := h.chunks
	for l := range vectorLevels {
		done -= uint64(h.npending[l]) << l
	}
	for l := vectorLevels - 1; l >= 0; l-- {
		for i := range h.npending[l] {
			st.push(h.pending[l][i], done)
			done += 1 << l
		}
	}
	// The chunks of buf: the whole ones before the last through the kernel, 16 lanes whatever
	// their number (buf is a whole batch long; the portable one hashes the lanes past them for
	// nothing, once per Sum), the last one on its own.
	whole := 0
	if h.n > 0 {
		whole = (h.n - 1) / chunkLen
	}
	if whole > 0 {
		var cvs [lanes]cv
		var ctr [2][lanes]uint32
		setCounters(&ctr, done)
		if h.vector {
			hashChunks((*[batchLen]byte)(h.buf[:]), &ctr, &cvs)
		} else {
			portableChunks((*[batchLen]byte)(h.buf[:]), &ctr, &cvs)
		}
		for i := range whole {
			st.push(cvs[i], done)
			done++
		}
	}
	if h.n > 0 {
		st.push(chunkCV(h.buf[whole*chunkLen:h.n], done, 0), done)
	}
	right := st.pop()
	for st.n > 1 {
		left := st.pop()
		right = parentCV(&left, &right, flagParent)
	}
	left := st.pop()
	return parentCV(&left, &right, flagParent|flagRoot)
}

// cvStack holds the CVs of whole subtrees in input order, largest first.
type cvStack struct {
	cvs [maxDepth]cv
	n   int
}

// push adds the CV of the subtree that starts at chunk done, after merging the pairs on top
// that the earlier subtrees complete: the stack keeps one CV per bit of done, merged lazily so
// that the last join, which may be the root, waits for Sum.
func (s *cvStack) push(c cv, done uint64) {
	for s.n > bits.OnesCount64(done) {
		right := s.pop()
		left := s.pop()
		s.cvs[s.n] = parentCV(&left, &right, flagParent)
		s.n++
	}
	s.cvs[s.n] = c
	s.n++
}

func (s *cvStack) pop() cv {
	s.n--
	return s.cvs[s.n]
}

// chunkCV returns the CV of one chunk (up to 1 KiB, empty only as the whole input) that is
// chunk counter of the input, its last block compressed with flags added.
func chunkCV(chunk []byte, counter uint64, flags uint32) cv {
	c := iv
	start := uint32(flagChunkStart)
	for len(chunk) > blockLen {
		var m [16]uint32
		loadBlock(&m, chunk[:blockLen])
		c = compress(&c, &m, counter, blockLen, start)
		start = 0
		chunk = chunk[blockLen:]
	}
	var m [16]uint32
	loadBlock(&m, chunk)
	return compress(&c, &m, counter, uint32(len(chunk)), start|flagChunkEnd|flags)
}

// parentCV returns the CV of the parent of left and right.
func parentCV(left, right *cv, flags uint32) cv {
	var m [16]uint32
	copy(m[:8], left[:])
	copy(m[8:], right[:])
	return compress(&iv, &m, 0, blockLen, flags)
}

// loadBlock reads a block of up to 64 bytes into m as little-endian words, zero-padded.
func loadBlock(m *[16]uint32, b []byte) {
	var full [blockLen]byte
	copy(full[:], b)
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(full[4*i:])
	}
}

// msgPermutation is BLAKE3's permutation of the message words between rounds.
var msgPermutation = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

// compress is BLAKE3's compression function, truncated to the CV.
func compress(c *cv, m *[16]uint32, counter uint64, n, flags uint32) cv {
	v := [16]uint32{
		c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
		iv[0], iv[1], iv[2], iv[3], uint32(counter), uint32(counter >> 32), n, flags,
	}
	msg := *m
	for r := range 7 {
		g(&v, 0, 4, 8, 12, msg[0], msg[1])
		g(&v, 1, 5, 9, 13, msg[2], msg[3])
		g(&v, 2, 6, 10, 14, msg[4], msg[5])
		g(&v, 3, 7, 11, 15, msg[6], msg[7])
		g(&v, 0, 5, 10, 15, msg[8], msg[9])
		g(&v, 1, 6, 11, 12, msg[10], msg[11])
		g(&v, 2, 7, 8, 13, msg[12], msg[13])
		g(&v, 3, 4, 9, 14, msg[14], msg[15])
		if r < 6 {
			var next [16]uint32
			for k := range next {
				next[k] = msg[msgPermutation[k]]
			}
			msg = next
		}
	}
	var out cv
	for k := range out {
		out[k] = v[k] ^ v[k+8]
	}
	return out
}

// g is BLAKE3's quarter-round on state words a, b, c, d with message words x and y.
func g(v *[16]uint32, a, b, c, d int, x, y uint32) {
	v[a] += v[b] + x
	v[d] = bits.RotateLeft32(v[d]^v[a], -16)
	v[c] += v[d]
	v[b] = bits.RotateLeft32(v[b]^v[c], -12)
	v[a] += v[b] + y
	v[d] = bits.RotateLeft32(v[d]^v[a], -8)
	v[c] += v[d]
	v[b] = bits.RotateLeft32(v[b]^v[c], -7)
}
