package vecscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// nextWindowHashBytewise is NextWindowHash a position at a time: its oracle.
func nextWindowHashBytewise(s string, i int, bits uint) int {
	for ; i < len(s); i++ {
		if uint64(WindowHash(s, i))>>(32-bits) == 0 {
			return i
		}
	}
	return len(s)
}

// TestNextWindowHash walks texts of many kinds from every start, under selections from every
// position to 1 in 4096, and compares each position found with the walk a byte at a time.
func TestNextWindowHash(t *testing.T) {
	raw := make([]byte, 5000)
	rand.NewChaCha8([32]byte{5}).Read(raw)
	texts := []string{string(raw), strings.Repeat("2026-12-01 INFO done in 56ms\n", 200), strings.Repeat("\x00", 300), "0123456789abcdef"}
	for ti, s := range texts {
		for _, bits := range []uint{0, 1, 4, 8, 10, 12} {
			for start := 8; start < min(len(s), 200); start++ {
				for i := start; i < len(s); i++ {
					got, want := NextWindowHash(s, i, bits), nextWindowHashBytewise(s, i, bits)
					if got != want {
						t.Fatalf("text %d, bits %d, from %d: %d, byte walk %d", ti, bits, i, got, want)
					}
					i = got
				}
			}
		}
	}
}

func FuzzNextWindowHash(f *testing.F) {
	f.Add(strings.Repeat("abcdefgh0123", 10), uint8(10), uint8(8))
	f.Fuzz(func(t *testing.T, s string, bits, from uint8) {
		b := uint(bits % 16)
		i := 8 + int(from)
		if i > len(s) {
			return
		}
		if got, want := NextWindowHash(s, i, b), nextWindowHashBytewise(s, i, b); got != want {
			t.Fatalf("bits %d, from %d: %d, byte walk %d", b, i, got, want)
		}
	})
}

// BenchmarkNextWindowHash finds the positions of 2 MB of random bytes selected 1 in 1024.
func BenchmarkNextWindowHash(b *testing.B) {
	raw := make([]byte, 2_000_000)
	rand.NewChaCha8([32]byte{7}).Read(raw)
	s := string(raw)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		for i := 8; i < len(s); i++ {
			i = NextWindowHash(s, i, 10)
		}
	}
}
