package measure

import (
	"fmt"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenEncoding describes one built-in OpenAI encoding.
type tiktokenEncoding struct {
	file         string // rank file name inside tiktoken-go-loader's embedded assets
	pretokenizer string
	specials     map[string]uint32
}

// tiktokenEncodings are the OpenAI encodings shipped in the binary (through
// github.com/pkoukk/tiktoken-go-loader, which embeds the rank files: no network access).
func tiktokenEncodings(name string) (tiktokenEncoding, bool) {
	switch name {
	case "o200k_base":
		return tiktokenEncoding{file: "o200k_base.tiktoken", pretokenizer: preO200K,
			specials: map[string]uint32{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}}, true
	case "cl100k_base":
		return tiktokenEncoding{file: "cl100k_base.tiktoken", pretokenizer: preCL100K,
			specials: map[string]uint32{"<|endoftext|>": 100257, "<|fim_prefix|>": 100258,
				"<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}}, true
	}
	return tiktokenEncoding{}, false
}

// loadTiktoken builds the tokenizer of a built-in OpenAI encoding.
func loadTiktoken(name string) (*BPETokenizer, error) {
	enc, ok := tiktokenEncodings(name)
	if !ok {
		return nil, fmt.Errorf("unknown tiktoken encoding %q (known: o200k_base, cl100k_base)", name)
	}
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(enc.file)
	if err != nil {
		return nil, fmt.Errorf("load %s ranks: %w", name, err)
	}
	vocab := make(map[string]uint32, len(ranks))
	for tok, rank := range ranks {
		if rank < 0 {
			return nil, fmt.Errorf("load %s ranks: token %q has negative rank %d", name, tok, rank)
		}
		vocab[tok] = uint32(rank)
	}
	return newBPETokenizer(bpeSpec{
		name:            name,
		mode:            rankByConcatenation,
		vocab:           vocab,
		wholePieceFirst: true,
		pretokenizer:    enc.pretokenizer,
		specials:        enc.specials,
	})
}
