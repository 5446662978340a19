package corpora

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
)

// A tool's text in an API request log (OpenAI chat and Responses, Anthropic) may carry a
// picture as a base64 run of any size. A run over largeBase64Chars is streamed past while the
// line is read, like an image's data (lineSpiller): the text keeps a marker in its place that
// holds the run's LargeBase64 summary, and the run's characters are handed as they stream to a
// RunCounter, whose count the summary keeps, so the text can still be counted exactly.

// RunCounter counts the tokens of one base64 run of a tool's text as it streams past, holding
// a bounded part of it (measure/prompt implements it with the tokenizer's provable cuts).
type RunCounter interface {
	// Write takes the next characters of the run, as the text holds them.
	Write(chars []byte)
	// Finish ends the run and returns its count.
	Finish() RunCount
}

// RunCount is the count of a run streamed past: the text counts as the tokens of what precedes
// the run followed by Head, plus Middle, plus the tokens of Tail followed by what comes after
// the run, which is the count of the whole text: Head ends and Tail starts where cutting the
// text provably changes no token.
type RunCount struct {
	// Tokenizer names the tokenizer that counted Middle.
	Tokenizer string `json:"tokenizer"`
	// Head is the run's characters up to its first cut, Tail those after its last cut.
	Head string `json:"-"`
	Tail string `json:"-"`
	// Middle is the number of tokens between the first and the last cut.
	Middle int64 `json:"middle"`
	// Err says why the run could not be counted ("" when it was); the rest is then empty.
	Err string `json:"error,omitempty"`
}

// LargeRunOptions is implemented by an Emitter that takes part in how a base64 run of a tool's
// text is streamed past by the API request-log readers.
type LargeRunOptions interface {
	// NewRunCounter returns the counter of one run streamed past (nil: the run is not counted).
	NewRunCounter() RunCounter
	// LargeRunChars is the length from which a run is streamed past (0: over LargeBase64Bytes
	// decoded); tests set a small one (it applies to a line longer than the reader's 64 KiB
	// buffer, which alone is followed as JSON).
	LargeRunChars() int
}

// largeRunOptions returns the options of e, unwrapped from the reader's own emitters (nil
// when it has none).
func largeRunOptions(e Emitter) LargeRunOptions {
	if r, ok := e.(redactingEmitter); ok {
		e = r.Emitter
	}
	o, _ := e.(LargeRunOptions)
	return o
}

// LargeRun is a base64 run of a text streamed past while reading: Start and End delimit the
// marker that stands for it in the text.
type LargeRun struct {
	Start, End int
	*LargeBase64
}

// LargeRuns returns the runs streamed past in a text, in order (none for a text that holds
// none, the common case, found without allocating).
func LargeRuns(text string) []LargeRun {
	if !standInsMayExist() {
		return nil
	}
	var out []LargeRun
	prefix := largeMarkerPrefix()
	for from := 0; ; {
		i := strings.Index(text[from:], prefix)
		if i < 0 {
			return out
		}
		i += from
		l, n, ok := parseLargeMarkerAt(text[i:])
		if !ok {
			from = i + len(prefix)
			continue
		}
		out = append(out, LargeRun{Start: i, End: i + n, LargeBase64: l})
		from = i + n
	}
}

// HasLargeRun says whether a text holds a run streamed past.
func HasLargeRun(text string) bool {
	return standInsMayExist() && strings.Contains(text, largeMarkerPrefix())
}

// newSpiller returns the follower of a long line of a request log: it streams past image
// payloads and the base64 runs of any string, counted by the reader's RunCounter.
func (rd *requestLogReader) newSpiller() *lineSpiller { return textRunSpiller(rd.runs) }

// textRunSpiller returns the follower of a long line that streams past image payloads and the
// base64 runs of any string, counted by the RunCounter of runs (when not nil).
func textRunSpiller(runs LargeRunOptions) *lineSpiller {
	s := &lineSpiller{textRuns: true, runStart: -1}
	if runs != nil {
		s.newCounter, s.limit = runs.NewRunCounter, runs.LargeRunChars()
	}
	return s
}

