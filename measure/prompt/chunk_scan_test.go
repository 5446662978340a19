package prompt

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/internal/vecscan"
)

// nextChunkBytewise is the byte-by-byte walk nextChunkIn replaces: its oracle.
func nextChunkBytewise(text string, selectBits uint, final bool) int {
	for i := 8; i < len(text); i++ {
		if prev := text[i-1]; prev-'0' > 9 && prev != '\n' {
			continue
		}
		if h := vecscan.WindowHash(text, i); selectBits > 0 && h>>(32-selectBits) != 0 {
			continue
		}
		if !isChunkCut(text, i) {
			continue
		}
		if !final && text[i] >= utf8.RuneSelf && !utf8.FullRuneInString(text[i:]) {
			continue
		}
		return i
	}
	return len(text)
}

// TestNextChunkMatchesBytewise walks texts of many kinds chunk by chunk, with every selection
// from all candidates to the production 1 in 1024, final or not, and compares each cut.
func TestNextChunkMatchesBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 60_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	texts := []string{
		base64.StdEncoding.EncodeToString(raw),
		strings.Repeat("2026-12-01T21:00:00Z INFO request 1234 done in 56ms\nétat 9é\n", 800),
		string(raw[:20_000]),
		"123456789\n\n\n a1b2c3\n/x\n\tz9Z" + strings.Repeat("9\xe2\x82", 50),
	}
	for ti, text := range texts {
		for _, bits := range []uint{0, 1, 3, 10} {
			for _, final := range []bool{true, false} {
				for rest := text; len(rest) > 0; {
					got, want := nextChunkIn(rest, bits, final), nextChunkBytewise(rest, bits, final)
					if got != want {
						t.Fatalf("text %d, bits %d, final %v, at %d: cut %d, byte walk %d", ti, bits, final, len(text)-len(rest), got, want)
					}
					rest = rest[got:]
				}
			}
		}
	}
}

func FuzzNextChunk(f *testing.F) {
	f.Add("0123456789abcdef\nghij9k", uint8(0), true)
	f.Add(strings.Repeat("a1\n", 20)+"\xe2\x82", uint8(2), false)
	f.Fuzz(func(t *testing.T, text string, bits uint8, final bool) {
		sel := uint(bits % 12)
		for rest := text; len(rest) > 0; {
			got, want := nextChunkIn(rest, sel, final), nextChunkBytewise(rest, sel, final)
			if got != want {
				t.Fatalf("bits %d, final %v: cut %d, byte walk %d (%q)", sel, final, got, want, rest)
			}
			rest = rest[got:]
		}
	})
}

// BenchmarkNextChunk cuts 2 MB of base64 into its chunks (bytewise: the walk it replaced).
func BenchmarkNextChunk(b *testing.B) {
	text := tokentext.BenchInputs()["base64_2MB"]
	for _, c := range []struct {
		name string
		next func(string, uint, bool) int
	}{{"hash_first", nextChunkIn}, {"bytewise", nextChunkBytewise}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for rest := text; len(rest) > 0; {
					rest = rest[c.next(rest, chunkSelectBits, true):]
				}
			}
		})
	}
}
