// Package tinymodel writes, at test time, a tiny random-weight model of a real architecture
// (llama.cpp's `qwen3`: two layers, width 64) with the real Qwen3 vocabulary, merges and chat
// template, so that tests can run the real llama.cpp (load, tokenize, evaluate, generate)
// without downloading weights. The weights are random but fixed by a seed: the file is
// byte-identical for the same tokenizer, options and seed.
//
// The layout follows docs/pipeline.md §13.4: `qwen3.*` hyperparameters, `token_embd.weight`
// in F16 (the output projection is tied to it), F32 norms, and per layer the attention
// (q, k, v, output, q_norm, k_norm) and gated feed-forward tensors llama.cpp requires.
package tinymodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// Options are the model's dimensions and seed. Zero fields take the defaults of Defaults.
type Options struct {
	Layers        int    // transformer blocks
	Embedding     int    // model width
	FeedForward   int    // feed-forward width
	Heads         int    // attention heads
	KVHeads       int    // key/value heads (grouped-query attention)
	ContextLength int    // qwen3.context_length
	Seed          uint64 // seed of the weight generator
	AddBOS        bool   // tokenizer.ggml.add_bos_token: llama.cpp adds a BOS to every prompt
	// TemplatePrefix is written in front of the tokenizer's chat template (tokenizer_config.json's):
	// "{{ bos_token }}" makes the template write the BOS itself.
	TemplatePrefix string
	// ExtraTokens are added after the vocabulary's tokens, as user-defined tokens (matched
	// whole in any text), those it lacks only: the markers a projector puts around pictures
	// (tinyproj.Markers), one token each as in the real models' vocabularies.
	ExtraTokens []string
	// MRoPE writes Qwen3-VL's text model (llama.cpp's `qwen3vl`: the same weights with
	// interleaved M-RoPE positions), which the projectors of M-RoPE models need.
	MRoPE bool
}

// Defaults are the dimensions of the verified tiny model: 2 layers, width 64, 4 heads of 16,
// 2 key/value heads, feed-forward 128, context 4096.
var Defaults = Options{Layers: 2, Embedding: 64, FeedForward: 128, Heads: 4, KVHeads: 2, ContextLength: 4096, Seed: 1}

// Qwen3 special token ids (tokenizer.json added tokens).
const (
	EndOfText = 151643 // <|endoftext|>: bos and padding
	IMEnd     = 151645 // <|im_end|>: end of a turn, the chat model's eos
)

// TokenizerPath is where `make test-deps` (internal/scripts/fetch-qwen3-tokenizer.sh) puts
// the Qwen3 tokenizer.json, relative to the repository root.
const TokenizerPath = ".cache/qwen3/package/models/tokenizer.json"

// withDefaults fills zero fields from Defaults and checks the shape.
func (o Options) withDefaults() (Options, error) {
	fill := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	fill(&o.Layers, Defaults.Layers)
	fill(&o.Embedding, Defaults.Embedding)
	fill(&o.FeedForward, Defaults.FeedForward)
	fill(&o.Heads, Defaults.Heads)
	fill(&o.KVHeads, Defaults.KVHeads)
	fill(&o.ContextLength, Defaults.ContextLength)
	if o.Seed == 0 {
		o.Seed = Defaults.Seed
	}
	for _, v := range []int{o.Layers, o.Embedding, o.FeedForward, o.Heads, o.KVHeads, o.ContextLength} {
		if v < 0 || v > 1<<20 {
			return o, fmt.Errorf("tiny model options %+v: dimension %d out of range", o, v)
		}
	}
	if o.Embedding%o.Heads != 0 || o.Heads%o.KVHeads != 0 {
		return o, fmt.Errorf("tiny model options %+v: width must divide by heads and heads by key/value heads", o)
	}
	return o, nil
}

// Vocabulary is a Hugging Face byte-level BPE tokenizer as GGUF stores it.
type Vocabulary struct {
	Tokens       []string // every token text in id order, added tokens included
	Types        []int32  // 1 normal, 3 control (special added tokens), 4 user-defined (other added tokens)
	Merges       []string // "left right" in rank order
	ChatTemplate string   // tokenizer_config.json's chat_template next to tokenizer.json ("" if absent)
}

