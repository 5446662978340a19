package prompt

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// logLikeText is a build log: timestamps, words, paths, numbers, one line after another.
func logLikeText(r *rand.Rand, n int) string {
	words := strings.Fields("build step compile FAIL warning error github.com/acme/dash handler.go:42 200 404 GET 5xx 3d 10ms v1.2.3rc1")
	var b strings.Builder
	for line := 0; b.Len() < n; line++ {
		fmt.Fprintf(&b, "2026-11-30T09:%02d:%02d.%03dZ ", line/60%60, line%60, line%1000)
		for i := 0; i < 6; i++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "#%d\n", r.IntN(100000))
	}
	return b.String()
}

// randomBase64 is the base64 of n random bytes.
func randomBase64(r *rand.Rand, n int) string {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// countChunked counts text cut at every candidate cut point.
func countChunked(tok *tokenize.BPETokenizer, text string) (count, chunks int) {
	for len(text) > 0 {
		end := nextChunk(text, 0)
		count += tok.Count(text[:end])
		text = text[end:]
		chunks++
	}
	return count, chunks
}

func TestChunkCutsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	raw := make([]byte, 6000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	texts := map[string]string{
		"base64":  base64.StdEncoding.EncodeToString(raw),
		"log":     logLikeText(r, 8000),
		"english": tokentext.EnglishText(r, 6000),
		"mixed":   "9Ab 1日本 5É 7ǅx 3\u0301a 4'll 0ſ 2K 8a\n/x\n y\n\tz\n日\n\u00a0q\n\u0085w\nend\r\n5\n\n9z",
		"invalid": "12\xffab3\xe2\x82cd4\xc0\xafef\n\xff\n\x80x9\x80y",
	}
	for i := 0; i < 200; i++ {
		texts[fmt.Sprintf("random%d", i)] = tokentext.RandomText(r, 1+r.IntN(80)) + "7" + tokentext.RandomText(r, 1+r.IntN(80))
	}
	for _, tok := range chunkTokenizers(t) {
		totalChunks := 0
		for name, text := range texts {
			got, chunks := countChunked(tok, text)
			totalChunks += chunks
			if want := tok.Count(text); got != want {
				t.Errorf("%s, %s: %d chunks count %d tokens, the whole text %d", tok.Name(), name, chunks, got, want)
			}
		}
		if totalChunks < 1500 {
			t.Errorf("%s: only %d chunks tried", tok.Name(), totalChunks)
		}
	}
}

func TestIsChunkCut(t *testing.T) {
	for _, tc := range []struct {
		text string
		at   int
		want bool
	}{
		{"x5a", 2, true}, {"x5Z", 2, true}, {"x5_", 2, false}, {"x55", 2, false}, {"xa5", 2, false},
		{"x5@", 2, false}, {"x5`", 2, false}, {"x5[", 2, false}, {"x5{", 2, false},
		{"a\nb", 2, true}, {"a\n/", 2, false}, {"a\n ", 2, false}, {"a\n\t", 2, false}, {"a\n\n", 2, false},
		{"a\n日", 2, true}, {"a\n\u00a0", 2, false}, {"a\n\u3000", 2, false}, {"a\n\xff", 2, true},
		{"a\rb", 2, false}, {"a b", 2, false},
	} {
		if got := isChunkCut(tc.text, tc.at); got != tc.want {
			t.Errorf("isChunkCut(%q, %d) = %v, want %v", tc.text, tc.at, got, tc.want)
		}
	}
}

func TestNextChunkIsContentDefined(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	raw := make([]byte, 600_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	blob := base64.StdEncoding.EncodeToString(raw)
	cuts := func(text string) map[string]bool {
		out := map[string]bool{}
		for len(text) > 0 {
			end := nextChunk(text, chunkSelectBits)
			out[text[:end]] = true
			text = text[end:]
		}
		return out
	}
	a := cuts(`[{"type":"text","text":"Captured build 17"},{"data":"` + blob + `"}]`)
	b := cuts(`[{"type":"text","text":"Captured the viewport of build 123456"},{"data":"` + blob + `"}]`)
	shared := 0
	for c := range b {
		if a[c] {
			shared++
		}
	}
	// 800 kB of base64 in chunks of about 8 KiB: all but the first and last are shared.
	if len(b) < 50 || len(b) > 200 || shared < len(b)-2 {
		t.Errorf("%d chunks, %d of them shared with the other text", len(b), shared)
	}
}

func TestCounterChunksLongRuns(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	r := rand.New(rand.NewPCG(15, 16))
	blob := randomBase64(r, 300_000)
	c := NewCounter(tok, chatML(t))
	for i, wrap := range []string{"Captured build %d as PNG: %s", "Here is screenshot %d (PNG), data: %s", "log %d\n" + logLikeText(r, 50_000) + "%s"} {
		text := fmt.Sprintf(wrap, i, blob)
		msgs := []corpora.Message{{Role: corpora.RoleTool, Parts: []corpora.Part{textPart(text)}}}
		got, err := c.CountRequest(msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := NewCounter(&plainCounter{tok}, chatML(t)).CountRequest(msgs, nil)
		if got.Tokens != fresh.Tokens {
			t.Errorf("text %d: chunked count %d, unchunked %d", i, got.Tokens, fresh.Tokens)
		}
	}
	hits, misses := c.CacheStats()
	// 400 kB of base64 in ~8 KiB chunks: the second and third texts find nearly all of them.
	if hits < 80 || misses > hits {
		t.Errorf("cache hits %d, misses %d: the shared base64 was not found again", hits, misses)
	}
}

// TestRecentRunsKeepCounts counts the same long run as the arms of a case hand it (the same
// tool text, its framing built afresh), a copy of it at another address, and a different text
// of the same length: every count is the tokenizer's, and only the same strings skip the hash.
func TestRecentRunsKeepCounts(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	r := rand.New(rand.NewPCG(31, 32))
	blob := randomBase64(r, 150_000)
	other := []byte(blob)
	other[len(other)/2] ^= 1 // 'A'↔'B' and the like: still base64, another text
	c := NewCounter(tok, chatML(t))
	for i, text := range []string{blob, blob, strings.Clone(blob), string(other), blob} {
		parts := []string{text, strings.Clone("\n</tool_response>")}
		joined := strings.Join(parts, "")
		hits, _ := c.CacheStats()
		if got, want := c.countRunParts(parts, len(joined)), tok.Count(joined); got != want {
			t.Errorf("text %d: count %d, tokenizer %d", i, got, want)
		}
		if got, want := c.countRun(text), tok.Count(text); got != want {
			t.Errorf("text %d alone: count %d, tokenizer %d", i, got, want)
		}
		if after, _ := c.CacheStats(); after == hits && i > 0 && i != 3 {
			t.Errorf("text %d: no hit for a run met before", i)
		}
	}
	if len(c.recent) > maxRecentRuns {
		t.Errorf("%d recent runs kept, limit %d", len(c.recent), maxRecentRuns)
	}
}

// TestRecentRunsLimits fills the recent runs past both limits: the oldest go, the byte total
// stays exact and under its limit.
func TestRecentRunsLimits(t *testing.T) {
	c := NewCounter(ourTiktoken(t, "o200k_base"), chatML(t))
	big := strings.Repeat("x", maxRecentRun)
	for i := 0; i < 3*maxRecentRuns; i++ {
		text := big[:minRecentRun+i]
		if i%5 == 0 {
			text = strings.Clone(big) // a run of the largest size
		}
		c.rememberRecent([]string{text, "\n"}, len(text)+1, i)
		sum := 0
		for _, rr := range c.recent {
			for _, p := range rr.parts {
				sum += len(p)
			}
		}
		if sum != c.recentBytes || len(c.recent) > maxRecentRuns || (c.recentBytes > maxRecentBytes && len(c.recent) > 1) {
			t.Fatalf("after %d: %d runs, %d bytes (sum %d)", i, len(c.recent), c.recentBytes, sum)
		}
		if last := c.recent[len(c.recent)-1]; last.n != i {
			t.Fatalf("after %d: the newest run is %d", i, last.n)
		}
	}
}

// plainCounter hides the *tokenize.BPETokenizer type, so a Counter over it never chunks.
type plainCounter struct{ *tokenize.BPETokenizer }

// BenchmarkCountRunChunked counts 2 MB of base64 not met before through a Counter.
func BenchmarkCountRunChunked(b *testing.B) {
	tok := ourTiktoken(b, "o200k_base")
	r := rand.New(rand.NewPCG(17, 18))
	raw := make([]byte, 1_500_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	text := base64.StdEncoding.EncodeToString(raw)
	want := tok.Count(text)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c := NewCounter(tok, chatML(b)) // a text not met before: chunked, every chunk counted
		if got := c.countRun(text); got != want {
			b.Fatalf("countRun = %d, want %d", got, want)
		}
	}
}

// BenchmarkCountRunSharedBase64 counts tool texts never met before that embed the same 2 MB
// of base64 (a screenshot re-sent in another tool result): the chunks are counted already, so
// this is what the counter spends on a new run besides the tokenizer.
func BenchmarkCountRunSharedBase64(b *testing.B) {
	tok := ourTiktoken(b, "o200k_base")
	blob := randomBase64(rand.New(rand.NewPCG(21, 22)), 1_500_000)
	c := NewCounter(tok, chatML(b))
	c.countRun(blob)
	b.SetBytes(int64(len(blob)))
	i := 0
	for b.Loop() {
		i++
		parts := []string{fmt.Sprintf("screenshot %09d: ", i), blob}
		c.countRunParts(parts, len(parts[0])+len(blob))
	}
}

// BenchmarkCountRequestMetAgain counts a request ending with a 2 MB tool text (base64 and a
// log) as the arms of a case and the requests of a conversation hand it over, with the qwen
// template: the same strings again (the arms; re-sent history when the reader hands it over as
// the strings it read before) or equal copies (re-sent history read afresh).
func BenchmarkCountRequestMetAgain(b *testing.B) {
	tok := ourTiktoken(b, "o200k_base")
	r := rand.New(rand.NewPCG(25, 26))
	tool := randomBase64(r, 1_000_000) + "\n" + logLikeText(r, 600_000)
	request := func(tool string) []corpora.Message {
		return []corpora.Message{msg(corpora.RoleUser, textPart("Take a screenshot and read the log.")),
			msg(corpora.RoleAssistant, call("c1", "shot", `{}`)), toolMsg("c1", textPart(tool))}
	}
	qwen, err := TemplateByName("qwen")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		next func() string
	}{
		{"same_strings", func() string { return tool }},
		{"equal_copies", func() string { return strings.Clone(tool) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			counter := NewCounter(tok, qwen)
			want, err := counter.CountRequest(request(tool), nil)
			if err != nil {
				b.Fatal(err)
			}
			reqs := make([][]corpora.Message, maxRecentRuns+4) // more copies than the memos keep
			for i := range reqs {
				reqs[i] = request(c.next())
			}
			b.SetBytes(int64(len(tool)))
			i := 0
			for b.Loop() {
				if got, _ := counter.CountRequest(reqs[i%len(reqs)], nil); got.Tokens != want.Tokens {
					b.Fatalf("%d tokens, want %d", got.Tokens, want.Tokens)
				}
				i++
			}
		})
	}
}

func FuzzChunkCuts(f *testing.F) {
	for _, s := range tokentext.EdgeCases {
		f.Add(s + "9a" + s)
	}
	f.Add("12ab\n34\ncd5\xffe")
	toks := []*tokenize.BPETokenizer{ourTiktoken(f, "o200k_base"), ourTiktoken(f, "cl100k_base")}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range toks {
			if got, want := countChunkedOnly(tok, text), tok.Count(text); got != want {
				t.Fatalf("%s: chunks count %d, whole text %d (%q)", tok.Name(), got, want, text)
			}
		}
	})
}

