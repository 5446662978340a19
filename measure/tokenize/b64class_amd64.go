//go:build amd64 && !purego

package tokenize

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// b64ClassVector says the CPU classifies the 64 bytes of a block with AVX2; it is read once at
// start and never written.
var b64ClassVector = cpu.X86.HasAVX2

// b64ClassAVX2 writes the class masks of the 64 bytes at p to out: upper-case letters,
// lower-case letters, digits, '+' and '/'. Only call it when b64ClassVector.
//
//go:noescape
func b64ClassAVX2(p unsafe.Pointer, out *[4]uint64)