// GGUF token types.
const (
	tokenNormal      int32 = 1
	tokenControl     int32 = 3
	tokenUserDefined int32 = 4
)

// ReadVocabulary reads a tokenizer.json (and the chat template of the tokenizer_config.json
// beside it, when there is one).
func ReadVocabulary(tokenizerJSON string) (*Vocabulary, error) {
	data, err := os.ReadFile(tokenizerJSON)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	var f struct {
		Model struct {
			Type   string            `json:"type"`
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", tokenizerJSON, err)
	}
	if f.Model.Type != "" && f.Model.Type != "BPE" {
		return nil, fmt.Errorf("%s at /model/type: %q, want BPE", tokenizerJSON, f.Model.Type)
	}
	n := len(f.Model.Vocab) + len(f.AddedTokens)
	if n == 0 {
		return nil, fmt.Errorf("%s at /model/vocab: empty vocabulary", tokenizerJSON)
	}
	v := &Vocabulary{Tokens: make([]string, n), Types: make([]int32, n)}
	seen := make([]bool, n)
	place := func(where, text string, id int, typ int32) error {
		if id < 0 || id >= n {
			return fmt.Errorf("%s at %s: id %d outside 0..%d", tokenizerJSON, where, id, n-1)
		}
		if seen[id] && v.Tokens[id] != text {
			return fmt.Errorf("%s at %s: id %d given to %q and %q", tokenizerJSON, where, id, v.Tokens[id], text)
		}
		seen[id] = true
		v.Tokens[id], v.Types[id] = text, typ
		return nil
	}
	for text, id := range f.Model.Vocab {
		if err := place("/model/vocab/"+pointerEscape(text), text, id, tokenNormal); err != nil {
			return nil, err
		}
	}
	for i, at := range f.AddedTokens {
		typ := tokenUserDefined
		if at.Special {
			typ = tokenControl
		}
		if err := place(fmt.Sprintf("/added_tokens/%d", i), at.Content, at.ID, typ); err != nil {
			return nil, err
		}
	}
	for id, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%s: no token has id %d (ids must be dense)", tokenizerJSON, id)
		}
	}
	if v.Merges, err = readMerges(tokenizerJSON, f.Model.Merges); err != nil {
		return nil, err
	}
	if v.ChatTemplate, err = readChatTemplate(filepath.Join(filepath.Dir(tokenizerJSON), "tokenizer_config.json")); err != nil {
		return nil, err
	}
	return v, nil
}

// readMerges reads the merges of a tokenizer.json (file), each "a b" or ["a", "b"], as "a b".
func readMerges(file string, raws []json.RawMessage) ([]string, error) {
	merges := make([]string, len(raws))
	for i, raw := range raws {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			merges[i] = s
			continue
		}
		var pair []string
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("%s at /model/merges/%d: want \"a b\" or [\"a\", \"b\"]", file, i)
		}
		merges[i] = pair[0] + " " + pair[1]
	}
	return merges, nil
}

// readChatTemplate reads the chat template of a tokenizer_config.json: "" when there is no such
// file, or its template is a list of named templates (left out).
func readChatTemplate(cfgPath string) (string, error) {
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		return "", nil
	}
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(cfg, &c); err != nil {
		return "", fmt.Errorf("%s: %w", cfgPath, err)
	}
	var template string
	_ = json.Unmarshal(c.ChatTemplate, &template)
	return template, nil
}

// pointerEscape escapes a JSON Pointer reference token.
func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// WriteQwen3 writes the tiny qwen3 model with the vocabulary of tokenizerJSON to path.
func WriteQwen3(path, tokenizerJSON string, opts Options) error {
	vocab, err := ReadVocabulary(tokenizerJSON)
	if err != nil {
		return err
	}
	kvs, tensors, err := Qwen3(vocab, opts)
	if err != nil {
		return err
	}
	return ggufwrite.WriteFile(path, kvs, tensors)
}

