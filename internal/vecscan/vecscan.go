// Package vecscan finds the first byte of a class in a long byte string, 32 bytes at a time
// with AVX2 where the CPU has it. A class is given by two nibble tables, the way a vector
// shuffle tests 32 bytes in three instructions: byte c is in the class when
// lo[c&15] & hi[c>>4] is not zero, so up to eight groups of high nibbles can each pick their
// own low nibbles. It also finds the positions whose 8-byte window hashes under a bound
// (NextWindowHash), 32 positions a step: the content-defined cuts of the token counter.
package vecscan

import "unsafe"

// Class is a set of bytes given by nibble tables (see the package doc), each repeated for the
// two 128-bit lanes of the vector shuffle.
type Class struct {
	lo, hi [32]byte
}

// NewClass returns the class of the bytes c with lo[c&15]&hi[c>>4] != 0.
func NewClass(lo, hi [16]byte) *Class {
	c := new(Class)
	copy(c.lo[:], lo[:])
	copy(c.lo[16:], lo[:])
	copy(c.hi[:], hi[:])
	copy(c.hi[16:], hi[:])
	return c
}

// Has says whether b is in the class.
func (c *Class) Has(b byte) bool { return c.lo[b&15]&c.hi[b>>4] != 0 }

// Prefix returns the index of the first byte of s in class c when it lies in the first
// len(s) rounded down to 32 bytes, else that rounded length: it reads whole blocks of 32 bytes
// only, 128 a step while none is in the class. Only call it when HasAVX2.
func Prefix(s string, c *Class) int {
	if len(s) < 32 {
		return 0
	}
	return prefix(unsafe.Pointer(unsafe.StringData(s)), len(s), c)
}

// PrefixBytes is Prefix of a byte slice.
func PrefixBytes(b []byte, c *Class) int {
	if len(b) < 32 {
		return 0
	}
	return prefix(unsafe.Pointer(unsafe.SliceData(b)), len(b), c)
}

// pastASCII is the class of the bytes from 0x80 (high nibble 8 to F).
var pastASCII = NewClass(
	[16]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	[16]byte{8: 1, 9: 1, 10: 1, 11: 1, 12: 1, 13: 1, 14: 1, 15: 1},
)

// ASCIIPrefix returns the length of the longest prefix of s that is ASCII (no byte from
// 0x80): 32 bytes at a time with AVX2, else eight.
func ASCIIPrefix(s string) int {
	i := 0
	if HasAVX2 {
		i = Prefix(s, pastASCII)
	}
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if x&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s) && s[i] < 0x80; i++ {
	}
	return i
}
