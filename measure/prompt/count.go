package prompt

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/vecscan"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// Counter counts the text tokens of requests with one tokenizer and one chat template. Runs
// of text met before (a conversation re-sends its whole history every turn) are counted once:
// results are cached by a 128-bit keyed hash of the text (see textKey). A long run is cut into
// content-defined chunks at provable piece boundaries (see nextChunk), each cached on its own
// (the run is not keyed whole, see countRunParts), so a megabyte of base64 embedded in
// differing text (the same screenshot in another tool result) is still counted once. The last
// long runs are also remembered by the identity of their strings (see recentRun), so the arms
// of one case, which hand over the same tool texts, do not scan and hash them again. A Counter
// is safe for concurrent use; a text one goroutine is tokenizing is waited for by the others
// (with -j 2 the next request of a conversation, which re-sends it, is measured beside the
// request that brought it), so every text is tokenized once.
type Counter struct {
	tok      tokenize.Tokenizer
	template Template
	// chunkable says whether long runs may be cut into chunks: the tokenizer is this package's
	// byte-level BPE with a pre-tokenizer the cut rules are proven for.
	chunkable bool
	// seeds key the two 64-bit halves of the cache key; random per Counter.
	seeds [2]maphash.Seed

	mu     sync.RWMutex
	cache  map[textKey]int
	hits   atomic.Int64
	misses atomic.Int64
	// counting holds the texts being tokenized, so that a goroutine that meets one waits for
	// its count rather than tokenizing it too.
	counting map[textKey]*pendingCount

	// recent remembers the counts of the last long runs by the identity of their bytes (see
	// recentCount), oldest first; recentBytes is the sum of their lengths.
	recentMu    sync.Mutex
	recent      []recentRun
	recentBytes int
}

// textKey identifies a run of text in the cache: its length and two 64-bit maphash values
// under independent random seeds. maphash is keyed (AES-based on amd64/arm64) and the seeds are
// drawn per process, so inputs cannot be crafted to collide; for two distinct texts of equal
// length the chance that both halves collide is about 2⁻¹²⁸, and with at most maxCacheEntries
// (2²⁰) entries and 2⁴⁰ look-ups the chance of any wrong count stays below 2⁻⁶⁸. It hashes at
// memory speed where SHA-256 took 5% of a replay.
type textKey struct {
	lo, hi uint64
	n      int
}

// Cache limits: runs shorter than minCachedRun are counted directly (hashing would cost as
// much); the cache is emptied when it reaches maxCacheEntries.
const (
	minCachedRun    = 256
	maxCacheEntries = 1 << 20
)

// recentRun is a long run counted lately, as the parts it was handed in, and its count.
// Holding the strings keeps their bytes alive, so no other text can come to lie at the same
// addresses while the entry is kept: a part at the same address with the same length is the
// same text (strings are immutable).
type recentRun struct {
	parts []string
	n     int
}

// Limits of Counter.recent: the arms of one case hand the counter the same strings (a tool text
// that no arm changes, the history), each first hashed by the arm before; runs from
// minRecentRun to maxRecentRun bytes are remembered, at most maxRecentRuns of them and
// maxRecentBytes in all, which bounds the memory the entries keep alive.
const (
	minRecentRun   = 32 << 10
	maxRecentRun   = 16 << 20
	maxRecentRuns  = 16
	maxRecentBytes = 48 << 20
)

// isRecentSize says whether a run of n bytes is one the recent runs take.
func isRecentSize(n int) bool { return n >= minRecentRun && n <= maxRecentRun }

// recentCount returns the count of the run made of parts when it is one of the recent runs:
// the same strings at the same addresses, compared without reading their bytes, or else the
// newest run with the same part lengths, compared byte for byte (the next request of a
// conversation re-sends its history as new strings); a run found by its bytes is remembered
// under its own strings.
func (c *Counter) recentCount(parts []string) (int, bool) {
	var candidate recentRun
	c.recentMu.Lock()
	for i := len(c.recent) - 1; i >= 0; i-- {
		r := c.recent[i]
		if sameStrings(r.parts, parts) {
			c.recentMu.Unlock()
			return r.n, true
		}
		if candidate.parts == nil && sameLengths(r.parts, parts) {
			candidate = r
		}
	}
	c.recentMu.Unlock()
	if candidate.parts == nil || !slices.Equal(candidate.parts, parts) {
		return 0, false
	}
	runLen := 0
	for _, p := range parts {
		runLen += len(p)
	}
	c.rememberRecent(parts, runLen, candidate.n)
	return candidate.n, true
}

