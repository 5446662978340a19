//go:build amd64 && !purego

package vecscan

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// HasAVX2 says the CPU runs the vector scan; it is read once at start and never written.
var HasAVX2 = cpu.X86.HasAVX2

// prefix is Prefix on n bytes at p (n at least 32).
//
//go:noescape
func prefix(p unsafe.Pointer, n int, c *Class) int

// windowBlock returns the offset of the first block of 32 positions, of the n (a multiple of
// 32) from the position 8 bytes past p, that holds a position whose WindowHash has no bit set
// from shift up; n when none does.
//
//go:noescape
func windowBlock(p unsafe.Pointer, n int, shift uint64) int
