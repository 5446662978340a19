package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

// resentRead reads input with the reader of format, taking re-sent messages from lines of
// from bytes on (off: never), and returns what it found and how many messages it took.
func resentRead(t testing.TB, format apiFormat, input []byte, off bool, from int) (*Collector, int, error) {
	t.Helper()
	var c Collector
	rd := newRequestLogReader("log.jsonl", format, &c)
	rd.resentOff, rd.resentFrom = off, from
	rd.maxRecord = 64 << 20
	err := rd.read(context.Background(), &sizedReader{r: bytes.NewReader(input), left: int64(len(input))})
	return &c, rd.resentTaken, err
}

// resentSame reads input with and without taking re-sent messages and fails unless both give
// deep-equal conversations (every location, Raw, Bytes, id) and the same problems in the same
// order. It returns how many messages were taken.
func resentSame(t testing.TB, format apiFormat, input []byte, from int) int {
	t.Helper()
	want, _, wantErr := resentRead(t, format, input, true, 0)
	got, taken, gotErr := resentRead(t, format, input, false, from)
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Fatalf("error %v, want %v", gotErr, wantErr)
	}
	if len(got.Problems) != len(want.Problems) {
		t.Fatalf("problems:\n%s\nwant:\n%s", apiShortProblems(got), apiShortProblems(want))
	}
	for i := range want.Problems {
		if got.Problems[i].Error() != want.Problems[i].Error() || got.Problems[i].Loc != want.Problems[i].Loc {
			t.Fatalf("problem %d: %v, want %v", i, got.Problems[i], want.Problems[i])
		}
	}
	if len(got.Conversations) != len(want.Conversations) {
		t.Fatalf("%d conversations, want %d", len(got.Conversations), len(want.Conversations))
	}
	for i := range want.Conversations {
		if !reflect.DeepEqual(got.Conversations[i], want.Conversations[i]) {
			g, _ := json.Marshal(got.Conversations[i])
			w, _ := json.Marshal(want.Conversations[i])
			t.Fatalf("conversation %d differs:\n%.3000s\nwant:\n%.3000s", i, g, w)
		}
		for j := range want.Conversations[i].Messages {
			if g, w := got.Conversations[i].Messages[j].Raw, want.Conversations[i].Messages[j].Raw; !bytes.Equal(g, w) || (g == nil) != (w == nil) {
				t.Fatalf("conversation %d message %d: Raw %q, want %q", i, j, g, w)
			}
		}
	}
	return taken
}

// resentHistory returns the lines of a conversation that grows: the record (one JSON object
// whose member key is an array) with the first 1, 2, … n elements of the array.
func resentHistory(t testing.TB, rec []byte, key string) [][]byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, rec); err != nil {
		return nil
	}
	rec = b.Bytes()
	root := jwNode{raw: rec}
	f, err := root.fields()
	if err != nil {
		return nil
	}
	arr, ok := f.has(key)
	if !ok || arr.kind() != '[' {
		return nil
	}
	start := int(arr.loc.Offset)
	var ends []int
	_ = arr.elements(func(_ int, v jwNode) error {
		ends = append(ends, int(v.loc.Offset)+len(v.raw))
		return nil
	})
	end := start + len(arr.raw) - 1 // the ']'
	var lines [][]byte
	for _, e := range ends {
		lines = append(lines, bytes.Join([][]byte{rec[:e], rec[end:]}, nil))
	}
	return lines
}

// apiFormatOf returns the request-body format of a file, false for another format.
func apiFormatOf(name string, head []byte) (apiFormat, bool) {
	f, _ := Detect(name, head)
	for _, a := range []apiFormat{chatAPI(), responsesAPI(), anthropicAPI()} {
		if a.format == f {
			return a, true
		}
	}
	return apiFormat{}, false
}

