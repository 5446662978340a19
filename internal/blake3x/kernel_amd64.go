//go:build amd64 && !purego

package blake3x

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate go run gen_kernel.go -out kernel_amd64.s

// hasAVX512 says the CPU runs the AVX-512 kernel; it is read once at start and never written.
var hasAVX512 = cpu.X86.HasAVX512F

// hash16 compresses, in each of 16 lanes, blocks 64-byte blocks: lane i's at in + i*stride, one
// after the other, from the IV, with the counter of lane i (ctr[0][i] low, ctr[1][i] high
// word), flags on every block, flagStart on the first and flagEnd on the last. It writes lane
// i's chaining value to out[i]. Only call it when hasAVX512.
//
//go:noescape
func hash16(in *byte, stride, blocks uintptr, ctr *[2][lanes]uint32, flags, flagStart, flagEnd uint32, out *[lanes]cv)

// hashChunks hashes 16 whole chunks (lane i's counter in ctr) into their CVs with AVX-512.
func hashChunks(in *[batchLen]byte, ctr *[2][lanes]uint32, out *[lanes]cv) {
	hash16(&in[0], chunkLen, chunkLen/blockLen, ctr, 0, flagChunkStart, flagChunkEnd, out)
}

// hashParents joins 32 CVs pairwise into 16 parent CVs with AVX-512: each pair is one block
// of 64 bytes, in[2i] then in[2i+1].
func hashParents(in *[2 * lanes]cv, out *[lanes]cv) {
	var zero [2][lanes]uint32
	hash16((*byte)(unsafe.Pointer(&in[0])), blockLen, 1, &zero, flagParent, 0, 0, out)
}
