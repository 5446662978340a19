//go:build !amd64 || purego

package vecscan

import "unsafe"

// HasAVX2 is false: this build has no vector scan.
const HasAVX2 = false

// prefix is Prefix on n bytes at p, a byte at a time (never called when HasAVX2 is false, but
// correct all the same).
func prefix(p unsafe.Pointer, n int, c *Class) int {
	b := unsafe.Slice((*byte)(p), n&^31)
	for i, x := range b {
		if c.Has(x) {
			return i
		}
	}
	return len(b)
}

// windowBlock is the vector kernel of NextWindowHash, never called without AVX2.
func windowBlock(p unsafe.Pointer, n int, shift uint64) int {
	s := unsafe.String((*byte)(p), n+7)
	for off := 0; off < n; off += 32 {
		for j := off; j < off+32; j++ {
			if uint64(WindowHash(s, j+8))>>shift == 0 {
				return off
			}
		}
	}
	return n
}
