package corpora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// keptRun is a RunCounter that keeps every character of its run as its Head: the test's way to
// see exactly what a counter is handed.
type keptRun struct{ chars []byte }

func (k *keptRun) Write(p []byte)   { k.chars = append(k.chars, p...) }
func (k *keptRun) Finish() RunCount { return RunCount{Tokenizer: "kept", Head: string(k.chars)} }

// runEmitter is a Collector that streams runs of limit characters past and keeps them whole.
type runEmitter struct {
	Collector
	limit int
}

func (r *runEmitter) NewRunCounter() RunCounter { return &keptRun{} }
func (r *runEmitter) LargeRunChars() int        { return r.limit }

// TestRequestLogLargeRunStreamed: a base64 picture inside a tool message's text (OpenAI chat
// and Responses, Anthropic), past the run limit, is streamed past while the line is read: the
// text keeps what surrounds it and a marker in its place that holds its size, first bytes and
// digest, and the counter was handed the run's characters exactly as the text holds them (`\/`
// unescaped, its padding included).
func TestRequestLogLargeRunStreamed(t *testing.T) {
	png := testimages.PNG(200, 150, 7, testimages.WithGrain(100)) // over 64 KiB as base64: the line is longer than the reader's buffer
	sum := sha256.Sum256(png)
	b64 := base64.StdEncoding.EncodeToString(png)
	escaped := strings.ReplaceAll(b64, "/", `\/`)
	for _, format := range []struct {
		name Format
		line string
		text func(c *Collector) string
	}{
		{FormatOpenAIChat, `{"model":"m","messages":[{"role":"tool","tool_call_id":"c1","content":"the screen: ` + escaped + `\nand more"},{"role":"user","content":"after"}]}`,
			func(c *Collector) string { return c.Conversations[0].Messages[0].Parts[0].ToolResult.Text }},
		{FormatOpenAIResponses, `{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"shot","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"the screen: ` + escaped + `\nand more"}]}`,
			func(c *Collector) string { return c.Conversations[0].Messages[1].Parts[0].ToolResult.Text }},
		{FormatAnthropic, `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"the screen: ` + escaped + `\nand more"}]}]}`,
			func(c *Collector) string { return c.Conversations[0].Messages[0].Parts[0].ToolResult.Text }},
	} {
		e := &runEmitter{limit: 200}
		if err := Read(context.Background(), "log.jsonl", strings.NewReader(format.line+"\n"+format.line+"\n"), format.name, e); err != nil {
			t.Fatal(err)
		}
		if len(e.Conversations) != 2 || len(e.Problems) != 0 {
			t.Fatalf("%s: %d conversations, problems %v", format.name, len(e.Conversations), e.Problems)
		}
		text := format.text(&e.Collector)
		runs := LargeRuns(text)
		if len(runs) != 1 {
			t.Fatalf("%s: %d runs in %.200q", format.name, len(runs), text)
		}
		r := runs[0]
		if got := text[:r.Start] + "<run>" + text[r.End:]; got != "the screen: <run>\nand more" {
			t.Errorf("%s: text around the run %q", format.name, got)
		}
		if r.Chars != int64(len(b64)) || r.Bytes != int64(len(png)) || r.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(r.Head, png[:min(len(png), LargeHeadBytes)]) || r.Err != "" {
			t.Errorf("%s: kept %d chars, %d bytes, sha256 %s, err %q", format.name, r.Chars, r.Bytes, r.SHA256, r.Err)
		}
		if r.Count == nil || r.Count.Head != b64 || r.Count.Tokenizer != "kept" {
			t.Errorf("%s: the counter was handed %+v", format.name, r.Count)
		}
		// a place after the run is where it is in the file, not in the shortened line
		if format.name == FormatOpenAIChat {
			loc := e.Conversations[0].Messages[1].Parts[0].Loc
			if want := int64(strings.Index(format.line, `"after"`)); loc.Offset != want {
				t.Errorf("%s: the message after the run at byte %d (%s), in the file at %d", format.name, loc.Offset, loc, want)
			}
		}
		// the conversation's size is the request's in the file, not the shortened line's
		for _, c := range e.Conversations {
			if c.Bytes != int64(len(format.line)) {
				t.Errorf("%s: conversation of %d bytes, the request has %d", format.name, c.Bytes, len(format.line))
			}
		}
		// a person reading the JSON of the text sees what the stand-in stood for
		q, _ := json.Marshal(text)
		want := fmt.Sprintf(`"the screen: [%d base64 characters streamed past while reading, not kept: %d bytes decoded, sha256 %s]\nand more"`, len(b64), len(png), hex.EncodeToString(sum[:]))
		if got := string(DescribeStandIns(q)); got != want {
			t.Errorf("%s: described as %s, want %s", format.name, got, want)
		}
	}
	if q := []byte(`{"text":"no stand-in \\u0000 here"}`); !bytes.Equal(DescribeStandIns(q), q) {
		t.Errorf("a text without stand-ins changed: %s", DescribeStandIns(q))
	}
}