// EnsureQwen3 returns the path of the tiny model for tokenizerJSON and opts inside dir,
// writing it first when no earlier call did. The file name carries a digest of the tokenizer,
// the chat template and the options, so a changed input writes a new file. The file is
// written under a temporary name and renamed, so concurrent callers never see half a model.
func EnsureQwen3(dir, tokenizerJSON string, opts Options) (string, error) {
	full, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range []string{tokenizerJSON, filepath.Join(filepath.Dir(tokenizerJSON), "tokenizer_config.json")} {
		data, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("read tokenizer: %w", err)
		}
		h.Write(data)
	}
	fmt.Fprintf(h, "%+v|format 1", full)
	path := filepath.Join(dir, "qwen3-tiny-"+hex.EncodeToString(h.Sum(nil))[:16]+".gguf")
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("tiny model folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".qwen3-tiny-*.partial")
	if err != nil {
		return "", fmt.Errorf("tiny model: %w", err)
	}
	tmpName := tmp.Name()
	_ = tmp.Close()
	defer os.Remove(tmpName)
	if err := WriteQwen3(tmpName, tokenizerJSON, full); err != nil {
		return "", err
	}
	if err := os.Chmod(tmpName, 0o644); err != nil {
		return "", fmt.Errorf("tiny model: %w", err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return "", fmt.Errorf("tiny model: %w", err)
	}
	return path, nil
}

// withTokens is vocab with the tokens of extra it lacks added as user-defined tokens.
func withTokens(vocab *Vocabulary, extra []string) *Vocabulary {
	if len(extra) == 0 || vocab == nil {
		return vocab
	}
	have := make(map[string]bool, len(vocab.Tokens))
	for _, t := range vocab.Tokens {
		have[t] = true
	}
	out := *vocab
	out.Tokens = append([]string(nil), vocab.Tokens...)
	out.Types = append([]int32(nil), vocab.Types...)
	for _, t := range extra {
		if !have[t] {
			have[t] = true
			out.Tokens = append(out.Tokens, t)
			out.Types = append(out.Types, tokenUserDefined)
		}
	}
	return &out
}

// Qwen3 returns the metadata and tensors of the tiny qwen3 model over vocab.
func Qwen3(vocab *Vocabulary, opts Options) ([]ggufwrite.KV, []ggufwrite.Tensor, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	if vocab == nil || len(vocab.Tokens) == 0 || len(vocab.Types) != len(vocab.Tokens) {
		return nil, nil, fmt.Errorf("tiny model: empty or inconsistent vocabulary")
	}
	vocab = withTokens(vocab, o.ExtraTokens)
	headDim := o.Embedding / o.Heads
	arch := "qwen3"
	if o.MRoPE {
		arch = "qwen3vl"
	}
	return qwen3Metadata(arch, vocab, o, headDim), qwen3Tensors(len(vocab.Tokens), o, headDim), nil
}

// qwen3Metadata is the tiny model's metadata: the architecture's hyperparameters (arch is
// qwen3, or qwen3vl with MRoPE), the tokenizer and its chat template.
func qwen3Metadata(arch string, vocab *Vocabulary, o Options, headDim int) []ggufwrite.KV {
	kvs := []ggufwrite.KV{
		{Key: "general.architecture", Value: arch},
		{Key: "general.name", Value: "strata-eval tiny qwen3 (random weights)"},
		{Key: "general.file_type", Value: uint32(1)}, // mostly F16
		{Key: arch + ".context_length", Value: uint32(o.ContextLength)},
		{Key: arch + ".embedding_length", Value: uint32(o.Embedding)},
		{Key: arch + ".block_count", Value: uint32(o.Layers)},
		{Key: arch + ".feed_forward_length", Value: uint32(o.FeedForward)},
		{Key: arch + ".attention.head_count", Value: uint32(o.Heads)},
		{Key: arch + ".attention.head_count_kv", Value: uint32(o.KVHeads)},
		{Key: arch + ".attention.key_length", Value: uint32(headDim)},
		{Key: arch + ".attention.value_length", Value: uint32(headDim)},
		{Key: arch + ".attention.layer_norm_rms_epsilon", Value: float32(1e-6)},
		{Key: arch + ".rope.freq_base", Value: float32(1e6)},
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: "qwen2"},
		{Key: "tokenizer.ggml.tokens", Value: vocab.Tokens},
		{Key: "tokenizer.ggml.token_type", Value: vocab.Types},
		{Key: "tokenizer.ggml.merges", Value: vocab.Merges},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(IMEnd)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(EndOfText)},
		{Key: "tokenizer.ggml.padding_token_id", Value: uint32(EndOfText)},
		{Key: "tokenizer.ggml.add_bos_token", Value: o.AddBOS},
	}
	if o.MRoPE {
		// the rotated half of each head split over time, height and width
		half := int32(headDim / 2)
		kvs = append(kvs, ggufwrite.KV{Key: arch + ".rope.dimension_sections", Value: []int32{half - half/2, half / 4, half / 4, 0}})
	}
	if vocab.ChatTemplate != "" {
		kvs = append(kvs, ggufwrite.KV{Key: "tokenizer.chat_template", Value: o.TemplatePrefix + vocab.ChatTemplate})
	}
	return kvs
}