// TestResentSameOnRecordings: every real recording and sample of a request-body format, as
// it is, repeated, and as a conversation that grows one message a line, reads the same with
// and without taking re-sent messages.
func TestResentSameOnRecordings(t *testing.T) {
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, dir := range []string{"testdata/real", "testdata/api", "/work/shared/real-samples"} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				files = append(files, file{p, b})
			}
		}
	}
	names, err := SampleFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(SampleFS(), n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{n, b})
	}
	tried, grown := 0, 0
	for _, fl := range files {
		format, ok := apiFormatOf(fl.name, fl.data)
		if !ok {
			continue
		}
		tried++
		t.Run(filepath.Base(fl.name), func(t *testing.T) {
			resentSame(t, format, fl.data, 0)
			var b bytes.Buffer
			if json.Compact(&b, fl.data) == nil {
				line := append(b.Bytes(), '\n')
				resentSame(t, format, bytes.Repeat(line, 3), 0)
			}
			if lines := resentHistory(t, fl.data, format.messages); len(lines) > 1 {
				grown++
				in := append(bytes.Join(lines, []byte("\n")), '\n')
				if taken := resentSame(t, format, in, 0); taken == 0 {
					t.Errorf("a growing history took no message")
				}
			}
		})
	}
	if tried == 0 || grown == 0 {
		t.Fatalf("%d recordings of a request-body format, %d grown", tried, grown)
	}
}

// TestResentSameOnGeneratedCorpus: a generated request log (multi-megabyte tool messages,
// histories re-sent) reads the same with and without taking re-sent messages, at the default
// line length and for every line; the default takes most of the messages.
func TestResentSameOnGeneratedCorpus(t *testing.T) {
	dir := t.TempDir()
	if _, err := gencorpus.Generate(context.Background(), dir, gencorpus.Config{Seed: 7, TotalBytes: 6 << 20, ToolMessageBytes: 300 << 10, FileBytes: 3 << 20}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no corpus file")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if taken := resentSame(t, chatAPI(), b, resentDefaultFrom); taken == 0 {
			t.Errorf("%s: no message taken", p)
		}
		resentSame(t, chatAPI(), b, 0)
	}
}

