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