// sameLengths says whether a and b have as many parts, of the same lengths.
func sameLengths(a, b []string) bool {
	return slices.EqualFunc(a, b, func(x, y string) bool { return len(x) == len(y) })
}

// sameStrings says whether a and b hold the same texts: each pair of the same length at the
// same address, or short (at most maxComparedPart bytes) and equal. The framing around a tool
// text is built afresh for every rendering, the tool text itself is the same string.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		if unsafe.StringData(a[i]) != unsafe.StringData(b[i]) && (len(a[i]) > maxComparedPart || a[i] != b[i]) {
			return false
		}
	}
	return true
}

// maxComparedPart is the longest part sameStrings compares by its bytes.
const maxComparedPart = 4 << 10

// rememberRecent adds a run of runLen bytes (given as its parts, copied) and its count to the
// recent runs, dropping the oldest past the limits.
func (c *Counter) rememberRecent(parts []string, runLen, n int) {
	c.recentMu.Lock()
	defer c.recentMu.Unlock()
	c.recent = append(c.recent, recentRun{parts: append([]string(nil), parts...), n: n})
	c.recentBytes += runLen
	drop := 0
	for len(c.recent)-drop > maxRecentRuns || c.recentBytes > maxRecentBytes {
		for _, p := range c.recent[drop].parts {
			c.recentBytes -= len(p)
		}
		drop++
	}
	if drop > 0 {
		k := copy(c.recent, c.recent[drop:])
		clear(c.recent[k:])
		c.recent = c.recent[:k]
	}
}

// NewCounter returns a Counter for a tokenizer and a chat template.
func NewCounter(tok tokenize.Tokenizer, template Template) *Counter {
	bpe, ok := tok.(*tokenize.BPETokenizer)
	chunkable := ok && bpe.CutsProven()
	return &Counter{tok: tok, template: template, chunkable: chunkable,
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, cache: map[textKey]int{},
		counting: map[textKey]*pendingCount{}}
}

// Tokenizer returns the counter's tokenizer.
func (c *Counter) Tokenizer() tokenize.Tokenizer { return c.tok }

// Template returns the counter's chat template.
func (c *Counter) Template() Template { return c.template }

// CacheStats reports how many text runs were answered from the cache and how many were
// tokenized.
func (c *Counter) CacheStats() (hits, misses int64) {
	return c.hits.Load(), c.misses.Load()
}

// CountRequest renders a request with the template and counts its text tokens.
func (c *Counter) CountRequest(msgs []corpora.Message, tools []corpora.ToolDef) (TextCount, error) {
	if argumentsHoldRun(msgs) {
		// a template parses the arguments as JSON, which the marker's NUL bytes are not: it
		// would write them otherwise than the arguments held whole
		return TextCount{}, errors.New("a tool call's arguments hold a base64 run streamed past while reading: they cannot be counted as the template writes them")
	}
	segs, err := c.template.Render(msgs, tools)
	if err != nil {
		return TextCount{}, fmt.Errorf("render with template %s: %w", c.template.Name(), err)
	}
	if o, ok := c.template.(*OllamaTemplate); ok {
		if heldRun(segs) {
			return TextCount{}, errors.New("the Ollama tokenizer cannot count a tool text whose base64 run was streamed past while reading")
		}
		if tc, ok := o.CountPrompt(segs); ok {
			return tc, nil // Ollama's own tokenizer, as its server counts
		}
	}
	tc := c.CountSegments(segs)
	if tc.Unknown != "" {
		return tc, errors.New(tc.Unknown)
	}
	if b, ok := c.tok.(bosAdder); ok {
		if bos, adds := b.AddedBOS(); adds {
			if startsWith(segs, bos) {
				// the server takes the template's BOS off and adds its own after placing the
				// pictures: it is not before them
				for i := range tc.ImageStarts {
					tc.ImageStarts[i] = max(tc.ImageStarts[i]-1, 0)
				}
			} else {
				tc.Tokens++ // the BOS the vocabulary adds, as the server does
				tc.SpecialTokens++
			}
		}
	}
	return tc, nil
}

