package gencorpus

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// AgentSessionConfig sets what AgentSession writes.
type AgentSessionConfig struct {
	// Format is the agent whose session file is written: claude-code, codex or gemini-cli.
	Format string
	// Bytes is about how large the file is.
	Bytes int64
	// HugeLines is how many huge lines it holds, spread over the file; HugeBytes the size of the
	// PNG whose base64 each carries in a tool's text (an MCP result of {"page", "screenshot":
	// {"data"}} JSON, as the agents record a browser server's screenshot).
	HugeLines int
	HugeBytes int64
	// CompactEvery is how many turns pass between two compactions of the context (0: 8): the
	// agents summarize a long conversation, so that no request outgrows the model's window.
	CompactEvery int
	// Seed makes the pictures.
	Seed int64
}

// AgentSessionFormat is a format AgentSession writes: its name as --input-format takes it and
// the name of a file of it, as the agent names its session files. Uncompacted says that the
// agent records no compaction, so that each of its requests holds the whole session (Cline).
type AgentSessionFormat struct {
	Name, File  string
	Uncompacted bool
}

// AgentSessionFormats are the agents' session formats AgentSession writes.
var AgentSessionFormats = []AgentSessionFormat{
	{Name: "claude-code", File: "e868713d-f561-4b38-9591-97646ad8b58a.jsonl"},
	{Name: "codex", File: "rollout-2026-12-07T17-44-45-01a2519b-a9b4-7243-87a6-138b3b487201.jsonl"},
	{Name: "gemini-cli", File: "session-2026-12-07T18-12-50934295.jsonl"},
	{Name: "opencode", File: "ses_dadb4fdc9ffe1FxK0DDMSUxOJE.json"},
	{Name: "cline", File: "1796677063915_oulg3.messages.json", Uncompacted: true},
}

// AgentSessionHugeLines is how many huge lines a session of format of about size bytes holds
// by default: 2, or, for an agent that records no compaction, as many as carry its bytes (each
// of its requests holds every turn before it: ordinary turns would make them all as large as
// the file).
func AgentSessionHugeLines(format string, size, hugeBytes int64) int {
	for _, f := range AgentSessionFormats {
		if f.Name == format && f.Uncompacted && hugeBytes > 0 {
			return max(2, int(size*3/4/hugeBytes))
		}
	}
	return 2
}

// agentTurns writes the records of one agent's session: the lines that open it, a turn (a
// prompt, a screenshot tool's call and result, the answer), a turn whose tool result is huge,
// and a compaction of the context.
type agentTurns interface {
	head(o *agentOut)
	turn(o *agentOut, k int, shot string)
	// hugeTurn writes the huge text by calling huge with the text's quote as the JSON holds it
	// there (`\"` in a JSON string, `\\\"` in a JSON string held in a JSON string).
	hugeTurn(o *agentOut, k int, huge func(quote string)) error
	compact(o *agentOut, k int)
	// hugePerTurn is how many lines a huge turn writes the huge text into.
	hugePerTurn() int64
}

// documentTurns is an agentTurns whose session is one JSON document: tail closes it.
type documentTurns interface {
	agentTurns
	tail(o *agentOut)
}

// AgentSession writes a session file of a coding agent shaped like the ones the agents write
// (corpora/testdata/agents): many turns, each a tool result with a base64 screenshot, a
// compaction every few turns, and cfg.HugeLines huge lines, streamed (memory does not grow with
// the file or its lines). It returns the number of bytes written.
func AgentSession(w io.Writer, cfg AgentSessionConfig) (int64, error) {
	turns, err := agentTurnsOf(cfg.Format)
	if err != nil {
		return 0, err
	}
	every := cfg.CompactEvery
	if every <= 0 {
		every = 8
	}
	o := &agentOut{cw: &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}}
	shots, err := screenshots(cfg.Seed)
	if err != nil {
		return 0, err
	}
	turns.head(o)
	// The huge turns sit at the middles of equal stretches of the ordinary turns' bytes.
	hugeBytes := int64(cfg.HugeLines) * turns.hugePerTurn() * cfg.HugeBytes * 4 / 3
	stretch := max(cfg.Bytes-hugeBytes, 0) / max(int64(cfg.HugeLines), 1)
	huge, ordinary := 0, int64(0)
	for k := 0; o.cw.n < cfg.Bytes || huge < cfg.HugeLines; k++ {
		if k > 0 && k%every == 0 {
			turns.compact(o, k)
		}
		if huge < cfg.HugeLines && ordinary >= int64(huge)*stretch+stretch/2 {
			seed := cfg.Seed + int64(huge) + 1
			if err := turns.hugeTurn(o, k, func(quote string) { o.hugeText(cfg.HugeBytes, seed, quote) }); err != nil {
				return o.cw.n, err
			}
			huge++
			continue
		}
		at := o.cw.n
		turns.turn(o, k, shots[k%len(shots)])
		ordinary += o.cw.n - at
	}
	if t, ok := turns.(documentTurns); ok {
		t.tail(o)
	}
	if err := o.cw.w.(*bufio.Writer).Flush(); err != nil && o.err == nil {
		o.err = err
	}
	if o.err == nil {
		o.err = o.cw.err
	}
	return o.cw.n, o.err
}

