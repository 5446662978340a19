package tinymodel

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gguf_parser "github.com/gpustack/gguf-parser-go"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// writeTokenizer writes a small byte-level tokenizer.json (and a tokenizer_config.json with a
// chat template) into a fresh folder.
func writeTokenizer(t *testing.T, tokenizer string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(path, []byte(tokenizer), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const smallTokenizer = `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3},
 "merges": [["a", "b"]]},
 "added_tokens": [{"id": 4, "content": "<|im_start|>", "special": true}, {"id": 5, "content": "<tool_call>", "special": false}]}`

func TestReadVocabulary(t *testing.T) {
	v, err := ReadVocabulary(writeTokenizer(t, smallTokenizer))
	if err != nil {
		t.Fatal(err)
	}
	wantTokens := []string{"a", "b", "ab", "Ġ", "<|im_start|>", "<tool_call>"}
	wantTypes := []int32{1, 1, 1, 1, 3, 4}
	for i := range wantTokens {
		if v.Tokens[i] != wantTokens[i] || v.Types[i] != wantTypes[i] {
			t.Errorf("token %d = %q type %d, want %q type %d", i, v.Tokens[i], v.Types[i], wantTokens[i], wantTypes[i])
		}
	}
	if len(v.Merges) != 1 || v.Merges[0] != "a b" {
		t.Errorf("merges %q, want [\"a b\"]", v.Merges)
	}
	if !strings.Contains(v.ChatTemplate, "<|im_start|>") {
		t.Errorf("chat template %q", v.ChatTemplate)
	}
	// Merges written as "a b" strings read the same.
	v2, err := ReadVocabulary(writeTokenizer(t, strings.Replace(smallTokenizer, `[["a", "b"]]`, `["a b"]`, 1)))
	if err != nil || len(v2.Merges) != 1 || v2.Merges[0] != "a b" {
		t.Errorf("string merges: %v, %v", v2, err)
	}
}

func TestReadVocabularyErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{"model": `, "tokenizer.json"},
		{"wordpiece", `{"model": {"type": "WordPiece", "vocab": {"a": 0}}}`, "/model/type"},
		{"empty", `{"model": {"type": "BPE", "vocab": {}}}`, "empty vocabulary"},
		{"id out of range", `{"model": {"type": "BPE", "vocab": {"a": 0, "b/c": 7}}}`, "/model/vocab/b~1c"},
		{"hole", `{"model": {"type": "BPE", "vocab": {"a": 0}}, "added_tokens": [{"id": 0, "content": "x"}]}`, "/added_tokens/0"},
		{"bad merge", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}}`, "/model/merges/0"},
	}
	for _, tc := range tests {
		_, err := ReadVocabulary(writeTokenizer(t, tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadVocabulary(filepath.Join(t.TempDir(), "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("absent file: %v", err)
	}
}

func TestQwen3Shapes(t *testing.T) {
	v, err := ReadVocabulary(writeTokenizer(t, smallTokenizer))
	if err != nil {
		t.Fatal(err)
	}
	kvs, tensors, err := Qwen3(v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tensors), 2+11*Defaults.Layers; got != want {
		t.Errorf("%d tensors, want %d", got, want)
	}
	dims := map[string][]uint64{}
	for _, ts := range tensors {
		dims[ts.Name] = ts.Dims
	}
	want := map[string][]uint64{
		"token_embd.weight":        {64, 6},
		"blk.1.attn_k.weight":      {64, 32},
		"blk.0.attn_q_norm.weight": {16},
		"blk.1.ffn_down.weight":    {128, 64},
		"blk.0.attn_output.weight": {64, 64},
		"output_norm.weight":       {64},
		"blk.1.attn_k_norm.weight": {16},
		"blk.0.ffn_gate.weight":    {64, 128},
		"blk.1.attn_v.weight":      {64, 32},
		"blk.0.attn_norm.weight":   {64},
		"blk.1.ffn_up.weight":      {64, 128},
		"blk.0.ffn_norm.weight":    {64},
		"blk.0.attn_q.weight":      {64, 64},
		"blk.1.attn_output.weight": {64, 64},
		"blk.1.attn_q_norm.weight": {16},
		"blk.0.attn_k.weight":      {64, 32},
		"blk.0.attn_v.weight":      {64, 32},
		"blk.0.attn_k_norm.weight": {16},
		"blk.0.ffn_up.weight":      {64, 128},
		"blk.0.ffn_down.weight":    {128, 64},
		"blk.1.attn_norm.weight":   {64},
		"blk.1.attn_q.weight":      {64, 64},
		"blk.1.ffn_gate.weight":    {64, 128},
		"blk.1.ffn_norm.weight":    {64},
	}
	for name, w := range want {
		if fmt.Sprint(dims[name]) != fmt.Sprint(w) {
			t.Errorf("%s dims %v, want %v", name, dims[name], w)
		}
	}
	keys := map[string]any{}
	for _, kv := range kvs {
		keys[kv.Key] = kv.Value
	}
	for k, w := range map[string]any{"general.architecture": "qwen3", "qwen3.block_count": uint32(2), "qwen3.attention.key_length": uint32(16), "tokenizer.ggml.pre": "qwen2", "tokenizer.ggml.eos_token_id": uint32(IMEnd)} {
		if keys[k] != w {
			t.Errorf("%s = %v, want %v", k, keys[k], w)
		}
	}
	if _, _, err := Qwen3(v, Options{Embedding: 60, Heads: 7}); err == nil {
		t.Error("width 60 with 7 heads: no error")
	}
}

func TestQwen3IsReproducibleAndParses(t *testing.T) {
	v, err := ReadVocabulary(writeTokenizer(t, smallTokenizer))
	if err != nil {
		t.Fatal(err)
	}
	write := func(opts Options) []byte {
		kvs, tensors, err := Qwen3(v, opts)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := ggufwrite.Write(&buf, kvs, tensors); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b, c := write(Options{}), write(Options{}), write(Options{Seed: 2})
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Error("two writes with the same seed differ")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 1 and 2 give the same weights")
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := os.WriteFile(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := gguf_parser.ParseGGUFFile(path)
	if err != nil {
		t.Fatalf("gguf-parser-go: %v", err)
	}
	if got := len(f.TensorInfos); got != 2+11*Defaults.Layers {
		t.Errorf("parsed %d tensors", got)
	}
	if arch := f.Architecture(); arch.Architecture != "qwen3" || arch.BlockCount != 2 || arch.EmbeddingLength != 64 {
		t.Errorf("parsed architecture %+v", arch)
	}
}

func TestEnsureQwen3WritesOnce(t *testing.T) {
	tok := writeTokenizer(t, smallTokenizer)
	dir := t.TempDir()
	p1, err := EnsureQwen3(dir, tok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	info1, err := os.Stat(p1)
	if err != nil {
		t.Fatal(err)
	}
	if info1.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info1.Mode().Perm())
	}
	p2, err := EnsureQwen3(dir, tok, Options{})
	if err != nil || p2 != p1 {
		t.Fatalf("second call: %s, %v; want %s", p2, err, p1)
	}
	p3, err := EnsureQwen3(dir, tok, Options{Layers: 1})
	if err != nil || p3 == p1 {
		t.Errorf("other options: %s, %v; want a new file", p3, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the cache folder, want 2 (no leftovers)", len(entries))
	}
}

// TestQwen3ExtraTokensAndMRoPE: ExtraTokens adds the texts the vocabulary lacks, once each, as
// user-defined tokens (the embedding grows with them); MRoPE writes Qwen3-VL's architecture
// with its M-RoPE sections over the rotated half of a head.
func TestQwen3ExtraTokensAndMRoPE(t *testing.T) {
	v, err := ReadVocabulary(writeTokenizer(t, smallTokenizer))
	if err != nil {
		t.Fatal(err)
	}
	n := len(v.Tokens)
	extra := []string{"<image>", v.Tokens[0], "</image>", "<image>"}
	kvs, tensors, err := Qwen3(v, Options{ExtraTokens: extra, MRoPE: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tokens) != n {
		t.Errorf("the caller's vocabulary grew to %d tokens", len(v.Tokens))
	}
	keys := map[string]any{}
	for _, kv := range kvs {
		keys[kv.Key] = kv.Value
	}
	tokens, _ := keys["tokenizer.ggml.tokens"].([]string)
	types, _ := keys["tokenizer.ggml.token_type"].([]int32)
	if len(tokens) != n+2 || tokens[n] != "<image>" || tokens[n+1] != "</image>" || types[n] != tokenUserDefined || types[n+1] != tokenUserDefined {
		t.Errorf("tokens %q (types %v) after the vocabulary's %d: want <image>, </image> user-defined", tokens[min(n, len(tokens)):], types[min(n, len(types)):], n)
	}
	for _, ts := range tensors {
		if ts.Name == "token_embd.weight" && ts.Dims[1] != uint64(n+2) {
			t.Errorf("token_embd.weight dims %v: want %d tokens", ts.Dims, n+2)
		}
	}
	if keys["general.architecture"] != "qwen3vl" || keys["qwen3vl.block_count"] != uint32(2) ||
		fmt.Sprint(keys["qwen3vl.rope.dimension_sections"]) != "[4 2 2 0]" {
		t.Errorf("architecture %v, block count %v, sections %v: want qwen3vl, 2, [4 2 2 0]", keys["general.architecture"],
			keys["qwen3vl.block_count"], keys["qwen3vl.rope.dimension_sections"])
	}
}