// resentLines joins lines into a JSON Lines file.
func resentLines(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func TestResentSameOnCraftedLines(t *testing.T) {
	sys := `{"role":"system","content":"be brief"}`
	u1 := `{"role":"user","content":"look at \"this\"\n\u00e9\ud83d\ude00 and \\ that"}`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]}`
	res := `{"role":"tool","tool_call_id":"c1","content":"[{\"type\":\"text\",\"text\":\"done\"}]"}`
	img := `{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"input_audio","input_audio":{}}]}`
	bad := `{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@@"}}]}`
	a2 := `{"role":"assistant","content":"it failed"}`
	req := func(model string, msgs ...string) string {
		return `{"model":"` + model + `","messages":[` + strings.Join(msgs, ",") + `],"stream":true}`
	}
	withTools := func(tools string, msgs ...string) string {
		return `{"model":"m","tools":[` + tools + `],"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	tool := func(name string) string {
		return `{"type":"function","function":{"name":"` + name + `","parameters":{"type":"object"}}}`
	}
	cases := []struct {
		name  string
		in    []byte
		taken bool // some message must be taken
	}{
		{"grows", resentLines(req("m", sys, u1), req("m", sys, u1, call, res), req("m", sys, u1, call, res, a2)), true},
		{"names of calls taken", resentLines(req("m", sys, call), req("m", sys, call, res)), true},
		{"problems and notes taken", resentLines(req("m", img, bad), req("m", img, bad, a2)), true},
		{"cut inside a message", resentLines(req("m", sys, u1, a2), req("m", sys, u1, `{"role":"assistant","content":"it failed again"}`)), true},
		{"model changed", resentLines(req("m", sys, u1), req("n", sys, u1, a2)), false},
		{"tools before messages changed", resentLines(withTools(tool("a"), sys, u1), withTools(tool("b"), sys, u1, a2)), false},
		{"tools before messages kept", resentLines(withTools(tool("a"), sys, u1), withTools(tool("a"), sys, u1, a2)), true},
		{"earlier message edited", resentLines(req("m", sys, u1, a2), req("m", sys, `{"role":"user","content":"other"}`, a2)), true},
		{"history shrinks", resentLines(req("m", sys, u1, call, res), req("m", sys, u1)), true},
		{"history shrinks to nothing", resentLines(req("m", sys, u1), `{"model":"m","messages":[]}`), false},
		{"same line again", resentLines(req("m", sys, u1, img), req("m", sys, u1, img)), true},
		{"interleaved", resentLines(req("m", sys, u1), req("m", sys, a2), req("m", sys, u1, call), req("m", sys, a2, u1), req("m", sys, u1, call, res)), true},
		{"CRLF", []byte(req("m", sys, u1) + "\r\n" + req("m", sys, u1, a2) + "\r\n" + req("m", sys, u1, a2, u1) + "\r\n"), true},
		{"BOM", []byte("\ufeff" + req("m", sys, u1) + "\n" + req("m", sys, u1, a2) + "\n"), false},
		{"BOM on both", []byte("\ufeff" + req("m", sys, u1) + "\n\ufeff" + req("m", sys, u1, a2) + "\n"), true},
		{"spaces", resentLines(`{"model":"m", "messages": [ `+sys+` , `+u1+` ] }`, `{"model":"m", "messages": [ `+sys+` , `+u1+` , `+a2+` ] }`), true},
		{"indented", resentLines("  "+req("m", sys, u1), "  "+req("m", sys, u1, a2)), true},
		{"broken after good: cut short", resentLines(req("m", sys, u1), `{"model":"m","messages":[`+sys+`,`+u1+`,{"role":"user","con`), false},
		{"broken after good: trailing comma", resentLines(req("m", sys, u1), `{"model":"m","messages":[`+sys+`,`+u1+`,]}`), false},
		{"broken after good: no comma", resentLines(req("m", sys, u1), `{"model":"m","messages":[`+sys+`,`+u1+` `+a2+`]}`), false},
		{"broken after good: bad UTF-8", resentLines(req("m", sys, u1), req("m", sys, u1, "{\"role\":\"user\",\"content\":\"\xff\"}")), false},
		{"broken after good: garbage after", resentLines(req("m", sys, u1), req("m", sys, u1, a2)+` x`), false},
		{"broken after good: unknown role", resentLines(req("m", sys, u1), req("m", sys, u1, `{"role":"robot","content":"x"}`)), false},
		{"broken line between", resentLines(req("m", sys, u1), `{"model":`, req("m", sys, u1, a2)), false},
		{"second messages member", resentLines(req("m", sys, u1), `{"model":"m","messages":[`+sys+`,`+u1+`,`+a2+`],"messages":[`+u1+`]}`), false},
		{"envelope", resentLines(`{"request":`+req("m", sys, u1)+`}`, `{"request":`+req("m", sys, u1, a2)+`}`), false},
		{"array of requests", resentLines(`[`+req("m", sys, u1)+`]`, `[`+req("m", sys, u1, a2)+`]`), false},
		{"not an object after", resentLines(req("m", sys, u1), `"x"`, req("m", sys, u1, a2)), false},
		{"document", []byte(`{"model":"m",` + "\n" + req("m", sys, u1) + "\n" + req("m", sys, u1, a2) + "\n"), false},
		{"blank lines", resentLines(req("m", sys, u1), ``, `  `, req("m", sys, u1, a2)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			taken := resentSame(t, chatAPI(), c.in, 0)
			if c.taken && taken == 0 {
				t.Errorf("no message taken")
			}
			if !c.taken && taken != 0 {
				t.Errorf("%d messages taken", taken)
			}
		})
	}
}

// TestResentSameOnOtherFormats: Anthropic (a system after the messages naming a tool call the
// messages answer, so the names differ when the array is reached) and Responses (instructions
// as items) read the same with and without taking re-sent messages.
func TestResentSameOnOtherFormats(t *testing.T) {
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"shot","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"and?"}]}`
	orphan := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"ok"}]}`
	anth := func(system string, msgs ...string) string {
		return `{"model":"claude-x","max_tokens":10,"messages":[` + strings.Join(msgs, ",") + `],"system":` + system + `}`
	}
	sysUse := `[{"type":"tool_use","id":"t9","name":"named-by-system","input":{}}]`
	for name, in := range map[string][]byte{
		"grows":                 resentLines(anth(`"s"`, use), anth(`"s"`, use, result), anth(`"s"`, use, result, use)),
		"names before messages": resentLines(anth(`"s"`, orphan, use), anth(sysUse, orphan, use, result)),
	} {
		t.Run("anthropic "+name, func(t *testing.T) {
			resentSame(t, anthropicAPI(), in, 0)
		})
	}
	call := `{"type":"function_call","call_id":"k1","name":"shot","arguments":"{}"}`
	out := `{"type":"function_call_output","call_id":"k1","output":"done"}`
	msg := `{"role":"user","content":[{"type":"input_text","text":"hi"}]}`
	resp := func(items ...string) string {
		return `{"model":"gpt-x","instructions":[` + call + `],"input":[` + strings.Join(items, ",") + `]}`
	}
	t.Run("responses", func(t *testing.T) {
		if resentSame(t, responsesAPI(), resentLines(resp(msg, call), resp(msg, call, out), `{"model":"gpt-x","input":"just text"}`, resp(msg, out)), 0) == 0 {
			t.Errorf("no item taken")
		}
	})
}

// TestResentSharesStrings: a message taken from the line before holds the very strings of the
// conversation read from it, and the strings of a message's new copy are not shared with the
// reader's own buffers.
func TestResentSharesStrings(t *testing.T) {
	long := strings.Repeat(`log line \"quoted\"\n`, 4000)
	first := `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"c","content":"` + long + `"}]}`
	second := strings.TrimSuffix(first, `]}`) + `,{"role":"assistant","content":"ok"}]}`
	c, taken, err := resentRead(t, chatAPI(), resentLines(first, second), false, resentDefaultFrom)
	if err != nil || len(c.Conversations) != 2 || taken != 2 {
		t.Fatalf("err %v, %d conversations, %d taken", err, len(c.Conversations), taken)
	}
	a := c.Conversations[0].Messages[1].Parts[0].ToolResult.Text
	b := c.Conversations[1].Messages[1].Parts[0].ToolResult.Text
	if unsafe.StringData(a) != unsafe.StringData(b) || len(a) != len(long)*len(`log line "quoted"`+"\n")/len(`log line \"quoted\"\n`) {
		t.Errorf("the re-sent tool text is not the same string (%d bytes)", len(b))
	}
	if c.Conversations[1].Messages[1].Loc.Line != 2 || c.Conversations[1].Messages[1].Parts[0].Loc.Line != 2 {
		t.Errorf("taken message located at %v", c.Conversations[1].Messages[1].Loc)
	}
	if c.Conversations[0].Messages[1].Parts[0].ToolResult == c.Conversations[1].Messages[1].Parts[0].ToolResult {
		t.Errorf("the tool result is shared, not copied")
	}
}