// bosAdder is a tokenizer whose vocabulary adds a BOS token in front of every  llama.cpp
// takes off a BOS the template wrote at the very start of the prompt and then adds its own, so
// the prompt holds one BOS either way: one is counted when the template wrote none.
type bosAdder interface {
	AddedBOS() (string, bool)
}

// startsWith says whether the rendered text of segs begins with prefix.
func startsWith(segs []Segment, prefix string) bool {
	for _, s := range segs {
		if s.Image != nil {
			return false
		}
		n := min(len(s.Text), len(prefix))
		if s.Text[:n] != prefix[:n] {
			return false
		}
		if prefix = prefix[n:]; prefix == "" {
			return true
		}
	}
	return false
}

// framingSplitter is implemented by tokenizers that can split framing text at special tokens.
type framingSplitter interface {
	SplitFraming(text string, fn func(chunk string, special bool))
}

// CountSegments counts rendered segments. Ordinary text between two special tokens (or
// pictures) is tokenized as one run, the way a server tokenizes the whole prompt string, so
// a content/framing boundary never splits a pre-tokenizer piece differently. A run is also
// cut where it is provably a piece boundary (see safeCut), so that each message's text is
// cached on its own even when the vocabulary lacks the template's control tokens.
func (c *Counter) CountSegments(segs []Segment) TextCount {
	var out TextCount
	// The run is kept as its parts and joined only when it has more than one: a run is often
	// a single multi-megabyte tool text, which is then counted without a copy.
	var parts []string
	runLen := 0
	flush := func() {
		switch len(parts) {
		case 0:
			return
		case 1:
			out.Tokens += c.countRun(parts[0])
		default:
			out.Tokens += c.countRunParts(parts, runLen)
		}
		parts, runLen = parts[:0], 0
	}
	appendRun := func(text string) {
		if text == "" {
			return
		}
		if c.chunkable && len(parts) > 0 && safeCut(parts[len(parts)-1], text) {
			flush()
		}
		parts = append(parts, text)
		runLen += len(text)
	}
	splitter, canSplit := c.tok.(framingSplitter)
	for _, s := range segs {
		if s.Image == nil && corpora.RewrittenRun(s.Text) {
			out.Unknown = "the template rewrote the text of a base64 run streamed past while reading (a tool call's arguments re-encoded): it cannot be counted"
			return out
		}
		switch {
		case s.Image != nil:
			flush()
			out.Images = append(out.Images, s.Image)
			out.ImageStarts = append(out.ImageStarts, out.Tokens)
		case s.Special && canSplit:
			splitter.SplitFraming(s.Text, func(chunk string, special bool) {
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
		case corpora.HasLargeRun(s.Text):
			// text, Head | Middle | Tail, text: cut where the run's own cuts are
			last := 0
			for _, r := range corpora.LargeRuns(s.Text) {
				rc, err := c.runCountOf(r)
				if err != nil {
					out.Unknown = err.Error()
					return out
				}
				appendRun(s.Text[last:r.Start])
				appendRun(rc.Head)
				flush()
				out.Tokens += int(rc.Middle)
				appendRun(rc.Tail)
				last = r.End
			}
			appendRun(s.Text[last:])
		default:
			appendRun(s.Text)
		}
	}
	flush()
	return out
}

// argumentsHoldRun says whether a tool call's arguments hold a base64 run streamed past.
func argumentsHoldRun(msgs []corpora.Message) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolCall != nil && corpora.MentionsLargeRun(p.ToolCall.Arguments) {
				return true
			}
		}
	}
	return false
}

// heldRun says whether a segment's text holds a base64 run streamed past while reading.
func heldRun(segs []Segment) bool {
	for _, s := range segs {
		if corpora.HasLargeRun(s.Text) {
			return true
		}
	}
	return false
}

// safeCut reports whether tokenizing before+after equals tokenizing both apart with a
// byte-level BPE (a SentencePiece vocabulary puts a "▁" in front of each run): true when
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

