package run

import (
	"encoding/hex"
	"hash"

	"github.com/zeebo/blake3"

	"github.com/strata-eval/strata-eval/results"
)

// newInputHash returns the hash of an input's bytes for the report: BLAKE3-256, what `b3sum`
// prints. It is computed as the input is read, on the reading goroutine, in about half the CPU
// time of SHA-256 even with the CPU's SHA extensions (github.com/zeebo/blake3, AVX2 where the
// CPU has it).
func newInputHash() hash.Hash { return blake3.New() }

// inputInfo is the report's entry for an input of n bytes hashed by h (newInputHash).
func inputInfo(path string, n int64, h hash.Hash) results.Input {
	return results.Input{Path: path, Bytes: n, BLAKE3: hex.EncodeToString(h.Sum(nil))}
}
