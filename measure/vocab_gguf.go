package measure

import "fmt"

// LoadGGUFTokenizer loads the tokenizer of a model GGUF file.
func LoadGGUFTokenizer(path string) (*BPETokenizer, error) {
	return nil, fmt.Errorf("load %s: not implemented yet", path)
}
