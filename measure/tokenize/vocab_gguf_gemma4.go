package tokenize

import (
	"fmt"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// loadGGUFGemma4 loads a Gemma 4 vocabulary (`tokenizer.ggml.model` "gemma4"): a BPE over
// SentencePiece-style text, spaces as "▁" and no byte-level alphabet, merged by the rank of
// each pair in tokenizer.ggml.merges, with a BOS always added (llama.cpp overrides
// add_bos_token false for it).
func loadGGUFGemma4(path string, kvs gguf.GGUFMetadataKVs) (*SPMTokenizer, error) {
	tokens, types, scores, err := ggufScoredTokens(path, kvs)
	if err != nil {
		return nil, err
	}
	// merges of runs of newlines and tabs: read as the file holds them, white space kept
	merges, ok, err := ggufmeta.ExactStrings(path, "tokenizer.ggml.merges")
	if err != nil || !ok {
		return nil, fmt.Errorf("%s at tokenizer.ggml.merges: a Gemma 4 vocabulary needs its merges (%v)", path, err)
	}
	v := spmVocab{name: path, tokens: tokens, scores: scores, types: types,
		unkID: -1, bosID: -1, merges: merges}
	if err := ggufTokenIDs(path, kvs, len(tokens), map[string]*int32{"tokenizer.ggml.unknown_token_id": &v.unkID, "tokenizer.ggml.bos_token_id": &v.bosID}); err != nil {
		return nil, err
	}
	if v.bosID < 0 {
		return nil, fmt.Errorf("%s at tokenizer.ggml.bos_token_id: a Gemma 4 vocabulary always adds a BOS, and names none", path)
	}
	return newSPMTokenizer(v)
}