// qwen3Tensors is the tiny model's weights over a vocabulary of nVocab tokens: seeded random
// matrices (o.Seed), norms of ones.
func qwen3Tensors(nVocab int, o Options, headDim int) []ggufwrite.Tensor {
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	random := func(n int, scale float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64()) * scale
		}
		return out
	}
	ones := func(n int) []byte {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return ggufwrite.F32Bytes(v...)
	}
	// matrix is an F32 weight of ggml shape [in, out] (ne0 = in), scaled like a standard
	// initialisation so that activations stay of order one through the layers.
	matrix := func(name string, in, out int) ggufwrite.Tensor {
		scale := float32(1 / math.Sqrt(float64(in)))
		return ggufwrite.Tensor{Name: name, Dims: []uint64{uint64(in), uint64(out)}, Type: ggufwrite.F32, Data: ggufwrite.F32Bytes(random(in*out, scale)...)}
	}
	vector := func(name string, n int) ggufwrite.Tensor {
		return ggufwrite.Tensor{Name: name, Dims: []uint64{uint64(n)}, Type: ggufwrite.F32, Data: ones(n)}
	}
	tensors := []ggufwrite.Tensor{
		{Name: "token_embd.weight", Dims: []uint64{uint64(o.Embedding), uint64(nVocab)}, Type: ggufwrite.F16,
			Data: ggufwrite.F16Bytes(random(o.Embedding*nVocab, 1)...)},
		vector("output_norm.weight", o.Embedding),
	}
	qDim, kvDim := o.Heads*headDim, o.KVHeads*headDim
	for l := 0; l < o.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		tensors = append(tensors,
			vector(p+"attn_norm.weight", o.Embedding),
			matrix(p+"attn_q.weight", o.Embedding, qDim),
			matrix(p+"attn_k.weight", o.Embedding, kvDim),
			matrix(p+"attn_v.weight", o.Embedding, kvDim),
			matrix(p+"attn_output.weight", qDim, o.Embedding),
			vector(p+"attn_q_norm.weight", headDim),
			vector(p+"attn_k_norm.weight", headDim),
			vector(p+"ffn_norm.weight", o.Embedding),
			matrix(p+"ffn_gate.weight", o.Embedding, o.FeedForward),
			matrix(p+"ffn_up.weight", o.Embedding, o.FeedForward),
			matrix(p+"ffn_down.weight", o.FeedForward, o.Embedding),
		)
	}
	return tensors
}

// FindTokenizer returns the Qwen3 tokenizer.json that `make test-deps` fetched, looking in
// the repository holding the working directory (the nearest parent with a go.mod file).
func FindTokenizer() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, filepath.FromSlash(TokenizerPath))
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("Qwen3 tokenizer.json not found at %s: run `make test-deps` (internal/scripts/fetch-qwen3-tokenizer.sh)", path)
	}
	return path, nil
}

// RepoRoot returns the nearest parent of the working directory that holds a go.mod file.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
