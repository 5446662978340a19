//go:build !amd64 || purego

package blake3x

// hasAVX512 is false: this build has no vector kernel.
const hasAVX512 = false

// hashChunks is the kernel's chunk hashing, in Go in this build.
func hashChunks(in *[batchLen]byte, ctr *[2][lanes]uint32, out *[lanes]cv) {
	portableChunks(in, ctr, out)
}

// hashParents is the kernel's parent hashing, in Go in this build.
func hashParents(in *[2 * lanes]cv, out *[lanes]cv) { portableParents(in, out) }