// countRun counts one run of ordinary text through the cache: a long run chunk by chunk (see
// countRunParts), any other run of at least minCachedRun bytes under its own key.
func (c *Counter) countRun(text string) int {
	if c.chunkable && len(text) >= minChunkedRun {
		return c.countRunParts([]string{text}, len(text))
	}
	if len(text) < minCachedRun {
		return c.tok.Count(text)
	}
	recent := isRecentSize(len(text))
	if recent {
		if n, ok := c.recentCount([]string{text}); ok {
			c.hits.Add(1)
			return n
		}
	}
	n := c.countChunk(text)
	if recent {
		c.rememberRecent([]string{text}, len(text), n)
	}
	return n
}

// countRunParts counts a run given as its parts without joining them: the same total as
// countRun of their concatenation, and the same content-defined chunks except near the seams
// between parts, where a candidate cut is skipped when its bytes span two parts (fewer cuts
// never change a count). Only short runs and the chunks that span a seam are copied; a
// multi-megabyte tool text framed by newlines is counted in place.
//
// A long run is not looked up whole: a run met again is one of the recent runs (the arms of a
// case hand over the same strings, the next request of a conversation the same bytes) or else
// is answered chunk by chunk, and a run never met before, most of the long runs that get this
// far, is hashed once, chunk by chunk, rather than whole and then chunk by chunk (on the
// bench-scale corpus the whole-run key answered 1% of the bytes it hashed).
func (c *Counter) countRunParts(parts []string, runLen int) int {
	if !c.chunkable || runLen < minChunkedRun {
		return c.countRun(joinParts(parts, runLen))
	}
	recent := isRecentSize(runLen)
	if recent {
		if n, ok := c.recentCount(parts); ok {
			c.hits.Add(1)
			return n
		}
	}
	n := 0
	chunksOfParts(parts, chunkSelectBits, func(chunk string) { n += c.countChunk(chunk) })
	if recent {
		c.rememberRecent(parts, runLen, n)
	}
	return n
}

// chunksOfParts calls fn with each chunk of the concatenation of parts, in order: cut at the
// selected cut points that lie inside one part (see nextChunkIn); a chunk spanning parts is
// joined, any other is a sub-string of its part.
func chunksOfParts(parts []string, selectBits uint, fn func(chunk string)) {
	var pending []string // the start of the current chunk, in the parts before this one
	pendingLen := 0
	for i, p := range parts {
		final := i == len(parts)-1
		for rest := p; len(rest) > 0; {
			end := nextChunkIn(rest, selectBits, final)
			if end == len(rest) && !final {
				pending = append(pending, rest)
				pendingLen += len(rest)
				break
			}
			chunk := rest[:end]
			if len(pending) > 0 {
				chunk = joinParts(append(pending, chunk), pendingLen+len(chunk))
				pending, pendingLen = pending[:0], 0
			}
			fn(chunk)
			rest = rest[end:]
		}
	}
	if len(pending) > 0 { // the last part was empty
		fn(joinParts(pending, pendingLen))
	}
}

// joinParts concatenates parts whose lengths add up to n.
func joinParts(parts []string, n int) string {
	if len(parts) == 1 {
		return parts[0]
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String()
}

// countChunk counts one chunk of a long run, or a run that is not chunked, through the cache.
func (c *Counter) countChunk(text string) int {
	if len(text) < minCachedRun {
		return c.tok.Count(text)
	}
	key := c.keyOf(text)
	if n, ok := c.lookup(key); ok {
		return n
	}
	c.mu.Lock()
	if n, ok := c.cache[key]; ok {
		c.mu.Unlock()
		c.hits.Add(1)
		return n
	}
	if p, ok := c.counting[key]; ok {
		// another goroutine is tokenizing the same text (the next request of a conversation,
		// which re-sends it, measured beside the request that brought it): wait for its count
		c.mu.Unlock()
		<-p.done
		c.hits.Add(1)
		return p.n
	}
	p := &pendingCount{done: make(chan struct{})}
	c.counting[key] = p
	c.mu.Unlock()
	p.n = c.tok.Count(text)
	c.store(key, p.n)
	close(p.done)
	return p.n
}

// pendingCount is a text being tokenized: done is closed once n is set.
type pendingCount struct {
	done chan struct{}
	n    int
}

// keyOf returns the cache key of a text.
func (c *Counter) keyOf(text string) textKey {
	return textKey{lo: maphash.String(c.seeds[0], text), hi: maphash.String(c.seeds[1], text), n: len(text)}
}

// lookup returns the cached count of a key, counting the hit.
func (c *Counter) lookup(key textKey) (int, bool) {
	c.mu.RLock()
	n, ok := c.cache[key]
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
	}
	return n, ok
}

