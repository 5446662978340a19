package vecscan

import "unsafe"

// Multipliers of WindowHash: odd, so each half of the window is mixed into every bit above it.
const (
	windowMulLo = 0x9E3779B1
	windowMulHi = 0x85EBCA77
)

// WindowHash is the hash of the 8 bytes before position i of s (8 ≤ i ≤ len(s)): the two
// little-endian 32-bit halves of the window, each multiplied by its odd constant, added modulo
// 2³². Its top bits select content-defined cut points: they depend on the window alone,
// wherever it lies.
func WindowHash(s string, i int) uint32 {
	return le32(s, i-8)*windowMulLo + le32(s, i-4)*windowMulHi
}

// le32 reads 4 bytes of s at i as a little-endian word.
func le32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// NextWindowHash returns the least position j from i (8 ≤ i) with WindowHash(s, j) under
// 2^(32-bits) (top bits zero; bits 0 passes every position), or len(s) when there is none
// before len(s). With AVX2 it tests 32 positions a step.
func NextWindowHash(s string, i int, bits uint) int {
	shift := 32 - bits
	if bits == 0 {
		shift = 32
	}
	if HasAVX2 && len(s)-i >= 32 {
		// the kernel reads s[i-8 : i+n-1] for n positions, whole blocks of 32
		blocks := (len(s) - i) &^ 31
		for i < len(s) {
			off := windowBlock(unsafe.Pointer(unsafe.StringData(s[i-8:])), blocks, uint64(shift))
			if off == blocks {
				i += blocks
				break
			}
			for j := i + off; j < i+off+32; j++ {
				if uint64(WindowHash(s, j))>>shift == 0 {
					return j
				}
			}
			i += off + 32
			blocks -= off + 32
		}
	}
	for ; i < len(s); i++ {
		if uint64(WindowHash(s, i))>>shift == 0 {
			return i
		}
	}
	return len(s)
}
