package measure

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

func TestVerdict(t *testing.T) {
	cases := []struct {
		prompt, context int
		fits            bool
		message         string
	}{
		// The source document's refusal, verbatim.
		{1491022, 262144, false, "request exceeds the context window: prompt (1491022 tokens) leaves no room to answer in the context (262144); requests are never truncated"},
		// docs/pipeline.md §1 headline, before and after.
		{1486632, 262144, false, "request exceeds the context window: prompt (1486632 tokens) leaves no room to answer in the context (262144); requests are never truncated"},
		{239 + 1013, 262144, true, "fits: prompt (1252 tokens) leaves 260892 tokens to answer in the context (262144)"},
		// A prompt that fills the window exactly leaves no room to answer.
		{4096, 4096, false, "request exceeds the context window: prompt (4096 tokens) leaves no room to answer in the context (4096); requests are never truncated"},
		{4095, 4096, true, "fits: prompt (4095 tokens) leaves 1 token to answer in the context (4096)"},
		{0, 4096, true, "fits: prompt (0 tokens) leaves 4096 tokens to answer in the context (4096)"},
		{5000, 0, true, "context window unknown: prompt (5000 tokens) not checked"},
		{5000, -1, true, "context window unknown: prompt (5000 tokens) not checked"},
	}
	for _, c := range cases {
		fits, msg := Verdict(c.prompt, c.context)
		if fits != c.fits || msg != c.message {
			t.Errorf("Verdict(%d, %d) = %v, %q\nwant %v, %q", c.prompt, c.context, fits, msg, c.fits, c.message)
		}
	}
}

func TestContextLength(t *testing.T) {
	write := func(t *testing.T, kvs []ggufwrite.KV) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "model.gguf")
		if err := ggufwrite.WriteFile(path, kvs, nil); err != nil {
			t.Fatal(err)
		}
		return path
	}
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = "tok" + strings.Repeat("a", i%7)
	}
	okCases := []struct {
		name string
		kvs  []ggufwrite.KV
		want int
	}{
		{"qwen3 u32", []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "qwen3.context_length", Value: uint32(40960)},
			{Key: "tokenizer.ggml.tokens", Value: vocab}}, 40960},
		{"gemma3 u64", []ggufwrite.KV{{Key: "general.architecture", Value: "gemma3"}, {Key: "gemma3.context_length", Value: uint64(131072)}}, 131072},
		{"llama i32", []ggufwrite.KV{{Key: "general.architecture", Value: "llama"}, {Key: "llama.context_length", Value: int32(8192)}}, 8192},
	}
	for _, c := range okCases {
		got, err := ContextLength(write(t, c.kvs))
		if err != nil || got != c.want {
			t.Errorf("%s: ContextLength = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	badCases := []struct {
		name string
		kvs  []ggufwrite.KV
		want string
	}{
		{"no architecture", []ggufwrite.KV{{Key: "llama.context_length", Value: uint32(8)}}, "no general.architecture key"},
		{"no context key", []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "llama.context_length", Value: uint32(8)}}, "no qwen3.context_length key"},
		{"float context", []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "qwen3.context_length", Value: float32(8)}}, "want an integer"},
		{"zero context", []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "qwen3.context_length", Value: uint32(0)}}, "qwen3.context_length is 0"},
		{"negative context", []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "qwen3.context_length", Value: int64(-5)}}, "out of range"},
		{"architecture not a string", []ggufwrite.KV{{Key: "general.architecture", Value: uint32(1)}}, "want a string"},
	}
	for _, c := range badCases {
		path := write(t, c.kvs)
		_, err := ContextLength(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming the file and containing %q", c.name, err, c.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.gguf")
	if _, err := ContextLength(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: err = %v", err)
	}
}