// TestLargeRunMarkerParse: a marker reads back what it was written from, found inside a text
// (and a forged or cut one is not a marker).
func TestLargeRunMarkerParse(t *testing.T) {
	l := &LargeBase64{Chars: 12, Bytes: 9, SHA256: "ab", Head: []byte("\x89PNG"), Err: "x:y",
		Count: &RunCount{Tokenizer: "o200k_base", Head: "iVBOR", Tail: "QmCC", Middle: 42, Err: ""}}
	var s string
	if err := json.Unmarshal([]byte(`"`+largeMarker(l)+`"`), &s); err != nil {
		t.Fatal(err)
	}
	text := "before " + s + " after " + s
	runs := LargeRuns(text)
	if len(runs) != 2 || text[runs[0].End:runs[1].Start] != " after " || runs[1].End != len(text) {
		t.Fatalf("runs %+v", runs)
	}
	got := runs[0].LargeBase64
	if got.Chars != 12 || got.Bytes != 9 || string(got.Head) != "\x89PNG" || got.Err != "x:y" || *got.Count != *l.Count {
		t.Errorf("read back %+v count %+v", got, got.Count)
	}
	if _, ok := parseLargeMarker(s); !ok {
		t.Error("a whole marker is not read back")
	}
	for _, bad := range []string{s[:len(s)-1], strings.Replace(s, largeNonce, strings.Repeat("0", len(largeNonce)), 1), s + "x"} {
		if _, ok := parseLargeMarker(bad); ok {
			t.Errorf("%q read as a marker", bad)
		}
	}
}

// FuzzLargeRunMarker: any text after a marker's prefix either reads back as a marker that
// writes the same text, or is no marker; nothing panics.
func FuzzLargeRunMarker(f *testing.F) {
	f.Add("12:9:ab:89504e47:783a79:6f:69:51:42::51554a44")
	f.Add("1:2:3::::::::")
	f.Add("x:9:ab:zz:::::-1:00:")
	f.Fuzz(func(t *testing.T, fields string) {
		s := largeMarkerPrefix() + fields + "\x00"
		l, ok := parseLargeMarker(s)
		if !ok {
			return
		}
		var back string
		if err := json.Unmarshal([]byte(`"`+largeMarker(l)+`"`), &back); err != nil {
			t.Fatal(err)
		}
		l2, ok := parseLargeMarker(back)
		if !ok || l2.Chars != l.Chars || l2.Bytes != l.Bytes || !bytes.Equal(l2.Head, l.Head) || !bytes.Equal(l2.Tail, l.Tail) || (l.Count == nil) != (l2.Count == nil) || l.Count != nil && *l.Count != *l2.Count {
			t.Fatalf("%q read back as %+v, written again as %+v", fields, l, l2)
		}
	})
}

// FuzzLineSpillerTextRuns: with runs of tool text streamed past at a small limit, the line
// does not depend on how it is cut into chunks, a valid JSON line stays valid, and each of its
// strings with every marker replaced by the characters its counter was handed is the string of
// the input line.
func FuzzLineSpillerTextRuns(f *testing.F) {
	f.Add([]byte(`{"content":"the screen: iVBORw0KGgoAAAANSUhEUgAA== and more","data":"QUJD"}`), 3, 5)
	f.Add([]byte(`{"content":"a\/bcdefgh\/ij\nQUJDREVGSEhJ=\"x","k":["QUJDREVGSEhJSktMTU5PUFFSU1RVVldYWVo="]}`), 1, 4)
	f.Add([]byte(`{"c":"QUJDREVG=\/QUJD\\QUJDREVGSA==="}`), 2, 6)
	f.Fuzz(func(t *testing.T, line []byte, step, limit int) {
		step, limit = 1+abs(step)%61, 4+abs(limit)%64
		spiller := func() *lineSpiller {
			return &lineSpiller{limit: limit, textRuns: true, runStart: -1, newCounter: func() RunCounter { return &keptRun{} }}
		}
		whole := spiller().feed(nil, line)
		s := spiller()
		var cut []byte
		for i := 0; i < len(line); i += step {
			cut = s.feed(cut, line[i:min(len(line), i+step)])
		}
		if !bytes.Equal(cut, whole) {
			t.Fatalf("chunks of %d give %q, the whole line %q", step, cut, whole)
		}
		if !jwValid(line) || s.spill != nil || bytes.Contains(line, []byte("strata-eval")) {
			return
		}
		var in, out any
		if json.Unmarshal(line, &in) != nil {
			return
		}
		if err := json.Unmarshal(whole, &out); err != nil {
			t.Fatalf("valid JSON %q became %q: %v", line, whole, err)
		}
		restored, _ := json.Marshal(restoreRuns(out))
		original, _ := json.Marshal(in)
		if !bytes.Equal(restored, original) {
			t.Fatalf("%q read back as %s, want %s", line, restored, original)
		}
	})
}

// restoreRuns puts back the characters of every run in the strings of a JSON value.
func restoreRuns(v any) any {
	switch v := v.(type) {
	case string:
		runs := LargeRuns(v)
		for i := len(runs) - 1; i >= 0; i-- {
			v = v[:runs[i].Start] + runs[i].Count.Head + v[runs[i].End:]
		}
		return v
	case []any:
		for i := range v {
			v[i] = restoreRuns(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = restoreRuns(v[k])
		}
	}
	return v
}
