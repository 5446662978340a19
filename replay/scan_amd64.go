//go:build amd64 && !purego

package replay

import "golang.org/x/sys/cpu"

// hasAVX2 says the CPU runs the AVX2 scan; it is read once at start and never written.
var hasAVX2 = cpu.X86.HasAVX2

// alphaPrefixAVX2 returns the index of the first byte of s outside the base64 alphabet when
// it lies in the first len(s) rounded down to 32 bytes, else that rounded length: it reads
// whole blocks of 32 bytes only, 128 a step while all are base64.
//
//go:noescape
func alphaPrefixAVX2(s string) int

// alphaPrefix returns a number of leading bytes of s that are all base64 characters: the
// index of the first other byte, or a shorter prefix that the caller finishes a word at a time.
func alphaPrefix(s string) int {
	if hasAVX2 && len(s) >= 64 {
		// One block in words first: most runs of prose and JSON end within it, and the
		// vector loop pays its set-up only for the long ones.
		if n := alphaPrefixSWAR(s[:32]); n == 0 {
			return 0
		}
		return 32 + alphaPrefixAVX2(s[32:])
	}
	return alphaPrefixSWAR(s)
}
