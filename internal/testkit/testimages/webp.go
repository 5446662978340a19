package testimages

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"sort"
)

// WebP lossless (VP8L) encoding, after the "WebP Lossless Bitstream Specification"
// (RFC 9649): no transforms, no colour cache, no backward references, one prefix-code group
// whose codes are built from the picture's own histograms. The result is larger than what
// libwebp writes but is a valid, exact WebP.

// vp8lMaxSide is the largest width or height the 14-bit header fields can carry.
const vp8lMaxSide = 1 << 14

// Alphabet sizes of the five prefix codes of a group without a colour cache.
const (
	greenAlphabet    = 256 + 24 // literals + length prefix codes
	literalAlphabet  = 256
	distanceAlphabet = 40
	codeLengthCodes  = 19
	maxCodeLength    = 15 // longest code of a main prefix code
	maxCodeLenLength = 7  // longest code of the code-length code (3-bit field)
)

// codeLengthCodeOrder is the order in which the code-length code lengths are written.
var codeLengthCodeOrder = [codeLengthCodes]int{17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// EncodeWebP encodes m as a lossless WebP (a RIFF container holding one VP8L chunk).
// Colours are stored exactly, straight (not premultiplied) alpha included.
func EncodeWebP(m image.Image) ([]byte, error) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < 1 || h < 1 || w > vp8lMaxSide || h > vp8lMaxSide {
		return nil, fmt.Errorf("encode webp: size %dx%d outside 1..%d", w, h, vp8lMaxSide)
	}
	// Channels in coding order: green, red, blue, alpha.
	pix := make([][4]uint8, 0, w*h)
	var hist [4][]uint32
	hist[0] = make([]uint32, greenAlphabet)
	for i := 1; i < 4; i++ {
		hist[i] = make([]uint32, literalAlphabet)
	}
	alphaUsed := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
			p := [4]uint8{c.G, c.R, c.B, c.A}
			pix = append(pix, p)
			for i, v := range p {
				hist[i][v]++
			}
			if c.A != 0xFF {
				alphaUsed = true
			}
		}
	}

	var bw bitWriter
	bw.write(0x2F, 8) // VP8L signature
	bw.write(uint32(w-1), 14)
	bw.write(uint32(h-1), 14)
	if alphaUsed {
		bw.write(1, 1)
	} else {
		bw.write(0, 1)
	}
	bw.write(0, 3) // version
	bw.write(0, 1) // no transform
	bw.write(0, 1) // no colour cache
	bw.write(0, 1) // no meta prefix codes: one group for the whole picture

	var codes [4]prefixCode
	for i := range codes {
		codes[i] = writePrefixCode(&bw, hist[i])
	}
	writePrefixCode(&bw, make([]uint32, distanceAlphabet)) // unused: a one-symbol code
	for _, p := range pix {
		for i, v := range p {
			codes[i].put(&bw, int(v))
		}
	}
	data := bw.bytes()

	chunk := len(data) + len(data)&1
	out := make([]byte, 0, 20+chunk)
	out = append(out, "RIFF"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(4+8+chunk))
	out = append(out, "WEBPVP8L"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(data)))
	out = append(out, data...)
	if len(data)&1 == 1 {
		out = append(out, 0)
	}
	return out, nil
}

// bitWriter writes bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

// write appends the low nbits (at most 32) of v.
func (w *bitWriter) write(v uint32, nbits uint) {
	w.acc |= uint64(v&(1<<nbits-1)) << w.n
	w.n += nbits
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// bytes flushes the last partial byte and returns everything written.
func (w *bitWriter) bytes() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.buf
}

// prefixCode is a prefix code ready for writing: per symbol, its bits in writing order and
// their count (zero-bit codes are fine: a one-symbol code costs nothing per symbol).
type prefixCode struct {
	bits    []uint32
	lengths []uint8
}

func (c prefixCode) put(w *bitWriter, symbol int) {
	w.write(c.bits[symbol], uint(c.lengths[symbol]))
}

// writePrefixCode writes the code for a histogram and returns it. One or two used symbols
// below 256 use the "simple" form; anything else a normal code with length-limited lengths.
func writePrefixCode(w *bitWriter, hist []uint32) prefixCode {
	var used []int
	for s, n := range hist {
		if n > 0 {
			used = append(used, s)
		}
	}
	code := prefixCode{bits: make([]uint32, len(hist)), lengths: make([]uint8, len(hist))}
	if len(used) == 0 {
		used = []int{0}
	}
	if len(used) <= 2 && used[len(used)-1] < 256 {
		w.write(1, 1) // simple code
		w.write(uint32(len(used)-1), 1)
		if used[0] <= 1 {
			w.write(0, 1)
			w.write(uint32(used[0]), 1)
		} else {
			w.write(1, 1)
			w.write(uint32(used[0]), 8)
		}
		if len(used) == 2 {
			w.write(uint32(used[1]), 8)
			code.bits[used[1]], code.lengths[used[0]], code.lengths[used[1]] = 1, 1, 1
		}
		return code
	}

	lengths := limitedLengths(hist, maxCodeLength)
	tokens := lengthTokens(lengths)
	var tokenHist [codeLengthCodes]uint32
	for _, t := range tokens {
		tokenHist[t.symbol]++
	}
	tokenLengths := limitedLengths(tokenHist[:], maxCodeLenLength)
	tokenCode := canonical(tokenLengths)
	if countUsed(tokenLengths) == 1 {
		// A code with one symbol has zero bits per symbol; its length field must still be set.
		tokenCode = prefixCode{bits: make([]uint32, codeLengthCodes), lengths: make([]uint8, codeLengthCodes)}
	}

	w.write(0, 1) // normal code
	count := 4
	for i, s := range codeLengthCodeOrder {
		if tokenLengths[s] != 0 && i+1 > count {
			count = i + 1
		}
	}
	w.write(uint32(count-4), 4)
	for _, s := range codeLengthCodeOrder[:count] {
		w.write(uint32(tokenLengths[s]), 3)
	}
	w.write(0, 1) // max_symbol: all symbols of the alphabet are coded
	for _, t := range tokens {
		tokenCode.put(w, t.symbol)
		if t.extraBits > 0 {
			w.write(uint32(t.extra), t.extraBits)
		}
	}
	return canonical(lengths)
}

