package tokenize

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Pre-tokenizers split text into the pieces that BPE then encodes one by one. Each is a hand
// written state machine equivalent to one regular expression, under the semantics of the
// backtracking engines that tiktoken-go (regexp2), Hugging Face tokenizers (Oniguruma) and
// llama.cpp use: alternatives are tried in order, the first that matches wins, quantifiers are
// greedy and give back characters only as far as needed. Character classes use Go's Unicode
// tables (the same tables regexp2 uses): \p{L} = unicode.Letter, \p{N} = unicode.Number,
// \s = unicode.IsSpace. The `(?i:…)` contractions are matched with ASCII case folding only
// (regexp2 lower-cases each input rune; no other rune lower-cases to s, t, r, e, v, m, l or d).

// pieceSplitter returns the end (byte offset) of the piece that starts at p; p < len(s) and
// s is valid UTF-8. The result is always > p.
type pieceSplitter func(s string, p int) int

// Pre-tokenizer names, as accepted by pretokenizerByName.
const (
	preO200K  = "o200k"  // tiktoken o200k_base (GPT-4o, GPT-4.1, GPT-5)
	preCL100K = "cl100k" // tiktoken cl100k_base; also Llama 3
	preQwen2  = "qwen2"  // Qwen2, Qwen2.5, Qwen3: cl100k with single digits
	preGPT2   = "gpt2"   // GPT-2, r50k/p50k, ByteLevel use_regex=true
)

