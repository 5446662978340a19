package tokenize

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
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
	vocab, err := readTiktokenRanks(enc.file)
	if err != nil {
		return nil, fmt.Errorf("load %s ranks: %w", name, err)
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

// readTiktokenRanks reads a rank file of tiktoken-go-loader's embedded assets (one token a
// line: its bytes in base64, a space, its rank) into a vocabulary. It reads what the loader's
// LoadTiktokenBpe reads (TestReadTiktokenRanksMatchesLoader), with every token a sub-string of
// one string and the map sized once, in about a third of the time.
func readTiktokenRanks(file string) (map[string]uint32, error) {
	data, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	raw := make([]byte, 0, len(data)*3/4)
	type entry struct{ start, end, rank int }
	entries := make([]entry, 0, lines)
	for no := 1; len(data) > 0; no++ {
		line := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%s:%d: no space between token and rank", file, no)
		}
		start := len(raw)
		raw = raw[:start+base64.StdEncoding.DecodedLen(sp)]
		n, err := base64.StdEncoding.Decode(raw[start:], line[:sp])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token: %w", file, no, err)
		}
		raw = raw[:start+n]
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil || rank < 0 || rank > 1<<31 {
			return nil, fmt.Errorf("%s:%d: rank %q is not a rank", file, no, line[sp+1:])
		}
		entries = append(entries, entry{start, start + n, rank})
	}
	all := string(raw)
	vocab := make(map[string]uint32, len(entries))
	for _, e := range entries {
		vocab[all[e.start:e.end]] = uint32(e.rank)
	}
	return vocab, nil
}
