package replay

import (
	"testing"

	"github.com/strata-eval/strata-eval/internal/vecscan"
)

// alphaPrefixNaive is the oracle of alphaPrefix: the index of the first byte outside the
// base64 alphabet, or len(s).
func alphaPrefixNaive(s string) int {
	for i := 0; i < len(s); i++ {
		if scanClass[s[i]] != scanAlpha {
			return i
		}
	}
	return len(s)
}

// checkAlphaPrefix checks alphaPrefix (never past the first other byte), and the vector and
// word loops against their exact contracts: the first other byte when it lies in the whole
// blocks of 32 they read, else the length of those blocks.
func checkAlphaPrefix(t *testing.T, s string) {
	t.Helper()
	want := alphaPrefixNaive(s)
	if got := alphaPrefix(s); got > want {
		t.Fatalf("alphaPrefix(%d bytes) = %d, first other byte at %d", len(s), got, want)
	}
	blocks := len(s) &^ 31
	if got := alphaPrefixSWAR(s); got != min(want&^31, blocks) {
		t.Fatalf("alphaPrefixSWAR(%d bytes) = %d, first other byte at %d", len(s), got, want)
	}
	if vecscan.HasAVX2 {
		if got := vecscan.Prefix(s, notBase64); got != min(want, blocks) {
			t.Fatalf("vecscan.Prefix(%d bytes) = %d, first other byte at %d", len(s), got, want)
		}
	}
}

// TestAlphaPrefixEveryByte puts every byte value at every offset of buffers around the block
// sizes (32, 128) in an otherwise all-base64 buffer.
func TestAlphaPrefixEveryByte(t *testing.T) {
	base := fxBase64Noise(300)
	for _, n := range []int{0, 1, 31, 32, 33, 64, 127, 128, 129, 160, 255, 256, 300} {
		checkAlphaPrefix(t, base[:n])
		for pos := 0; pos < n; pos++ {
			buf := []byte(base[:n])
			for c := 0; c < 256; c++ {
				buf[pos] = byte(c)
				checkAlphaPrefix(t, string(buf))
			}
		}
	}
}

func FuzzAlphaPrefix(f *testing.F) {
	f.Add(fxBase64Noise(200))
	f.Add(fxBase64Noise(130) + "\\/" + fxBase64Noise(40))
	f.Add(string(make([]byte, 64)))
	f.Fuzz(func(t *testing.T, s string) {
		checkAlphaPrefix(t, s)
		for k := 1; k < len(s) && k < 40; k++ {
			checkAlphaPrefix(t, s[k:])
		}
	})
}

// TestNotBase64Class: the vector scan's class is exactly the bytes outside the alphabet.
func TestNotBase64Class(t *testing.T) {
	for c := 0; c < 256; c++ {
		if got, want := notBase64.Has(byte(c)), scanClass[c] != scanAlpha; got != want {
			t.Errorf("notBase64.Has(%q) = %v, want %v", rune(c), got, want)
		}
	}
}