// store caches a count tokenized afresh (a miss).
func (c *Counter) store(key textKey, n int) {
	c.misses.Add(1)
	c.mu.Lock()
	if len(c.cache) >= maxCacheEntries {
		clear(c.cache)
	}
	c.cache[key] = n
	delete(c.counting, key)
	c.mu.Unlock()
}

// Chunking of long runs: runs of at least minChunkedRun bytes are cut at the candidate cut
// points (see isChunkCut) whose 8-byte window hashes to zero in its top chunkSelectBits bits
// (vecscan.WindowHash; 1 in 1024: about 8 KiB of base64 per chunk). The choice depends only on
// the bytes around the cut, never on where the run or the previous chunk began, so the same
// content is cut the same way wherever it appears.
const (
	minChunkedRun   = 32 << 10
	chunkSelectBits = 10
)

// nextChunk returns the end of the first chunk of text: the first selected cut point, or
// len(text). selectBits 0 selects every candidate (tests).
func nextChunk(text string, selectBits uint) int { return nextChunkIn(text, selectBits, true) }

// nextChunkIn is nextChunk for text that is followed by more of the run unless final: then a
// cut whose following rune may continue past the end of text is not taken.
//
// A cut is selected when three independent conditions hold (the window's hash, a digit or a
// newline before it, the cut rules), so their order changes no cut: the hash is tested first,
// at every position, 32 positions a step with AVX2 (vecscan.NextWindowHash), since it passes
// one position in 2^selectBits (TestNextChunkMatchesBytewise holds it to a byte-by-byte walk
// that tests the digit first).
func nextChunkIn(text string, selectBits uint, final bool) int {
	for i := 8; i < len(text); i++ {
		if i = vecscan.NextWindowHash(text, i, selectBits); i == len(text) {
			break
		}
		if chunkCutAt(text, i, final) {
			return i
		}
	}
	return len(text)
}

// chunkCutAt says whether i (8 ≤ i < len(text)), whose window hash passed, is a cut.
func chunkCutAt(text string, i int, final bool) bool {
	if prev := text[i-1]; prev-'0' > 9 && prev != '\n' {
		return false // every cut follows a digit or a newline
	}
	if !isChunkCut(text, i) {
		return false
	}
	// A rune after the newline that is cut off is decided by the next part.
	return final || text[i] < utf8.RuneSelf || utf8.FullRuneInString(text[i:])
}

// isChunkCut reports whether counting text[:i] and text[i:] apart provably gives the tokens of
// text, for every pre-tokenizer of this package (o200k, cl100k/Llama 3, Qwen2, GPT-2), with
// NFC or not, valid UTF-8 or not. Two kinds of cut qualify:
//
//   - an ASCII digit followed by an ASCII letter: no pattern alternative holds both a digit
//     and a letter (the optional one-rune prefix of the letter alternatives excludes \p{N}, the
//     number alternative holds numbers only, the punctuation and space alternatives neither),
//     so the letter starts a piece; the digit run before it ends there with or without the
//     letter behind it (every run that stops at a digit or letter stops at end of text too).
//     Both bytes are ASCII, so U+FFFD replacement of invalid bytes and NFC (an ASCII letter
//     never composes with what precedes it) act the same on each side;
//   - the cut of safeCut: a "\n" followed by a rune that is neither white space nor '/'.
func isChunkCut(text string, i int) bool {
	b, prev := text[i], text[i-1]
	if prev >= '0' && prev <= '9' {
		return digitLetterCut(prev, b)
	}
	if prev != '\n' {
		return false
	}
	if b < utf8.RuneSelf {
		return b != '/' && b != ' ' && (b < '\t' || b > '\r')
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return !unicode.IsSpace(r)
}

// digitLetterCut says whether prev, b is an ASCII digit followed by an ASCII letter: a cut of
// isChunkCut, and the only kind a base64 run holds (isRunCut).
func digitLetterCut(prev, b byte) bool {
	return prev-'0' <= 9 && (b|0x20)-'a' <= 'z'-'a'
}
