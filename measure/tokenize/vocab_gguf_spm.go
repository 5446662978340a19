package tokenize

import (
	"fmt"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// asGGUF keeps a nil tokenizer pointer from becoming a non-nil interface.
func asGGUF[T Tokenizer](t T, err error) (Tokenizer, error) {
	if err != nil {
		return nil, err
	}
	return t, nil
}

// loadGGUFSPM loads a SentencePiece vocabulary (`tokenizer.ggml.model` "llama") from a GGUF's
// metadata with llama.cpp's defaults: add_space_prefix and add_bos_token true, BOS 1, unknown
// token 0, unless the file says otherwise.
func loadGGUFSPM(path string, kvs gguf.GGUFMetadataKVs) (*SPMTokenizer, error) {
	tokens, types, scores, err := ggufScoredTokens(path, kvs)
	if err != nil {
		return nil, err
	}
	v := spmVocab{name: path, tokens: tokens, scores: scores, types: types, unkID: 0, bosID: 1,
		spacePrefix: ggufBool(kvs, "tokenizer.ggml.add_space_prefix", true)}
	if err := ggufTokenIDs(path, kvs, len(tokens), map[string]*int32{"tokenizer.ggml.unknown_token_id": &v.unkID, "tokenizer.ggml.bos_token_id": &v.bosID}); err != nil {
		return nil, err
	}
	if !ggufBool(kvs, "tokenizer.ggml.add_bos_token", true) {
		v.bosID = -1
	}
	if name, ok, _ := ggufmeta.OptionalString(kvs, "general.name"); ok {
		name = strings.ToLower(name)
		v.rstripSpecials = strings.Contains(name, "phi-3") || strings.Contains(name, "phi3")
	}
	return newSPMTokenizer(v)
}

// ggufBool reads a boolean key, def when it is absent or not a boolean.
func ggufBool(kvs gguf.GGUFMetadataKVs, key string, def bool) bool {
	if kv, ok := kvs.Get(key); ok && kv.ValueType == gguf.GGUFMetadataValueTypeBool {
		return kv.ValueBool()
	}
	return def
}

// ggufScores reads tokenizer.ggml.scores (all zero when absent, as llama.cpp takes them).
func ggufScores(kvs gguf.GGUFMetadataKVs, n int) ([]float32, error) {
	const key = "tokenizer.ggml.scores"
	av, ok, err := ggufmeta.Array(kvs, key)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	if !ok {
		return out, nil
	}
	if len(av.Array) < n {
		return nil, fmt.Errorf("key %s has %d entries for %d tokens", key, len(av.Array), n)
	}
	for i := range out {
		switch x := av.Array[i].(type) {
		case float32:
			out[i] = x
		case int32:
			out[i] = float32(x)
		default:
			return nil, fmt.Errorf("key %s[%d] is %T, want a float32", key, i, x)
		}
	}
	return out, nil
}

// ggufTokenIDs reads token-id keys into their places, each left as it is when the key is
// absent or out of the vocabulary's n tokens.
func ggufTokenIDs(path string, kvs gguf.GGUFMetadataKVs, n int, into map[string]*int32) error {
	for key, id := range into {
		v, ok, err := ggufmeta.OptionalInt(kvs, key)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if ok && v >= 0 && v < n {
			*id = int32(v)
		}
	}
	return nil
}

// ggufScoredTokens reads a vocabulary's tokens with their types (nil when absent) and scores
// (all zero when absent).
func ggufScoredTokens(path string, kvs gguf.GGUFMetadataKVs) (tokens []string, types []int32, scores []float32, err error) {
	if tokens, err = ggufTokens(path, kvs); err != nil {
		return nil, nil, nil, err
	}
	if types, err = ggufTokenTypes(kvs, len(tokens)); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if scores, err = ggufScores(kvs, len(tokens)); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tokens, types, scores, nil
}
