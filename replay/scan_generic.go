//go:build !amd64 || purego

package replay

// alphaPrefix returns a number of leading bytes of s that are all base64 characters: the
// index of the first other byte, or a shorter prefix that the caller finishes a word at a time.
func alphaPrefix(s string) int { return alphaPrefixSWAR(s) }

// hasAVX2 is false: this build has no vector scan.
const hasAVX2 = false

// alphaPrefixAVX2 is never called in this build (hasAVX2 is false).
func alphaPrefixAVX2(s string) int { return alphaPrefixSWAR(s) }