// FuzzResentPair: a line, then the same line cut anywhere and continued with other bytes,
// reads the same with and without taking re-sent messages.
func FuzzResentPair(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`), uint16(60), []byte(`,{"role":"user","content":"c"}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"n","arguments":{}}}]}]}`), uint16(200), []byte(``))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":"data:image/png;base64,AAAA"}]},{"role":"user","content":"x"}]}`), uint16(97), []byte(`]}`))
	f.Add([]byte(`{"messages": [ {"role":"user","content":"\u00e9"} , {"role":"tool","content":null} ] }`), uint16(50), []byte(` , {"role":"user"} ] }`))
	f.Fuzz(func(t *testing.T, line []byte, cut uint16, tail []byte) {
		if bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(tail, '\n') >= 0 {
			return
		}
		at := 0
		if len(line) > 0 {
			at = int(cut) % (len(line) + 1)
		}
		second := append(append(append([]byte(nil), line[:at]...), tail...), '\n')
		in := append(append(append([]byte(nil), line...), '\n'), second...)
		for _, format := range []apiFormat{chatAPI(), anthropicAPI(), responsesAPI()} {
			resentSame(t, format, in, 0)
		}
	})
}

// TestResentMemoryStaysBounded: a conversation that edits its last, large message on every
// line (the history before it re-sent) does not keep every line's buffer alive: what the
// remembered messages keep holds at most twice their bytes plus resentSlack, beside the line
// in hand, and the heap stays near a few lines.
func TestResentMemoryStaysBounded(t *testing.T) {
	const lines, big = 40, 1 << 20
	var in bytes.Buffer
	var history []string
	for i := range lines {
		history = append(history, fmt.Sprintf(`{"role":"user","content":"turn %d"}`, i))
		last := `{"role":"tool","tool_call_id":"c","content":"` + strings.Repeat(string(rune('a'+i%26)), big) + `"}`
		in.WriteString(`{"model":"m","messages":[` + strings.Join(append(history[:len(history):len(history)], last), ",") + "]}\n")
	}
	var c chatboxDiscard
	rd := newRequestLogReader("edits.jsonl", chatAPI(), &c)
	if err := rd.read(context.Background(), &sizedReader{r: bytes.NewReader(in.Bytes()), left: int64(in.Len())}); err != nil {
		t.Fatal(err)
	}
	if c.convs != lines || rd.resentTaken == 0 {
		t.Fatalf("%d conversations, %d messages taken", c.convs, rd.resentTaken)
	}
	m := rd.memo
	pinned, live := 0, 0
	for j, e := range m.elems {
		if j == 0 || e.buf != m.elems[j-1].buf {
			pinned += e.bufLen
		}
		live += e.end - e.start
	}
	if newest := m.elems[len(m.elems)-1].bufLen; pinned > 2*live+resentSlack+newest {
		t.Errorf("the remembered messages keep %d bytes alive for %d of their own", pinned, live)
	}
	in, rd.left = bytes.Buffer{}, nil // the input itself
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 24<<20 {
		t.Errorf("heap in use %d MB after %d lines of %d MB", ms.HeapInuse>>20, lines, big>>20)
	}
	runtime.KeepAlive(rd)
}