func agentTurnsOf(format string) (agentTurns, error) {
	switch format {
	case "claude-code":
		return &claudeTurns{}, nil
	case "codex":
		return &codexTurns{}, nil
	case "gemini-cli":
		return &geminiTurns{}, nil
	case "opencode":
		return &opencodeTurns{}, nil
	case "cline":
		return &clineTurns{}, nil
	}
	var names []string
	for _, f := range AgentSessionFormats {
		names = append(names, f.Name)
	}
	return nil, fmt.Errorf("agent session format %q: want one of %s", format, strings.Join(names, ", "))
}

// screenshots are a few base64 PNGs of about 120 KB each (a browser's screenshot).
func screenshots(seed int64) ([]string, error) {
	var out []string
	for i := range 4 {
		var b bytes.Buffer
		enc := base64.NewEncoder(base64.StdEncoding, &b)
		if err := writeStoredPNG(enc, 200, 200, seed*16+int64(i)); err != nil {
			return nil, err
		}
		enc.Close()
		out = append(out, b.String())
	}
	return out, nil
}

// agentOut writes the lines of a session, keeping the first error.
type agentOut struct {
	cw  *countingWriter
	err error
}

// line writes the concatenation of parts.
func (o *agentOut) line(parts ...string) {
	for _, p := range parts {
		io.WriteString(o.cw, p)
	}
}

// hugeText writes, inside a JSON string, the text of an MCP screenshot result whose base64
// PNG is at least pictureBytes bytes: `{"page": …, "screenshot": {"data": "<base64>"}}`, each
// of its quotes written as quote.
func (o *agentOut) hugeText(pictureBytes, seed int64, quote string) {
	side := int64(1)
	for side*side*3 < pictureBytes {
		side++
	}
	q := func(s string) string { return strings.ReplaceAll(s, `"`, quote) }
	io.WriteString(o.cw, q(`{"page":"http://localhost:3000/","screenshot":{"data":"`))
	enc := base64.NewEncoder(base64.StdEncoding, o.cw)
	if err := writeStoredPNG(enc, int(side), int(side), seed); err != nil && o.err == nil {
		o.err = err
	}
	enc.Close()
	io.WriteString(o.cw, q(`","mimeType":"image/png"}}`))
}

// jsObject is a JSON object whose members keep their order; jsStream is a string whose
// content (escaped) a function writes as it streams; pretty writes both.
type (
	jsObject []jsMember
	jsMember struct {
		key   string
		value any
	}
	jsStream func()
)

// pretty writes v, at depth of nesting, as JavaScript's JSON.stringify(v, null, 2) writes it:
// v is a jsObject, a []any, a jsStream, a string, an int, a float64, a bool or nil.
func (o *agentOut) pretty(v any, depth int) {
	open, end, n := "[", "]", 0
	switch v := v.(type) {
	case jsObject:
		open, end, n = "{", "}", len(v)
	case []any:
		n = len(v)
	case jsStream:
		o.line(`"`)
		v()
		o.line(`"`)
		return
	default:
		o.line(o.scalar(v))
		return
	}
	if n == 0 {
		o.line(open, end)
		return
	}
	o.line(open)
	pad := "\n" + strings.Repeat("  ", depth+1)
	for i := range n {
		if i > 0 {
			o.line(",")
		}
		o.line(pad)
		if obj, ok := v.(jsObject); ok {
			o.line(o.scalar(obj[i].key), ": ")
			o.pretty(obj[i].value, depth+1)
		} else {
			o.pretty(v.([]any)[i], depth+1)
		}
	}
	o.line(pad[:len(pad)-2], end)
}

// scalar is v in JSON as JSON.stringify writes it (no HTML escapes).
func (o *agentOut) scalar(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && o.err == nil {
		o.err = err
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// stamp is the timestamp of turn k.
func stamp(k int) string {
	return time.Date(2026, 12, 7, 17, 44, 42, 0, time.UTC).Add(time.Duration(k) * 3 * time.Second).Format("2006-01-02T15:04:05.000Z")
}
