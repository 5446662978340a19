package tokenize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// ggufPretokenizers maps llama.cpp's `tokenizer.ggml.pre` names to the pre-tokenizers of this
// package (names whose regular expressions llama.cpp shares with one implemented here).
var ggufPretokenizers = map[string]ggufPre{
	"qwen2":            {name: preQwen2},
	"deepseek-r1-qwen": {name: preQwen2},
	"megrez":           {name: preQwen2},
	"llama3":           {name: preCL100K, ignoreMerges: true},
	"llama-v3":         {name: preCL100K, ignoreMerges: true},
	"llama-bpe":        {name: preCL100K, ignoreMerges: true},
	"falcon3":          {name: preCL100K, ignoreMerges: true},
	"gpt-2":            {name: preGPT2},
	"gpt2":             {name: preGPT2},
	"phi-2":            {name: preGPT2},
	"gpt-4o":           {name: preO200K},
	"qwen35":           {name: preQwen35},
	"default":          {name: preLlamaDefault},
	"falcon":           {name: preFalcon},
	"mpt":              {name: preGPT2},
	"starcoder":        {name: preStarCoder},
	"refact":           {name: preStarCoder},
	"command-r":        {name: preStarCoder},
	"deepseek-llm":     {name: preDeepSeekLLM},
	"deepseek-coder":   {name: preDeepSeekCoder},
}

// ggufPre is how llama.cpp runs the BPE of one `tokenizer.ggml.pre` name: the pre-tokenizer,
// and whether a piece that is a token as a whole is that token without merging (its
// ignore_merges: " Việt" is one Llama 3 token that its merges never build).
type ggufPre struct {
	name         string
	ignoreMerges bool
}

// llama.cpp token types (tokenizer.ggml.token_type).
const (
	ggufTokenNormal      = 1
	ggufTokenControl     = 3
	ggufTokenUserDefined = 4
)

// ggufModels maps llama.cpp's `tokenizer.ggml.model` names to the loader of that kind of
// vocabulary.
var ggufModels = map[string]func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error){
	"gpt2": func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error) {
		return asTokenizer(loadGGUFBPE(path, kvs))
	},
	"llama": func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error) { return asGGUF(loadGGUFSPM(path, kvs)) },
	"gemma4": func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error) {
		return asGGUF(loadGGUFGemma4(path, kvs))
	},
	"bert": func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error) { return asGGUF(loadGGUFWPM(path, kvs)) },
	"t5":   func(path string, kvs gguf.GGUFMetadataKVs) (Tokenizer, error) { return asGGUF(loadGGUFUGM(path, kvs)) },
}

// LoadGGUF loads the tokenizer stored in a model GGUF file, of any `tokenizer.ggml.model`
// this package runs (ggufModels: byte-level BPE "gpt2", SentencePiece "llama", Gemma 4's
// "gemma4", WordPiece "bert", Unigram "t5"). Tensor data is never read.
func LoadGGUF(path string) (Tokenizer, error) {
	f, err := ggufmeta.Parse(path)
	if err != nil {
		return nil, err
	}
	kvs := f.Header.MetadataKV
	model, err := ggufmeta.String(kvs, "tokenizer.ggml.model")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	load, ok := ggufModels[model]
	if !ok {
		return nil, fmt.Errorf("%s at tokenizer.ggml.model: tokenizer model %q is not supported (known: %s)", path, model, strings.Join(slices.Sorted(maps.Keys(ggufModels)), ", "))
	}
	return load(path, kvs)
}

// LoadGGUFTokenizer loads the byte-level BPE tokenizer stored in a model GGUF file
// (`tokenizer.ggml.model` "gpt2") with `tokenizer.ggml.tokens`, `tokenizer.ggml.merges`,
// `tokenizer.ggml.pre` and `tokenizer.ggml.token_type`. Control and user-defined tokens are
// the special tokens (recognised in template framing). Tensor data is never read.
//
// Like llama.cpp, no Unicode normalisation is applied (a Hugging Face tokenizer.json of the
// same model applies NFC, so decomposed accents can count one token differently).
func LoadGGUFTokenizer(path string) (*BPETokenizer, error) {
	tok, err := LoadGGUF(path)
	if err != nil {
		return nil, err
	}
	t, ok := tok.(*BPETokenizer)
	if !ok {
		return nil, fmt.Errorf("%s: %T is not a byte-level BPE vocabulary (%v)", path, tok, errNotByteLevel)
	}
	return t, nil
}

