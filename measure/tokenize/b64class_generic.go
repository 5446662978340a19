//go:build !amd64 || purego

package tokenize

import "unsafe"

// b64ClassVector is false: this build has no vector classification.
const b64ClassVector = false

// b64ClassAVX2 is classifyWords on the 64 bytes at p (never called when b64ClassVector is
// false, but correct all the same).
func b64ClassAVX2(p unsafe.Pointer, out *[4]uint64) {
	var b b64Block
	b.classifyWords(unsafe.String((*byte)(p), 64), 0)
	*out = [4]uint64{b.upper, b.lower, b.digit, b.punct}
}