func countChunkedOnly(tok *tokenize.BPETokenizer, text string) int {
	n, _ := countChunked(tok, text)
	return n
}

// countPartsChunked counts the concatenation of parts cut at every candidate cut point that
// chunksOfParts takes.
func countPartsChunked(tok *tokenize.BPETokenizer, parts []string) int {
	n := 0
	chunksOfParts(parts, 0, func(chunk string) { n += tok.Count(chunk) })
	return n
}

// splitAt cuts text at the given byte offsets (sorted, deduplicated, empty parts dropped).
func splitAt(text string, offsets []int) []string {
	var parts []string
	prev := 0
	for _, o := range offsets {
		if o > prev && o < len(text) {
			parts = append(parts, text[prev:o])
			prev = o
		}
	}
	return append(parts, text[prev:])
}

func TestChunksOfPartsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	raw := make([]byte, 3000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	b64 := base64.StdEncoding.EncodeToString(raw)
	for name, tc := range map[string]struct {
		text    string
		offsets []int
	}{
		// A newline ends one part and a space (or a multi-byte space) starts the next: no cut there.
		"newline|space":            {"abcdefghij12\n", nil},
		"newline|ideographic":      {"0123456789\n\u3000x 12ab", []int{12, 13}},
		"newline|ideographic|nl":   {"abcdefghi\n\n\u3000\nabc", []int{12}},
		"newline|nbsp|nl":          {"0123456789\n\u00a0\n\u00a0\u00a0\n\u00a0abc", []int{12}},
		"newline|ideographic 2":    {"0123456789\n\u3000x 12ab", []int{11, 12, 13}},
		"newline|nbsp cut in rune": {"0123456789\n\u00a0q9z\n\u0085w", []int{12, 17}},
		"digit|letter at seam":     {"abc 0123456789abcdef 99zz", []int{14, 15}},
		"tool text framed":         {"\n" + b64 + "\n", []int{1, 1 + len(b64)}},
		"base64 in many parts":     {b64, []int{7, 100, 101, 102, 2000, 3999}},
		"log":                      {logLikeText(r, 4000), []int{13, 500, 501, 1777, 3000}},
	} {
		parts := splitAt(tc.text, tc.offsets)
		for _, tok := range chunkTokenizers(t) {
			if got, want := countPartsChunked(tok, parts), tok.Count(tc.text); got != want {
				t.Errorf("%s, %s: chunks of %d parts count %d, whole text %d", name, tok.Name(), len(parts), got, want)
			}
		}
	}
}

