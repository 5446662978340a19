package measure

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/strata-eval/strata-eval/corpora"
)

// TextCount is the text side of a request's prompt: tokens of framing and content, and the
// pictures in prompt order (their rows and markers are counted elsewhere).
type TextCount struct {
	// Tokens counts every text token: framing (special tokens included) and content.
	Tokens int `json:"tokens"`
	// SpecialTokens is how many of Tokens are special/control tokens of the framing.
	SpecialTokens int `json:"special_tokens"`
	// Images are the pictures of the prompt, in order.
	Images []*corpora.Image `json:"-"`
}

// Counter counts the text tokens of requests with one tokenizer and one chat template. Runs
// of text met before (a conversation re-sends its whole history every turn) are counted once:
// results are cached by the SHA-256 of the text. A Counter is safe for concurrent use.
type Counter struct {
	tok      Tokenizer
	template Template

	mu     sync.RWMutex
	cache  map[[sha256.Size]byte]int
	hits   atomic.Int64
	misses atomic.Int64
}

// Cache limits: runs shorter than minCachedRun are counted directly (hashing would cost as
// much); the cache is emptied when it reaches maxCacheEntries.
const (
	minCachedRun    = 256
	maxCacheEntries = 1 << 20
)

// NewCounter returns a Counter for a tokenizer and a chat template.
func NewCounter(tok Tokenizer, template Template) *Counter {
	return &Counter{tok: tok, template: template, cache: map[[sha256.Size]byte]int{}}
}

// Tokenizer returns the counter's tokenizer.
func (c *Counter) Tokenizer() Tokenizer { return c.tok }

// Template returns the counter's chat template.
func (c *Counter) Template() Template { return c.template }

// CacheStats reports how many text runs were answered from the cache and how many were
// tokenized.
func (c *Counter) CacheStats() (hits, misses int64) {
	return c.hits.Load(), c.misses.Load()
}

// CountRequest renders a request with the template and counts its text tokens.
func (c *Counter) CountRequest(msgs []corpora.Message, tools []corpora.ToolDef) (TextCount, error) {
	segs, err := c.template.Render(msgs, tools)
	if err != nil {
		return TextCount{}, fmt.Errorf("render with template %s: %w", c.template.Name(), err)
	}
	return c.CountSegments(segs), nil
}

// framingSplitter is implemented by tokenizers that can split framing text at special tokens.
type framingSplitter interface {
	splitFraming(text string, fn func(chunk string, special bool))
}

// CountSegments counts rendered segments. Ordinary text between two special tokens (or
// pictures) is tokenized as one run, the way a server tokenizes the whole prompt string, so
// a content/framing boundary never splits a pre-tokenizer piece differently. A run is also
// cut where it is provably a piece boundary (see safeCut), so that each message's text is
// cached on its own even when the vocabulary lacks the template's control tokens.
func (c *Counter) CountSegments(segs []Segment) TextCount {
	var out TextCount
	var run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			out.Tokens += c.countRun(run.String())
			run.Reset()
		}
	}
	appendRun := func(text string) {
		if text == "" {
			return
		}
		if run.Len() > 0 && safeCut(run.String(), text) {
			flush()
		}
		run.WriteString(text)
	}
	splitter, canSplit := c.tok.(framingSplitter)
	for _, s := range segs {
		switch {
		case s.Image != nil:
			flush()
			out.Images = append(out.Images, s.Image)
		case s.Special && canSplit:
			splitter.splitFraming(s.Text, func(chunk string, special bool) {
				if special {
					flush()
					out.Tokens++
					out.SpecialTokens++
					return
				}
				appendRun(chunk)
			})
		case s.Special:
			flush()
			out.Tokens += c.tok.CountFraming(s.Text)
		default:
			appendRun(s.Text)
		}
	}
	flush()
	return out
}

// safeCut reports whether tokenizing before+after equals tokenizing both apart: true when
// before ends with "\n" and after starts with a rune that is neither white space nor '/'.
// No alternative of the o200k, cl100k/Llama 3, Qwen2 or GPT-2 patterns continues a piece
// past a newline except with \r, \n (cl100k, Qwen2, o200k), '/' (o200k) or more white space,
// and a piece starting after the cut does not look behind. NFC cannot compose across a
// newline either.
func safeCut(before, after string) bool {
	if before[len(before)-1] != '\n' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(after)
	return r != '/' && !unicode.IsSpace(r)
}

// countRun counts one run of ordinary text through the cache.
func (c *Counter) countRun(text string) int {
	if len(text) < minCachedRun {
		return c.tok.Count(text)
	}
	// Hash the string's bytes in place: converting a megabyte of base64 to []byte would copy it.
	key := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
	c.mu.RLock()
	n, ok := c.cache[key]
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
		return n
	}
	n = c.tok.Count(text)
	c.misses.Add(1)
	c.mu.Lock()
	if len(c.cache) >= maxCacheEntries {
		clear(c.cache)
	}
	c.cache[key] = n
	c.mu.Unlock()
	return n
}
