package measure

import "fmt"

// LoadHFTokenizer loads a Hugging Face tokenizer.json.
func LoadHFTokenizer(path string) (*BPETokenizer, error) {
	return nil, fmt.Errorf("load %s: not implemented yet", path)
}
