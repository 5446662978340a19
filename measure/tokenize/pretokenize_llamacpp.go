package tokenize

import (
	"regexp"
	"strings"
)

// Pre-tokenizers of llama.cpp's GGUF vocabularies that no tiktoken or tokenizer.json pattern
// of this package shares. Several are a cascade of regular expressions, as llama.cpp's
// llm_tokenizer_bpe runs them: each splits every piece the one before it made into its matches
// and the text between them (which stays a piece of its own), never looking past the piece.

// Names of the cascades and of Qwen3.5's pre-tokenizer, as accepted by pretokenizerByName.
const (
	preQwen35        = "qwen35"         // Qwen3.5: Qwen2's with marks (\p{M}) in letter runs
	preLlamaDefault  = "llama-default"  // llama.cpp's "default" (GPT-NeoX, Aquila: no tokenizer.ggml.pre)
	preFalcon        = "falcon"         // Falcon
	preStarCoder     = "starcoder"      // StarCoder, Refact, Command-R: single digits, then GPT-2
	preDeepSeekLLM   = "deepseek-llm"   // DeepSeek LLM
	preDeepSeekCoder = "deepseek-coder" // DeepSeek Coder
)

// splitQwen35 is `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}|
// ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
func splitQwen35(s string, p int) int {
	const letters = clLetter | clM
	c := cls()
	if n := contraction(s, p, true); n > 0 {
		return p + n
	}
	k0, w0 := c.at(s, p)
	if k0&letters != 0 {
		return c.runOf(s, p+w0, letters)
	}
	if k0&(clNewline|clN) == 0 && p+w0 < len(s) {
		if k1, _ := c.at(s, p+w0); k1&letters != 0 {
			return c.runOf(s, p+w0, letters)
		}
	}
	if k0&clN != 0 {
		return p + w0
	}
	q := p
	if s[p] == ' ' && p+1 < len(s) {
		q = p + 1
	}
	const notPunct = clSpace | letters | clN
	if k, _ := c.at(s, q); k&notPunct == 0 {
		end := c.runOfNot(s, q, notPunct)
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	return c.whitespaceTail(s, p, true)
}

// runOfNot returns the end of the run of runes whose class misses mask, from p.
func (c classifier) runOfNot(s string, p int, mask uint16) int {
	for p < len(s) {
		k, w := c.at(s, p)
		if k&mask != 0 {
			break
		}
		p += w
	}
	return p
}

// cascades are the stages of each cascade pre-tokenizer. A stage is a pieceSplitter of this
// package or a regular expression; `\s` is written as the class of white space llama.cpp's
// regular expressions match (ASCII white space and the Unicode spaces).
var cascades = map[string][]any{
	preLlamaDefault: {`[\p{P}$+<=>^~|]+`, pieceSplitter(splitGPT2), `\p{N}+`, `[0-9][0-9][0-9]`},
	preFalcon:       {"[\\p{P}$+<=>^~|`]+", pieceSplitter(splitGPT2), `[0-9][0-9][0-9]`},
	preStarCoder:    {`\p{N}`, pieceSplitter(splitGPT2)},
	preDeepSeekLLM: {`[\r\n]`,
		`\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+`,
		`\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+`, `\s+$`, cjkHangul, `\p{N}+`},
	preDeepSeekCoder: {`[\r\n]`, `\s?\p{L}+`, `\s?\p{P}+`, cjkHangul, `\p{N}`},
}

// cjkHangul is llama.cpp's `[一-龥ࠀ-一가-퟿]+` of the DeepSeek pre-tokenizers.
const cjkHangul = `[\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+`

// llamaSpaceClass is `\s` of llama.cpp's regular expressions.
const llamaSpaceClass = `[\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]`

// cascadeStage is one compiled stage: a splitter or a regular expression.
type cascadeStage struct {
	split pieceSplitter
	re    *regexp.Regexp
}

// compileCascade compiles the stages of a cascade pre-tokenizer.
func compileCascade(stages []any) []cascadeStage {
	out := make([]cascadeStage, len(stages))
	for i, st := range stages {
		switch x := st.(type) {
		case pieceSplitter:
			out[i].split = x
		case string:
			out[i].re = regexp.MustCompile(strings.ReplaceAll(x, `\s`, llamaSpaceClass))
		}
	}
	return out
}

// splitCascade calls fn with each piece of s, stage by stage.
func splitCascade(stages []cascadeStage, s string, fn func(piece string)) {
	if s == "" {
		return
	}
	if len(stages) == 0 {
		fn(s)
		return
	}
	st, rest := stages[0], stages[1:]
	if st.split != nil {
		for p := 0; p < len(s); {
			end := st.split(s, p)
			splitCascade(rest, s[p:end], fn)
			p = end
		}
		return
	}
	last := 0
	for _, m := range st.re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] {
			continue
		}
		splitCascade(rest, s[last:m[0]], fn)
		splitCascade(rest, s[m[0]:m[1]], fn)
		last = m[1]
	}
	splitCascade(rest, s[last:], fn)
}
