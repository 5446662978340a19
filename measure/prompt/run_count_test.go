package prompt

import (
	"context"
	"encoding/base64"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// streamingReader is a corpora.Collector that has the readers stream base64 runs of tool text
// from limit characters on past, counted by a Counter.
type streamingReader struct {
	corpora.Collector
	c     *Counter
	limit int
}

func (s *streamingReader) NewRunCounter() corpora.RunCounter { return s.c.NewRunCounter() }
func (s *streamingReader) LargeRunChars() int                { return s.limit }

// readChat reads an OpenAI chat request log, streaming runs past when s is not nil.
func readChat(t testing.TB, log string, s *streamingReader) []*corpora.Conversation {
	t.Helper()
	c := &corpora.Collector{}
	var e corpora.Emitter = c
	if s != nil {
		c, e = &s.Collector, s
	}
	if err := corpora.Read(context.Background(), "log.jsonl", strings.NewReader(log), corpora.FormatOpenAIChat, e); err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 0 {
		t.Fatalf("problems %v", c.Problems)
	}
	return c.Conversations
}

// screenshotLog is a request log whose tool message's text holds a PNG as base64 between
// other text.
func screenshotLog(b64 string) string {
	return `{"model":"m","messages":[{"role":"user","content":"take a screenshot"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"the screen: ` + strings.ReplaceAll(b64, "/", `\/`) + `\nwhat it shows"}]}` + "\n"
}

// TestRunStreamedPastCountsExactly: a request whose tool text holds a base64 picture counts the
// same tokens when the picture was streamed past while reading (the text holds a marker and
// the run's count) as when it was held, with each tokenizer the cut rules are proven for; a
// marker counted by another tokenizer, or without a count, leaves the count unknown.
func TestRunStreamedPastCountsExactly(t *testing.T) {
	png := testimages.PNG(300, 200, 5, testimages.WithGrain(90))
	log := screenshotLog(base64.StdEncoding.EncodeToString(png))
	held := readChat(t, log, nil)[0]
	for _, tok := range chunkTokenizers(t) {
		c := NewCounter(tok, chatML(t))
		want, err := c.CountRequest(held.Messages, nil)
		if err != nil {
			t.Fatal(err)
		}
		streamed := readChat(t, log, &streamingReader{c: c, limit: 4096})[0]
		text := streamed.Messages[2].Parts[0].ToolResult.Text
		if runs := corpora.LargeRuns(text); len(runs) != 1 || runs[0].Count == nil || runs[0].Count.Err != "" {
			t.Fatalf("%s: runs %+v in the tool text", tok.Name(), runs)
		}
		got, err := NewCounter(tok, chatML(t)).CountRequest(streamed.Messages, nil)
		if err != nil || got.Tokens != want.Tokens || got.SpecialTokens != want.SpecialTokens {
			t.Errorf("%s: streamed %d tokens (%d special), %v; held %d (%d)", tok.Name(), got.Tokens, got.SpecialTokens, err, want.Tokens, want.SpecialTokens)
		}
	}
	o200k, cl100k := ourTiktoken(t, "o200k_base"), ourTiktoken(t, "cl100k_base")
	streamed := readChat(t, log, &streamingReader{c: NewCounter(o200k, chatML(t)), limit: 4096})[0]
	if _, err := NewCounter(cl100k, chatML(t)).CountRequest(streamed.Messages, nil); err == nil || !strings.Contains(err.Error(), "counted with o200k_base, not cl100k_base") {
		t.Errorf("another tokenizer's count: %v", err)
	}
}

// TestRunCounterParts: a run written in pieces of any size, in any text, gives the count of
// the whole text; a run with no place to cut it in its first characters, or too long between
// two, has no count.
func TestRunCounterParts(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	c := NewCounter(tok, chatML(t))
	rng := rand.New(rand.NewSource(3))
	raw := make([]byte, 700_000)
	rng.Read(raw)
	b64 := base64.StdEncoding.EncodeToString(raw)
	for _, tt := range []struct{ before, run, after string }{
		{"the screen: ", b64, "\nwhat it shows"},
		{"x", b64[:5000] + "=", "= and"},
		{"", "9" + b64[1:1000], "7"},
		{"a1", b64[:300_000], "b"},
	} {
		r := c.NewRunCounter()
		for rest := tt.run; len(rest) > 0; {
			n := min(len(rest), 1+rng.Intn(100_000))
			r.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		rc := r.Finish()
		if rc.Err != "" {
			t.Fatalf("%.20q: %s", tt.run, rc.Err)
		}
		if rc.Head == "" || !strings.HasPrefix(tt.run, rc.Head) || !strings.HasSuffix(tt.run, rc.Tail) {
			t.Fatalf("%.20q: head %.20q, tail %.20q", tt.run, rc.Head, rc.Tail)
		}
		got := tok.Count(tt.before+rc.Head) + int(rc.Middle) + tok.Count(rc.Tail+tt.after)
		if want := tok.Count(tt.before + tt.run + tt.after); got != want {
			t.Errorf("%.20q: %d tokens in parts, %d whole", tt.run, got, want)
		}
	}
	for _, run := range []string{strings.Repeat("A", maxRunStretch+10), "Q1" + strings.Repeat("Q", runChunk+maxRunStretch+10)} {
		r := c.NewRunCounter()
		r.Write([]byte(run))
		if rc := r.Finish(); rc.Err == "" || !strings.Contains(rc.Err, "could not be counted") {
			t.Errorf("%.20q: counted %d, head of %d, tail of %d, err %q", run, rc.Middle, len(rc.Head), len(rc.Tail), rc.Err)
		}
	}
}

// TestRunCutIsChunkCut: isRunCut is isChunkCut on the characters of a base64 run.
func TestRunCutIsChunkCut(t *testing.T) {
	chars := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
	for _, a := range []byte(chars) {
		for _, b := range []byte(chars) {
			if got, want := isRunCut([]byte{a, b}, 1), isChunkCut(string([]byte{a, b}), 1); got != want {
				t.Errorf("%c%c: %v, isChunkCut %v", a, b, got, want)
			}
		}
	}
}

// TestRunStreamedPastMemoryFlat: reading and counting a tool text whose base64 run is 12 MB
// allocates no more than one of 2 MB: the run is held nowhere.
func TestRunStreamedPastMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("counts 14 MB of base64")
	}
	c := NewCounter(ourTiktoken(t, "o200k_base"), chatML(t))
	rng := rand.New(rand.NewSource(9))
	var allocs [2]uint64
	for i, size := range []int{2 << 20, 12 << 20} {
		raw := make([]byte, size*3/4)
		rng.Read(raw)
		log := screenshotLog(base64.StdEncoding.EncodeToString(raw))
		s := &streamingReader{c: c, limit: 1 << 20}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		conv := readChat(t, log, s)[0]
		tc, err := c.CountRequest(conv.Messages, nil)
		runtime.ReadMemStats(&after)
		if err != nil || tc.Tokens < size/4 {
			t.Fatalf("%d: %d tokens, %v", size, tc.Tokens, err)
		}
		allocs[i] = after.TotalAlloc - before.TotalAlloc
	}
	t.Logf("allocated %d, %d", allocs[0], allocs[1])
	if grew := int64(allocs[1]) - int64(allocs[0]); grew > 4<<20 {
		t.Errorf("10 MB more of base64 allocated %d bytes more (%d, %d)", grew, allocs[0], allocs[1])
	}
}

// TestRunInArguments: a base64 run streamed past in a tool call's arguments, which a template
// parses as JSON (a marker's NUL bytes are not), leaves the count unknown, never the count of
// arguments written otherwise than held whole.
func TestRunInArguments(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(testimages.PNG(300, 200, 5, testimages.WithGrain(90)))
	log := `{"model":"m","messages":[{"role":"user","content":"save it"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"save","arguments":"{\"png\":\"` + b64 + `\"}"}}]}]}` + "\n"
	qwen, err := TemplateByName("qwen")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCounter(ourTiktoken(t, "o200k_base"), qwen)
	conv := readChat(t, log, &streamingReader{c: c, limit: 4096})[0]
	if got, err := c.CountRequest(conv.Messages, nil); err == nil || !strings.Contains(err.Error(), "cannot be counted") {
		t.Errorf("count %d, %v", got.Tokens, err)
	}
}