func TestCountRunPartsEqualsJoinedRun(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	r := rand.New(rand.NewPCG(23, 24))
	raw := make([]byte, 200_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	blob := base64.StdEncoding.EncodeToString(raw)
	log := logLikeText(r, 60_000)
	for name, parts := range map[string][]string{
		"tool text framed": {"\n", blob, "\n"},
		"log and base64":   {log, "\n", blob[:70_001], blob[70_001:], "\n"},
		"short":            {"hello ", "world\n"},
		"medium":           {log[:20_000], log[20_000:30_000]},
	} {
		joined := strings.Join(parts, "")
		c := NewCounter(tok, chatML(t))
		if got, want := c.countRunParts(parts, len(joined)), tok.Count(joined); got != want {
			t.Errorf("%s: countRunParts = %d, whole text %d", name, got, want)
		}
		// The joined run is now met before: a look-up, no new miss.
		_, misses := c.CacheStats()
		if got, want := c.countRun(joined), tok.Count(joined); got != want {
			t.Errorf("%s: countRun after countRunParts = %d, want %d", name, got, want)
		}
		if _, after := c.CacheStats(); len(joined) >= minCachedRun && after != misses {
			t.Errorf("%s: the joined run missed the cache (%d misses, before %d)", name, after, misses)
		}
	}
}

func FuzzChunkCutsParts(f *testing.F) {
	f.Add("0123456789\n\u3000x 12ab\n\u00a0q9z", uint8(12), uint8(13), uint8(22))
	f.Add("abc 0123456789abcdef 99zz\n/x\n y", uint8(14), uint8(15), uint8(27))
	f.Add("abcdefghi\n\n\u3000\nabc", uint8(12), uint8(0), uint8(0))
	toks := []*tokenize.BPETokenizer{ourTiktoken(f, "o200k_base"), ourTiktoken(f, "cl100k_base")}
	f.Fuzz(func(t *testing.T, text string, a, b, c uint8) {
		offs := []int{int(a), int(b), int(c)}
		slices.Sort(offs)
		parts := splitAt(text, offs)
		for _, tok := range toks {
			if got, want := countPartsChunked(tok, parts), tok.Count(text); got != want {
				t.Fatalf("%s: chunks of parts %q count %d, whole text %d", tok.Name(), parts, got, want)
			}
		}
	})
}

// BenchmarkChunkScan finds the chunk cuts of 2 MB of base64 (no counting).
func BenchmarkChunkScan(b *testing.B) {
	r := rand.New(rand.NewPCG(19, 20))
	raw := make([]byte, 1_500_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	text := base64.StdEncoding.EncodeToString(raw)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		chunks := 0
		for rest := text; len(rest) > 0; chunks++ {
			rest = rest[nextChunk(rest, chunkSelectBits):]
		}
		if chunks < 100 {
			b.Fatalf("%d chunks", chunks)
		}
	}
}

// TestCountRequestAddsTheVocabularyBOS: a vocabulary that adds a BOS to every prompt (the Qwen3
// vocabulary as a GGUF with add_bos_token) gets one
// more special token when the template writes none, and none when the template starts with
// the BOS itself (llama.cpp takes that one off before adding its own).
func TestCountRequestAddsTheVocabularyBOS(t *testing.T) {
	plain := bpe(t, tokentext.WriteQwen3GGUF(t, false))
	adds := bpe(t, tokentext.WriteQwen3GGUF(t, true)) // its BOS is <|endoftext|>
	writesBOS, err := NewJinjaTemplate("bos first", "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", "<|endoftext|>", "")
	if err != nil {
		t.Fatal(err)
	}
	noBOS, err := NewJinjaTemplate("no bos", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", "<|endoftext|>", "")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hello there"}}}}
	count := func(tok *tokenize.BPETokenizer, tmpl Template) TextCount {
		tc, err := NewCounter(tok, tmpl).CountRequest(msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	base := count(plain, noBOS)
	if got := count(adds, noBOS); got.Tokens != base.Tokens+1 || got.SpecialTokens != base.SpecialTokens+1 {
		t.Errorf("template without a BOS: %+v, want one more token than %+v", got, base)
	}
	written := count(plain, writesBOS)
	if written.SpecialTokens != base.SpecialTokens+1 {
		t.Fatalf("the template's bos_token was not rendered as a special token: %+v against %+v", written, base)
	}
	if got := count(adds, writesBOS); got.Tokens != written.Tokens || got.SpecialTokens != written.SpecialTokens {
		t.Errorf("template writing the BOS: %+v, want %+v (no second BOS)", got, written)
	}
}

// TestCountChunkWaitsForTheSameText: a text another goroutine is tokenizing is not tokenized
// again: the count waits for that goroutine's and is a hit; once it is stored, the text is
// answered from the cache.
func TestCountChunkWaitsForTheSameText(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	c := NewCounter(tok, chatML(t))
	text := randomBase64(rand.New(rand.NewPCG(27, 28)), 6000)
	want := tok.Count(text)
	key := c.keyOf(text)
	p := &pendingCount{done: make(chan struct{})}
	c.counting[key] = p // as countChunk registers it before tokenizing
	got := make(chan int)
	go func() { got <- c.countChunk(text) }()
	select {
	case n := <-got:
		t.Fatalf("counted %d without waiting for the text being tokenized", n)
	case <-time.After(50 * time.Millisecond):
	}
	p.n = want
	c.store(key, want)
	close(p.done)
	if n := <-got; n != want {
		t.Errorf("waited count %d, want %d", n, want)
	}
	if hits, misses := c.CacheStats(); hits != 1 || misses != 1 || len(c.counting) != 0 {
		t.Errorf("%d hits, %d misses, %d texts being tokenized; want 1, 1 (the store), 0", hits, misses, len(c.counting))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if n := c.countChunk(text); n != want {
				t.Errorf("count %d, want %d", n, want)
			}
		})
	}
	wg.Wait()
	if _, misses := c.CacheStats(); misses != 1 {
		t.Errorf("%d misses after the text was stored, want 1", misses)
	}
}
