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
