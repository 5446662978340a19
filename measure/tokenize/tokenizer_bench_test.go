package tokenize

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// BenchmarkCount compares this package's counting with pkoukk/tiktoken-go on o200k_base;
// each tiktoken-go sub-benchmark asserts that both give the same count.
func BenchmarkCount(b *testing.B) {
	ours := ourTiktoken(b, "o200k_base")
	theirs := referenceTiktoken(b, "o200k_base")
	inputs := tokentext.BenchInputs()
	for _, name := range []string{"base64_2MB", "english_2MB", "buildlog_2MB"} {
		text := inputs[name]
		want := ours.Count(text)
		b.Run("ours/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if got := ours.Count(text); got != want {
					b.Fatalf("count changed: %d, then %d", want, got)
				}
			}
			b.ReportMetric(float64(want), "tokens")
		})
		b.Run("tiktoken-go/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if got := len(theirs.Encode(text, nil, nil)); got != want {
					b.Fatalf("tiktoken-go counts %d tokens, ours %d", got, want)
				}
			}
		})
	}
}

// BenchmarkLongPiece is 100,000 letters in one pre-tokenizer piece.
func BenchmarkLongPiece(b *testing.B) {
	ours := ourTiktoken(b, "o200k_base")
	text := strings.Repeat("a", 100_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if got := ours.Count(text); got != 12500 {
			b.Fatalf("Count = %d, want 12500", got)
		}
	}
}

func TestCountDoesNotAllocatePerToken(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random")
	}
	ours := ourTiktoken(t, "o200k_base")
	r := rand.New(rand.NewPCG(9, 9))
	text := tokentext.EnglishText(r, 20000) + base64.StdEncoding.EncodeToString([]byte(tokentext.EnglishText(r, 3000)))
	ours.Count(text)
	allocs := testing.AllocsPerRun(5, func() { ours.Count(text) })
	if allocs > 2 {
		t.Errorf("Count of %d bytes allocates %.0f times per run, want ≤ 2", len(text), allocs)
	}
}

// BenchmarkLoadTiktoken builds the o200k tokenizer from its embedded rank file, as every
// process that counts with it does once.
func BenchmarkLoadTiktoken(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadTiktoken("o200k_base"); err != nil {
			b.Fatal(err)
		}
	}
}
