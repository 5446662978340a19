package run

import (
	"encoding/hex"
	"testing"
)

// TestInputHashIsBLAKE3 holds the input digest to BLAKE3-256's published test vectors (the
// official test_vectors.json: input byte i is i mod 251), so that `b3sum` agrees with it.
func TestInputHashIsBLAKE3(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
		{1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
	} {
		data := make([]byte, tt.n)
		for i := range data {
			data[i] = byte(i % 251)
		}
		h := newInputHash()
		h.Write(data)
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%d bytes: %s, want %s", tt.n, got, tt.want)
		}
	}
}

// BenchmarkInputHash hashes 64 MiB in writes of 64 KiB, as a replay hashes what it reads.
func BenchmarkInputHash(b *testing.B) {
	piece := make([]byte, 64<<10)
	for i := range piece {
		piece[i] = byte(i*7 + i>>8)
	}
	const total = 64 << 20
	b.SetBytes(total)
	b.ReportAllocs()
	var sum []byte
	for b.Loop() {
		h := newInputHash()
		for range total / len(piece) {
			h.Write(piece)
		}
		sum = h.Sum(sum[:0])
	}
}