func countUsed(lengths []uint8) int {
	n := 0
	for _, l := range lengths {
		if l > 0 {
			n++
		}
	}
	return n
}

// lengthToken is one symbol of the code-length code with its extra bits.
type lengthToken struct {
	symbol    int
	extra     int
	extraBits uint
}

// lengthTokens run-length codes code lengths: 17 and 18 for runs of zeros, 16 to repeat the
// previous non-zero length (which starts as 8), literals otherwise.
func lengthTokens(lengths []uint8) []lengthToken {
	var out []lengthToken
	prev := uint8(8)
	for i := 0; i < len(lengths); {
		v := lengths[i]
		run := 1
		for i+run < len(lengths) && lengths[i+run] == v {
			run++
		}
		i += run
		if v == 0 {
			for run >= 11 {
				n := min(run, 138)
				out = append(out, lengthToken{symbol: 18, extra: n - 11, extraBits: 7})
				run -= n
			}
			if run >= 3 {
				out = append(out, lengthToken{symbol: 17, extra: run - 3, extraBits: 3})
				run = 0
			}
			for ; run > 0; run-- {
				out = append(out, lengthToken{symbol: 0})
			}
			continue
		}
		if v != prev {
			out = append(out, lengthToken{symbol: int(v)})
			prev = v
			run--
		}
		for run >= 3 {
			n := min(run, 6)
			out = append(out, lengthToken{symbol: 16, extra: n - 3, extraBits: 2})
			run -= n
		}
		for ; run > 0; run-- {
			out = append(out, lengthToken{symbol: int(v)})
		}
	}
	return out
}

// limitedLengths returns Huffman code lengths for hist, none longer than limit. Unused
// symbols get 0; a single used symbol gets 1. When the optimal code is too deep the counts
// are flattened and the code rebuilt, which always ends: equal counts give a balanced tree.
func limitedLengths(hist []uint32, limit int) []uint8 {
	counts := append([]uint32(nil), hist...)
	for {
		lengths, deepest := huffmanLengths(counts)
		if deepest <= limit {
			return lengths
		}
		for i, n := range counts {
			if n > 0 {
				counts[i] = n/2 + 1
			}
		}
	}
}

// huffmanLengths builds an optimal prefix code for the counts and returns its lengths and
// the longest one. Ties are broken by symbol, so the result is deterministic.
func huffmanLengths(counts []uint32) ([]uint8, int) {
	type node struct {
		weight uint64
		parent int
	}
	var nodes []node
	var leaves []int // symbol of each leaf node
	for s, n := range counts {
		if n > 0 {
			nodes = append(nodes, node{weight: uint64(n), parent: -1})
			leaves = append(leaves, s)
		}
	}
	lengths := make([]uint8, len(counts))
	switch len(leaves) {
	case 0:
		return lengths, 0
	case 1:
		lengths[leaves[0]] = 1
		return lengths, 1
	}
	order := make([]int, len(leaves))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return nodes[order[a]].weight < nodes[order[b]].weight })
	// Two queues: leaves in weight order, and internal nodes, created in weight order.
	var internal []int
	li, ii := 0, 0
	pick := func() int {
		if li < len(order) && (ii >= len(internal) || nodes[order[li]].weight <= nodes[internal[ii]].weight) {
			li++
			return order[li-1]
		}
		ii++
		return internal[ii-1]
	}
	for k := 0; k < len(leaves)-1; k++ {
		a, b := pick(), pick()
		nodes = append(nodes, node{weight: nodes[a].weight + nodes[b].weight, parent: -1})
		parent := len(nodes) - 1
		nodes[a].parent, nodes[b].parent = parent, parent
		internal = append(internal, parent)
	}
	deepest := 0
	for i, s := range leaves {
		depth := 0
		for n := i; nodes[n].parent >= 0; n = nodes[n].parent {
			depth++
		}
		lengths[s] = uint8(depth)
		deepest = max(deepest, depth)
	}
	return lengths, deepest
}

// canonical assigns canonical codes to the lengths (shorter first, then by symbol, as in
// DEFLATE) and stores each code bit-reversed, because VP8L reads a code's first bit first
// from the least significant end.
func canonical(lengths []uint8) prefixCode {
	code := prefixCode{bits: make([]uint32, len(lengths)), lengths: append([]uint8(nil), lengths...)}
	var perLength [maxCodeLength + 2]uint32
	for _, l := range lengths {
		perLength[l]++
	}
	perLength[0] = 0
	var next [maxCodeLength + 2]uint32
	c := uint32(0)
	for l := 1; l < len(next); l++ {
		c = (c + perLength[l-1]) << 1
		next[l] = c
	}
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		v := next[l]
		next[l]++
		var r uint32
		for i := uint8(0); i < l; i++ {
			r = r<<1 | (v>>i)&1
		}
		code.bits[s] = r
	}
	return code
}