// spillFrom is the line length from which readLine follows a line as JSON (spillLength).
func (rd *requestLogReader) spillFrom() int { return spillLength(rd.runs) }

// spillLength is the line length from which a line is followed as JSON: spillActivate, or
// the run length runs sets when shorter.
func spillLength(runs LargeRunOptions) int {
	if runs != nil && runs.LargeRunChars() > 0 {
		return min(spillActivate, runs.LargeRunChars())
	}
	return spillActivate
}

// HeldRun says why msgs cannot be written out for a server (nil when they can): a text of
// theirs (a part, a tool result, a tool call's arguments, and their recorded bytes when
// verbatim: those are sent) holds a base64 run streamed past while reading, whose characters
// were not kept.
func HeldRun(msgs []Message, verbatim bool) error {
	if !standInsMayExist() {
		return nil
	}
	for i := range msgs {
		if err := heldRunIn(msgs[i].Parts); err != nil {
			return err
		}
		if verbatim && bytes.Contains(msgs[i].Raw, []byte(escapedMarkerText)) {
			return fmt.Errorf("the recorded bytes of message %d hold a base64 run that was read past, not kept: they cannot be sent", i)
		}
	}
	return nil
}

func heldRunIn(parts []Part) error {
	for i := range parts {
		p := &parts[i]
		texts := []string{p.Text}
		if p.ToolCall != nil {
			texts = append(texts, p.ToolCall.Arguments)
		}
		if tr := p.ToolResult; tr != nil {
			if err := heldRunIn(tr.Parts); err != nil {
				return err
			}
			texts = append(texts, tr.Text)
			if tr.MCP != nil {
				for _, b := range tr.MCP.Content {
					texts = append(texts, b.Text)
				}
			}
		}
		for _, t := range texts {
			if MentionsLargeRun(t) {
				chars := "a base64 run"
				if runs := LargeRuns(t); len(runs) > 0 {
					chars = fmt.Sprintf("a base64 run of %d characters", runs[0].Chars)
				}
				return fmt.Errorf("a text holds %s that was read past, not kept: it cannot be sent", chars)
			}
		}
	}
	return nil
}

// MentionsLargeRun says whether text holds a run streamed past, its marker as written or
// escaped again (JSON text holding it). Each form is looked for by its first byte, a NUL or a
// backslash, which text holds far more rarely than the letters of the prefix.
func MentionsLargeRun(text string) bool {
	return standInsMayExist() && (strings.Contains(text, largeMarkerPrefix()) || strings.Contains(text, escapedMarkerText))
}

// escapedMarkerText is the prefix of a marker escaped again as JSON escapes its NUL.
var escapedMarkerText = `\u0000` + largeMarkerText[1:]

// RewrittenRun says whether text holds a run streamed past whose marker LargeRuns cannot read
// back: a marker escaped again (a template that re-encodes a tool call's arguments as JSON
// writes its NUL bytes as \u0000), so the text can neither be counted nor sent.
func RewrittenRun(text string) bool {
	return MentionsLargeRun(text) &&
		(strings.Contains(text, escapedMarkerText) || strings.Count(text, largeMarkerPrefix()) > len(LargeRuns(text)))
}

// mapLineOffsets rewrites every Location of v (a pointer) found in file and line from an
// offset in the line as read (with stand-ins) to the offset in the file's line, through
// toFile. Only a line that held a stand-in pays for the walk.
func mapLineOffsets(v any, file string, line int, toFile func(int64) int64) {
	locType := reflect.TypeFor[Location]()
	seen := map[uintptr]bool{}
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return // raw bytes
			}
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == locType {
				if l := v.Addr().Interface().(*Location); l.File == file && l.Line == line && l.Offset > 0 {
					l.Offset = toFile(l.Offset)
				}
				return
			}
			for i := range v.NumField() {
				if f := v.Field(i); f.CanSet() {
					walk(f)
				}
			}
		}
	}
	walk(reflect.ValueOf(v))
}