// BenchmarkResentShortMessages reads a conversation of many short messages, re-sent with two
// more on every line (lines of about 100 KiB), with and without taking re-sent messages.
func BenchmarkResentShortMessages(b *testing.B) {
	var in bytes.Buffer
	var history []string
	for i := range 400 {
		history = append(history, fmt.Sprintf(`{"role":"user","content":"question %d: what does the build log say about step %d?"}`, i, i),
			fmt.Sprintf(`{"role":"assistant","content":"Step %d passed; the log shows no error and %d warnings."}`, i, i%7))
		if i >= 300 {
			in.WriteString(`{"model":"m","messages":[` + strings.Join(history, ",") + "]}\n")
		}
	}
	for _, mode := range []struct {
		name string
		off  bool
	}{{"full", true}, {"resent", false}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(in.Len()))
			b.ReportAllocs()
			for b.Loop() {
				var c chatboxDiscard
				rd := newRequestLogReader("short.jsonl", chatAPI(), &c)
				rd.resentOff = mode.off
				if err := rd.read(context.Background(), bytes.NewReader(in.Bytes())); err != nil || c.convs != 100 {
					b.Fatal(err, c.convs)
				}
			}
		})
	}
}

// TestLineMoveCopiesEveryField: a message with every field of the model set is copied by the
// field-by-field copy as by the reflective one: every Location moved, every pointer and slice
// new (but byte slices), every string the same.
func TestLineMoveCopiesEveryField(t *testing.T) {
	var fill func(v reflect.Value, depth int)
	fill = func(v reflect.Value, depth int) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("text")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(3)
		case reflect.Float64:
			v.SetFloat(1.5)
		case reflect.Pointer:
			if depth < 6 {
				v.Set(reflect.New(v.Type().Elem()))
				fill(v.Elem(), depth+1)
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				v.SetBytes([]byte("{}"))
			} else if depth < 6 {
				v.Set(reflect.MakeSlice(v.Type(), 2, 2))
				for i := range 2 {
					fill(v.Index(i), depth+1)
				}
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[Location]() {
				v.Set(reflect.ValueOf(Location{File: "f", Line: 3, Offset: 9, Pointer: "/messages/1"}))
				return
			}
			for i := range v.NumField() {
				fill(v.Field(i), depth+1)
			}
		}
	}
	var msg Message
	fill(reflect.ValueOf(&msg).Elem(), 0)
	mv := lineMove{file: "f", from: 3, to: 4}
	fast := mv.appendMessages(nil, []Message{msg})
	slow := mv.reflected(reflect.ValueOf([]Message{msg})).Interface().([]Message)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the two copies differ:\n%+v\n%+v", fast, slow)
	}
	var walk func(a, b reflect.Value, path string)
	walk = func(a, b reflect.Value, path string) {
		switch a.Kind() {
		case reflect.Pointer:
			if a.IsNil() {
				return
			}
			if a.Pointer() == b.Pointer() {
				t.Errorf("%s: pointer shared", path)
			}
			walk(a.Elem(), b.Elem(), path)
		case reflect.Slice:
			if a.Len() == 0 {
				return
			}
			same := a.Pointer() == b.Pointer()
			if byteSlice := a.Type().Elem().Kind() == reflect.Uint8; byteSlice != same {
				t.Errorf("%s: shared %v", path, same)
			}
			for i := 0; i < a.Len() && a.Type().Elem().Kind() != reflect.Uint8; i++ {
				walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.String:
			if a.Len() > 0 && unsafe.StringData(a.String()) != unsafe.StringData(b.String()) {
				t.Errorf("%s: string copied", path)
			}
		case reflect.Struct:
			if a.Type() == reflect.TypeFor[Location]() {
				if b.Interface().(Location).Line != 4 {
					t.Errorf("%s: not moved", path)
				}
				return
			}
			for i := range a.NumField() {
				walk(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
			}
		}
	}
	walk(reflect.ValueOf(msg), reflect.ValueOf(fast[0]), "Message")
}

// TestResentEnvelopeKeepsLineBuffers: a line whose request is not remembered (an envelope)
// gives its buffer back to the reader, so the next long line is gathered in it, not in a
// buffer made anew.
func TestResentEnvelopeKeepsLineBuffers(t *testing.T) {
	var in bytes.Buffer
	for i := range 6 {
		msg := `{"role":"user","content":"` + strings.Repeat(string(rune('a'+i)), 100<<10) + `"}`
		in.WriteString(`{"request":{"model":"m","messages":[` + msg + "]}}\n")
	}
	var c chatboxDiscard
	rd := newRequestLogReader("envelopes.jsonl", chatAPI(), &c)
	if err := rd.read(context.Background(), &sizedReader{r: bytes.NewReader(in.Bytes()), left: int64(in.Len())}); err != nil {
		t.Fatal(err)
	}
	if c.convs != 6 {
		t.Fatalf("%d conversations, want 6", c.convs)
	}
	if cap(rd.lineScratch) < 100<<10 && cap(rd.spareLine) < 100<<10 {
		t.Errorf("the reader has no line buffer left (scratch %d, spare %d bytes): each envelope line took one", cap(rd.lineScratch), cap(rd.spareLine))
	}
}