// loadGGUFBPE loads a byte-level BPE vocabulary from a GGUF's metadata.
func loadGGUFBPE(path string, kvs gguf.GGUFMetadataKVs) (*BPETokenizer, error) {
	// without tokenizer.ggml.pre llama.cpp takes "default" (GPT-NeoX, Aquila)
	preName, ok, err := ggufmeta.OptionalString(kvs, "tokenizer.ggml.pre")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !ok {
		preName = "default"
	}
	pre, ok := ggufPretokenizers[preName]
	if !ok {
		return nil, fmt.Errorf("%s at tokenizer.ggml.pre: pre-tokenizer %q is not supported (known: %s)", path, preName, strings.Join(slices.Sorted(maps.Keys(ggufPretokenizers)), ", "))
	}
	tokens, merges, types, err := GGUFBPELists(path, kvs)
	if err != nil {
		return nil, err
	}
	dec := byteLevelDecoder()
	vocab := make(map[string]uint32, len(tokens))
	byName := make(map[string]int, len(tokens))
	specials, user := map[string]uint32{}, map[string]int32{}
	for id, tok := range tokens {
		if types != nil && (types[id] == ggufTokenControl || types[id] == ggufTokenUserDefined) {
			if tok != "" {
				specials[tok] = uint32(id)
			}
			if tok != "" && types[id] == ggufTokenUserDefined {
				user[tok] = int32(id)
			}
			continue
		}
		byName[tok] = id
		raw, ok := decodeByteLevel(dec, tok)
		if !ok {
			continue // a token outside the byte-level alphabet no merge makes (llama.cpp keeps it unused)
		}
		vocab[raw] = uint32(id)
	}
	pairs := make([][2]string, len(merges))
	for i, m := range merges {
		a, b, ok := strings.Cut(m, " ")
		if !ok {
			return nil, fmt.Errorf("%s at tokenizer.ggml.merges[%d]: merge %q has no space", path, i, m)
		}
		pairs[i] = [2]string{a, b}
	}
	table, err := buildMerges(pairs, byName, func(i int) string { return fmt.Sprintf("%s at tokenizer.ggml.merges[%d]", path, i) })
	if err != nil {
		return nil, err
	}
	t, err := newBPETokenizer(bpeSpec{
		name:             path,
		mode:             rankByMergeList,
		vocab:            vocab,
		merges:           table,
		pretokenizer:     pre.name,
		wholePieceFirst:  pre.ignoreMerges,
		dropMissingBytes: true,
		specials:         specials,
	})
	if err != nil {
		return nil, err
	}
	if len(user) > 0 {
		t.user = newSpecialSet(user, nil)
	}
	// The BOS llama.cpp adds to every prompt (llama-server tokenizes the rendered prompt with
	// its special tokens, after taking off a BOS the template wrote itself).
	if kv, ok := kvs.Get("tokenizer.ggml.add_bos_token"); ok && kv.ValueType == gguf.GGUFMetadataValueTypeBool && kv.ValueBool() {
		kv, ok := kvs.Get("tokenizer.ggml.bos_token_id")
		if !ok || kv.ValueType != gguf.GGUFMetadataValueTypeUint32 || int(kv.ValueUint32()) >= len(tokens) {
			return nil, fmt.Errorf("%s at tokenizer.ggml.bos_token_id: add_bos_token is set but there is no BOS token", path)
		}
		t.bos = tokens[kv.ValueUint32()]
	}
	return t, nil
}

// GGUFBPELists reads a BPE vocabulary's tokens, merges and token types (types nil when absent).
func GGUFBPELists(path string, kvs gguf.GGUFMetadataKVs) (tokens, merges []string, types []int32, err error) {
	if tokens, err = ggufTokens(path, kvs); err != nil {
		return nil, nil, nil, err
	}
	if merges, err = ggufmeta.Strings(kvs, "tokenizer.ggml.merges"); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if types, err = ggufTokenTypes(kvs, len(tokens)); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tokens, merges, types, nil
}

// ggufTokens reads tokenizer.ggml.tokens as the file holds them (white space kept).
func ggufTokens(path string, kvs gguf.GGUFMetadataKVs) ([]string, error) {
	if _, err := ggufmeta.Strings(kvs, "tokenizer.ggml.tokens"); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tokens, _, err := ggufmeta.ExactStrings(path, "tokenizer.ggml.tokens")
	return tokens, err
}

// ggufTokenTypes reads tokenizer.ggml.token_type (nil when absent).
func ggufTokenTypes(kvs gguf.GGUFMetadataKVs, n int) ([]int32, error) {
	const key = "tokenizer.ggml.token_type"
	av, ok, err := ggufmeta.Array(kvs, key)
	if err != nil || !ok {
		return nil, err
	}
	if len(av.Array) != n {
		return nil, fmt.Errorf("key %s has %d entries for %d tokens", key, len(av.Array), n)
	}
	return ggufInts(key, av.Array)
}

// ggufInts reads an array of integers of any width.
func ggufInts(key string, arr []any) ([]int32, error) {
	out := make([]int32, len(arr))
	for i, v := range arr {
		switch x := v.(type) {
		case int32:
			out[i] = x
		case uint32:
			out[i] = int32(x)
		case int8:
			out[i] = int32(x)
		case uint8:
			out[i] = int32(x)
		case int16:
			out[i] = int32(x)
		case uint16:
			out[i] = int32(x)
		case int64:
			out[i] = int32(x)
		default:
			return nil, fmt.Errorf("key %s[%d] is %T, want an integer", key, i, v)
		}
	}
	return out, nil
}
