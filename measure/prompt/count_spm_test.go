package prompt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// TestCountSegmentsSentencePiece: with a SentencePiece vocabulary (a "▁" in front of every run
// that follows a special token) the segments count as llama-server tokenizes the whole prompt,
// specials parsed: a run is never cut at a newline.
func TestCountSegmentsSentencePiece(t *testing.T) {
	path := filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-llama-spm.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("llama.cpp's test vocabularies are not fetched (make test-deps): %v", err)
	}
	tok, err := tokenize.LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	segs := []Segment{
		{Text: "<s>[INST] ", Special: true},
		{Text: "line one\nline two\n"},
		{Text: "2024: a text that starts with a digit after a newline.\nMore text"},
		{Text: " [/INST]</s>", Special: true},
		{Text: "answer"},
	}
	whole := ""
	for _, s := range segs {
		whole += s.Text
	}
	got := NewCounter(tok, nil).CountSegments(segs)
	if want := tok.CountFraming(whole); got.Tokens != want || got.SpecialTokens != 2 {
		t.Errorf("CountSegments = %d tokens (%d special), the whole prompt %d (2 special)", got.Tokens, got.SpecialTokens, want)
	}
}