// Regular expressions implemented by the splitters (as written in the vocabularies' files).
const (
	regexO200K  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	regexCL100K = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	regexQwen2  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	regexGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// pretokenizerByName returns the splitter of a pre-tokenizer name.
func pretokenizerByName(name string) (pieceSplitter, bool) {
	switch name {
	case preO200K:
		return splitO200KFast, true
	case preCL100K:
		return splitCL100K, true
	case preQwen2:
		return splitQwen2, true
	case preGPT2:
		return splitGPT2, true
	case preQwen35:
		return splitQwen35, true
	case preDSV3HF:
		return splitDSV3, true
	}
	return nil, false
}

// pretokenizerByRegex returns the pre-tokenizer name whose regular expression is exactly re.
func pretokenizerByRegex(re string) (string, bool) {
	switch re {
	case regexO200K:
		return preO200K, true
	case regexCL100K:
		return preCL100K, true
	case regexQwen2:
		return preQwen2, true
	case regexGPT2:
		return preGPT2, true
	}
	return "", false
}

// Character class bits.
const (
	clLu      uint16 = 1 << iota // uppercase letter
	clLl                         // lowercase letter
	clLt                         // titlecase letter
	clLm                         // modifier letter
	clLo                         // other letter
	clM                          // mark
	clN                          // number
	clSpace                      // unicode.IsSpace
	clNewline                    // \r or \n

	clLetter = clLu | clLl | clLt | clLm | clLo
	// clUpperish is o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
	clUpperish = clLu | clLt | clLm | clLo | clM
	// clLowerish is o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}].
	clLowerish = clLl | clLm | clLo | clM
)

// computeClass classifies one rune from the Unicode tables.
func computeClass(r rune) uint16 {
	var c uint16
	switch {
	case unicode.Is(unicode.Lu, r):
		c |= clLu
	case unicode.Is(unicode.Ll, r):
		c |= clLl
	case unicode.Is(unicode.Lt, r):
		c |= clLt
	case unicode.Is(unicode.Lm, r):
		c |= clLm
	case unicode.Is(unicode.Lo, r):
		c |= clLo
	case unicode.Is(unicode.M, r):
		c |= clM
	case unicode.Is(unicode.N, r):
		c |= clN
	}
	if unicode.IsSpace(r) {
		c |= clSpace
	}
	if r == '\r' || r == '\n' {
		c |= clNewline
	}
	return c
}

// bmpClasses is the class of every rune of the Basic Multilingual Plane, computed once and
// read-only afterwards.
var bmpClasses = sync.OnceValue(func() *[0x10000]uint16 {
	var t [0x10000]uint16
	for r := rune(0); r < 0x10000; r++ {
		t[r] = computeClass(r)
	}
	return &t
})

// classifier gives rune classes from the precomputed table.
type classifier struct{ bmp *[0x10000]uint16 }

// at decodes the rune at p and returns its class and width.
func (c classifier) at(s string, p int) (uint16, int) {
	b := s[p]
	if b < utf8.RuneSelf {
		return c.bmp[b], 1
	}
	r, w := utf8.DecodeRuneInString(s[p:])
	if r < 0x10000 {
		return c.bmp[r], w
	}
	return computeClass(r), w
}

// cls returns the classifier over the shared, immutable table.
func cls() classifier { return classifier{bmp: bmpClasses()} }

// contraction returns the length of a contraction 's 't 're 've 'm 'll 'd at p (0 if none).
// foldCase allows upper-case letters (the `(?i:…)` form).
func contraction(s string, p int, foldCase bool) int {
	if p >= len(s) || s[p] != '\'' || p+1 >= len(s) {
		return 0
	}
	lower := func(b byte) byte {
		if foldCase && b >= 'A' && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(s[p+1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if p+2 < len(s) && lower(s[p+2]) == 'e' {
			return 3
		}
	case 'l':
		if p+2 < len(s) && lower(s[p+2]) == 'l' {
			return 3
		}
	}
	return 0
}

// runOf returns the end of the run of runes whose class intersects mask, from p.
func (c classifier) runOf(s string, p int, mask uint16) int {
	for p < len(s) {
		k, w := c.at(s, p)
		if k&mask == 0 {
			break
		}
		p += w
	}
	return p
}

// isPunct reports [^\s\p{L}\p{N}].
func isPunct(k uint16) bool { return k&(clSpace|clLetter|clN) == 0 }

// whitespaceTail implements `\s*[\r\n]+|\s+(?!\S)|\s+` at p (s[p] is whitespace); with
// newlineRule false the first alternative is left out (GPT-2).
func (c classifier) whitespaceTail(s string, p int, newlineRule bool) int {
	end, lastNewlineEnd, lastRuneStart := p, -1, p
	for end < len(s) {
		k, w := c.at(s, end)
		if k&clSpace == 0 {
			break
		}
		if k&clNewline != 0 {
			lastNewlineEnd = end + w
		}
		lastRuneStart = end
		end += w
	}
	if newlineRule && lastNewlineEnd >= 0 {
		return lastNewlineEnd
	}
	if end == len(s) || lastRuneStart == p {
		return end
	}
	return lastRuneStart
}

// splitCL100K is cl100k_base's (and Llama 3's) pattern.
func splitCL100K(s string, p int) int { return splitLlama3Like(s, p, 3) }

// splitQwen2 is Qwen2/Qwen3's pattern: cl100k with one digit per piece.
func splitQwen2(s string, p int) int { return splitLlama3Like(s, p, 1) }

func splitLlama3Like(s string, p, maxDigits int) int {
	c := cls()
	if n := contraction(s, p, true); n > 0 {
		return p + n
	}
	k0, w0 := c.at(s, p)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if k0&clLetter != 0 {
		return c.runOf(s, p+w0, clLetter)
	}
	if k0&(clNewline|clN) == 0 && p+w0 < len(s) {
		if k1, w1 := c.at(s, p+w0); k1&clLetter != 0 {
			return c.runOf(s, p+w0+w1, clLetter)
		}
	}
	// \p{N}{1,maxDigits}
	if k0&clN != 0 {
		end := p + w0
		for n := 1; n < maxDigits && end < len(s); n++ {
			k, w := c.at(s, end)
			if k&clN == 0 {
				break
			}
			end += w
		}
		return end
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	if end, ok := c.spacePunct(s, p, k0, w0, false); ok {
		return end
	}
	return c.whitespaceTail(s, p, true)
}

// spacePunct implements ` ?[^\s\p{L}\p{N}]+[\r\n]*` (slash adds '/' to the trailing set).
func (c classifier) spacePunct(s string, p int, k0 uint16, w0 int, slash bool) (int, bool) {
	q := p
	if s[p] == ' ' {
		q = p + 1
		if q >= len(s) {
			return 0, false
		}
		k0, w0 = c.at(s, q)
	}
	if !isPunct(k0) {
		return 0, false
	}
	end := q + w0
	for end < len(s) {
		k, w := c.at(s, end)
		if !isPunct(k) {
			break
		}
		end += w
	}
	for end < len(s) && (s[end] == '\r' || s[end] == '\n' || (slash && s[end] == '/')) {
		end++
	}
	return end, true
}

// splitO200K is o200k_base's pattern.
func splitO200K(s string, p int) int {
	c := cls()
	k0, w0 := c.at(s, p)
	// [^\r\n\p{L}\p{N}]? may take the first rune; the pattern then backtracks to not taking it.
	prefixOK := k0&(clNewline|clLetter|clN) == 0
	if prefixOK && p+w0 < len(s) {
		if end, ok := c.o200kCaseRunA(s, p+w0); ok {
			return end
		}
	}
	if end, ok := c.o200kCaseRunA(s, p); ok {
		return end
	}
	if prefixOK && p+w0 < len(s) {
		if end, ok := c.o200kCaseRunB(s, p+w0); ok {
			return end
		}
	}
	if end, ok := c.o200kCaseRunB(s, p); ok {
		return end
	}
	// \p{N}{1,3}
	if k0&clN != 0 {
		end := p + w0
		for n := 1; n < 3 && end < len(s); n++ {
			k, w := c.at(s, end)
			if k&clN == 0 {
				break
			}
			end += w
		}
		return end
	}
	if end, ok := c.spacePunct(s, p, k0, w0, true); ok {
		return end
	}
	return c.whitespaceTail(s, p, true)
}

// o200kCaseRunA matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ and the
// optional contraction at q.
func (c classifier) o200kCaseRunA(s string, q int) (int, bool) {
	// The starred class runs as far as it can; then the plus class must match at least one
	// rune, giving runes back from the right when needed.
	end, lastBoth := q, -1
	for end < len(s) {
		k, w := c.at(s, end)
		if k&clUpperish == 0 {
			break
		}
		if k&clLowerish != 0 {
			lastBoth = end + w
		}
		end += w
	}
	if end < len(s) {
		if k, w := c.at(s, end); k&clLowerish != 0 {
			end = c.runOf(s, end+w, clLowerish)
			return end + contraction(s, end, true), true
		}
	}
	if lastBoth < 0 {
		return 0, false
	}
	return lastBoth + contraction(s, lastBoth, true), true
}

// o200kCaseRunB matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* and the
// optional contraction at q.
func (c classifier) o200kCaseRunB(s string, q int) (int, bool) {
	end := c.runOf(s, q, clUpperish)
	if end == q {
		return 0, false
	}
	end = c.runOf(s, end, clLowerish)
	return end + contraction(s, end, true), true
}

// splitGPT2 is GPT-2's pattern (case-sensitive contractions, no newline rule).
func splitGPT2(s string, p int) int {
	c := cls()
	if n := contraction(s, p, false); n > 0 {
		return p + n
	}
	q := p
	k, w := c.at(s, p)
	if s[p] == ' ' && p+1 < len(s) {
		if k1, w1 := c.at(s, p+1); k1&clSpace == 0 {
			q, k, w = p+1, k1, w1
		}
	}
	switch {
	case k&clLetter != 0:
		return c.runOf(s, q+w, clLetter)
	case k&clN != 0:
		return c.runOf(s, q+w, clN)
	case isPunct(k):
		end := q + w
		for end < len(s) {
			k2, w2 := c.at(s, end)
			if !isPunct(k2) {
				break
			}
			end += w2
		}
		return end
	}
	return c.whitespaceTail(s, p, false)
}

// ASCII kinds of the fast o200k splitter.
const (
	akUpper   uint8 = 1 << iota // A-Z
	akLower                     // a-z
	akDigit                     // 0-9
	akSpace                     // \t \n \v \f \r and space
	akNewline                   // \r \n
	akPunct                     // every other ASCII byte: [^\s\p{L}\p{N}]

	akLetter = akUpper | akLower
)

// asciiKinds is the kind of each ASCII byte; read-only.
var asciiKinds = func() (t [128]uint8) {
	for b := 0; b < 128; b++ {
		switch {
		case b >= 'A' && b <= 'Z':
			t[b] = akUpper
		case b >= 'a' && b <= 'z':
			t[b] = akLower
		case b >= '0' && b <= '9':
			t[b] = akDigit
		case b == '\r' || b == '\n':
			t[b] = akSpace | akNewline
		case b == ' ' || (b >= '\t' && b <= '\r'):
			t[b] = akSpace
		default:
			t[b] = akPunct
		}
	}
	return t
}()

// asciiRun returns the end of the run of ASCII bytes of the given kinds from p, and whether it
// stopped at a non-ASCII byte (then the caller cannot decide alone).
func asciiRun(s string, p int, kinds uint8) (int, bool) {
	for p < len(s) {
		b := s[p]
		if b >= utf8.RuneSelf {
			return p, true
		}
		if asciiKinds[b]&kinds == 0 {
			return p, false
		}
		p++
	}
	return p, false
}

// splitO200KFast is splitO200K with a fast path for pieces of ASCII letters, digits and
// punctuation (the bulk of code, logs, JSON and base64); anything else, and any piece whose
// end depends on a non-ASCII rune, goes to splitO200K. In ASCII the o200k classes reduce to:
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] = A-Z, [\p{Ll}\p{Lm}\p{Lo}\p{M}] = a-z.
func splitO200KFast(s string, p int) int {
	b := s[p]
	if b >= utf8.RuneSelf {
		return splitO200K(s, p)
	}
	k := asciiKinds[b]
	q := -1 // start of the letters, after the optional one-rune prefix
	switch {
	case k&akLetter != 0:
		q = p
	case k&(akNewline|akDigit) == 0 && p+1 < len(s):
		if b1 := s[p+1]; b1 < utf8.RuneSelf && asciiKinds[b1]&akLetter != 0 {
			q = p + 1
		} else if b1 >= utf8.RuneSelf {
			return splitO200K(s, p)
		}
	}
	if q >= 0 {
		// [A-Z]*[a-z]+ first, else [A-Z]+[a-z]*; then an optional contraction.
		end, stop := asciiRun(s, q, akUpper)
		if stop {
			return splitO200K(s, p)
		}
		if end < len(s) && s[end] >= 'a' && s[end] <= 'z' || end == q {
			if end, stop = asciiRun(s, end, akLower); stop {
				return splitO200K(s, p)
			}
		} else if end, stop = asciiRun(s, end, akLower); stop {
			return splitO200K(s, p)
		}
		if end < len(s) && s[end] == '\'' { // else no contraction, without the call
			end += contraction(s, end, true)
		}
		return end
	}
	switch {
	case k&akDigit != 0: // \p{N}{1,3}
		end := p + 1
		for n := 1; n < 3 && end < len(s); n++ {
			c := s[end]
			if c >= utf8.RuneSelf {
				return splitO200K(s, p)
			}
			if asciiKinds[c]&akDigit == 0 {
				break
			}
			end++
		}
		return end
	case k&akPunct != 0, b == ' ' && p+1 < len(s) && s[p+1] < utf8.RuneSelf && asciiKinds[s[p+1]]&akPunct != 0:
		// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
		start := p
		if b == ' ' {
			start++
		}
		end, stop := asciiRun(s, start, akPunct)
		if stop {
			return splitO200K(s, p)
		}
		for end < len(s) && (s[end] == '\r' || s[end] == '\n' || s[end] == '/') {
			end++
		}
		return end
	}
	return splitO200K(s, p)
}
