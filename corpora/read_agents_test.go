package corpora

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentSession is the one session file of a case of testdata/agents (make agent-sessions).
func agentSession(t testing.TB, name, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "agents", name, "sessions", pattern))
	if err != nil || len(files) != 1 {
		t.Fatalf("%s: %d session files (%v), want 1", name, len(files), err)
	}
	return files[0]
}

// readAgentFile reads path with detection, as replay does.
func readAgentFile(t testing.TB, path string) *Collector {
	t.Helper()
	var c Collector
	if err := ReadFile(context.Background(), path, "", &c); err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Problems {
		t.Errorf("problem: %v", p)
	}
	return &c
}

func TestReadClaudeCodeSessionRebuildsEachRequest(t *testing.T) {
	path := agentSession(t, "claude-code", "*/*.jsonl")
	if f, err := DetectFile(path); err != nil || f != FormatClaudeCode {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	c := readAgentFile(t, path)
	if len(c.Conversations) != 4 {
		t.Fatalf("%d conversations, want the 4 requests Claude Code sent", len(c.Conversations))
	}
	pictures := 0
	for i, conv := range c.Conversations {
		if conv.Format != FormatClaudeCode || conv.Model != "claude-opus-5-5" || len(conv.Tools) == 0 {
			t.Errorf("request %d: format %s, model %q, %d tools", i+1, conv.Format, conv.Model, len(conv.Tools))
		}
		if conv.ServerUsage == nil || conv.ServerUsage.PromptTokens == 0 {
			t.Errorf("request %d: no usage of its answer", i+1)
		}
		if len(conv.Notes) == 0 || !strings.Contains(conv.Notes[len(conv.Notes)-1], "rebuilt from the session's api-request records") {
			t.Errorf("request %d: notes %q", i+1, conv.Notes)
		}
		pictures = CountImageParts(conv.Messages)
	}
	// The usage Claude Code recorded for the first answer (the scripted server's input_tokens).
	if got := c.Conversations[0].ServerUsage.PromptTokens; got != 12357 {
		t.Errorf("request 1: usage %d prompt tokens, the session records 12357", got)
	}
	if pictures != 2 {
		t.Errorf("the last request holds %d pictures, want the MCP screenshot and the file read", pictures)
	}
}

// TestReadClaudeCodeSubagentFile: a sub-agent's file (<session>/subagents/agent-*.jsonl, every
// record of it a sidechain's) gives the sub-agent's requests, and the session file its own.
func TestReadClaudeCodeSubagentFile(t *testing.T) {
	sub := agentSession(t, "claude-code-subagent", "*/*/subagents/agent-*.jsonl")
	if f, err := DetectFile(sub); err != nil || f != FormatClaudeCode {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	// Its metadata beside it is Claude Code's, not an Anthropic request (it names a model).
	meta := strings.TrimSuffix(sub, ".jsonl") + ".meta.json"
	if f, err := DetectFile(meta); err != nil || f != FormatClaudeCode {
		t.Errorf("DetectFile(%s) = %q, %v", filepath.Base(meta), f, err)
	}
	if c := readAgentFile(t, meta); len(c.Conversations) != 0 {
		t.Errorf("%s: %d conversations, want none", filepath.Base(meta), len(c.Conversations))
	}
	for _, tt := range []struct {
		path     string
		pictures int // in the last request: the sub-agent's MCP screenshot, the main conversation's file
	}{{sub, 1}, {agentSession(t, "claude-code-subagent", "*/*.jsonl"), 1}} {
		c := readAgentFile(t, tt.path)
		if len(c.Conversations) != 3 {
			t.Fatalf("%s: %d conversations, want the 3 requests it sent", filepath.Base(tt.path), len(c.Conversations))
		}
		for i, conv := range c.Conversations {
			if !strings.HasPrefix(conv.ID, filepath.Base(tt.path)+"#") || conv.ServerUsage == nil ||
				!strings.Contains(strings.Join(conv.Notes, "\n"), "rebuilt from the session's api-request records") {
				t.Errorf("%s request %d: id %s, usage %v, notes %q", filepath.Base(tt.path), i+1, conv.ID, conv.ServerUsage, conv.Notes)
			}
		}
		if n := CountImageParts(c.Conversations[2].Messages); n != tt.pictures {
			t.Errorf("%s: the last request holds %d pictures, want %d", filepath.Base(tt.path), n, tt.pictures)
		}
	}
}

// TestReadClaudeCodeResizedPictureKeepsTheOriginal: where Claude Code sent an MCP screenshot
// resized, the conversation holds the original it kept under tool-results/ (2560×1600) and
// Sent the picture sent (2000×1250); of a picture file Read resized the session keeps the
// dimensions only: both hold it as sent, and a note says so. Read away from its folder, the
// session holds the resized screenshot too.
func TestReadClaudeCodeResizedPictureKeepsTheOriginal(t *testing.T) {
	path := agentSession(t, "claude-code-resize", "*/*.jsonl")
	c := readAgentFile(t, path)
	last := c.Conversations[len(c.Conversations)-1]
	if got, want := pictureSizes(t, last.Messages), "2560x1600 2000x1250"; got != want {
		t.Errorf("before: pictures %s, want %s", got, want)
	}
	if got, want := pictureSizes(t, last.Sent), "2000x1250 2000x1250"; got != want {
		t.Errorf("sent: pictures %s, want %s", got, want)
	}
	if notes := strings.Join(last.Notes, "\n"); !strings.Contains(notes, "1 picture(s) Claude Code resized before sending") ||
		!strings.Contains(notes, "read at 2560x1600 and sent at 2000x1250") {
		t.Errorf("notes %q, want the picture file Read resized", last.Notes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	away, err := apiRead(t, readClaudeCode, filepath.Join(t.TempDir(), "s.jsonl"), string(data))
	if err != nil {
		t.Fatal(err)
	}
	last = away.Conversations[len(away.Conversations)-1]
	if got := pictureSizes(t, last.Messages); got != "2000x1250 2000x1250" || !strings.Contains(strings.Join(last.Notes, "\n"), "2 picture(s) Claude Code resized before sending, the before arm holds as sent") {
		t.Errorf("away from its folder: pictures %s, notes %q", got, last.Notes)
	}
}

// pictureSizes lists the dimensions of the pictures in msgs, in order.
func pictureSizes(t *testing.T, msgs []Message) string {
	t.Helper()
	var out []string
	var walk func(ps []Part)
	walk = func(ps []Part) {
		for _, p := range ps {
			if p.ToolResult != nil {
				walk(p.ToolResult.Parts)
			}
			if p.Image == nil {
				continue
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(p.Image.Data))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%dx%d", cfg.Width, cfg.Height))
		}
	}
	for _, m := range msgs {
		walk(m.Parts)
	}
	return strings.Join(out, " ")
}

func TestReadCodexRolloutGivesEachRequestWithWhatIsMissing(t *testing.T) {
	path := agentSession(t, "codex", "*/*/*/rollout-*.jsonl")
	if f, err := DetectFile(path); err != nil || f != FormatCodex {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	c := readAgentFile(t, path)
	if len(c.Conversations) != 4 {
		t.Fatalf("%d conversations, want the 4 requests Codex sent", len(c.Conversations))
	}
	for i, conv := range c.Conversations {
		if conv.Format != FormatCodex || conv.Model != "gpt-5.5" || conv.ServerUsage == nil {
			t.Errorf("request %d: format %s, model %q, usage %v", i+1, conv.Format, conv.Model, conv.ServerUsage)
		}
		if len(conv.Notes) == 0 || conv.Notes[len(conv.Notes)-1] != codexMissing {
			t.Errorf("request %d: notes %q, want the note of the tool schemas", i+1, conv.Notes)
		}
		if conv.Messages[0].Role != RoleSystem && conv.Messages[0].Role != "developer" {
			t.Logf("request %d starts with %s", i+1, conv.Messages[0].Role)
		}
	}
	last := c.Conversations[3]
	if n := CountImageParts(last.Messages); n != 2 {
		t.Errorf("the last request holds %d pictures, want the MCP image and view_image's", n)
	}
	if last.ServerUsage.PromptTokens != 33608 {
		t.Errorf("the last request's usage is %d, the rollout records 33608", last.ServerUsage.PromptTokens)
	}
}

func TestAgentReadersLocateBadLines(t *testing.T) {
	// An OpenCode export's head and a message of it.
	oc := "{\n  \"info\": {\"id\": \"ses_1\", \"projectID\": \"global\"},\n  \"messages\": [\n"
	ocUser := "    {\"info\": {\"role\": \"user\"}, \"parts\": [{\"type\": \"text\", \"text\": \"hi\"}]}"
	tests := []struct {
		read       ReaderFunc
		input, loc string
	}{
		{readClaudeCode, "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"user\",,}\n", "s.jsonl:2:16"},
		{readClaudeCode, "{\"type\":\"api-request\",\"keep\":\"two\"}\n", "s.jsonl:1:"},
		{readClaudeCode, "{\"type\":\"api-request\",\"id\":\"b\",\"base\":\"a\",\"keep\":1,\"tail\":[]}\n", "s.jsonl:1 at /base"},
		{readClaudeCode, "{\"type\":\"api-request-shape\",\"shapeHash\":\"h\",\"shape\":{}}\n{\"type\":\"api-request\",\"id\":\"a\",\"shapeHash\":\"h\",\"tail\":[\"x\"]}\n", "s.jsonl:2 at /tail/0"},
		{readCodex, "{\"type\":\"session_meta\",\"payload\":{}}\n[1,2\n", "s.jsonl:2:4"},
		{readCodex, "{\"type\":\"response_item\",\"payload\":{\"role\":\"user\"}}\n", "s.jsonl:1 at /payload"},
		{readGeminiCLI, "{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n{\"type\":\"user\",\"content\":7}\n", "s.jsonl:2 at /content"},
		{readGeminiCLI, "{\"type\":\"user\",\"content\":[{\"text\":\"hi\"}]}\n{\"type\":\"gemini\",\"tokens\":{\"input\":\"x\"}}\n", "s.jsonl:2:"},
		{readGeminiCLI, "{\"type\":\"user\",\"content\":[{\"inlineData\":{\"data\":\"@@\"}}]}\n{\"type\":\"gemini\",\"content\":\"ok\"}\n", "s.jsonl:2 at /contents/0/parts/0/inlineData/data"},
		{readOpencode, oc + ocUser + ",\n    {\"info\": {\"role\": \"assistant\"},\n     \"parts\": [,]}\n  ]\n}\n", "s.jsonl:6:16 at /messages/1"},
		{readOpencode, oc + "    {\"info\": {\"role\": 7}, \"parts\": []}\n  ]\n}\n", "s.jsonl:4:"},
		{readOpencode, oc + "    {\"info\": {\"role\": \"system\"}, \"parts\": []}\n  ]\n}\n", "s.jsonl:4 at /messages/0/info/role"},
		{readOpencode, oc + "    \"text\"\n  ]\n}\n", "s.jsonl:4 at /messages/0"},
		{readOpencode, oc + ocUser + "\n  ]\n}\n}\n", "s.jsonl:7: unmatched"},
		{readOpencode, oc + ocUser[:30], "s.jsonl:4:30 at /messages/0"},
		{readOpencode, oc + ocUser + "\n  ]\n", "s.jsonl:6: the export ends"},
		{readCline, "{\"sessionId\":\"s\",\n\"messages\":[\n{\"role\":\"user\",\"content\":\"hi\"},\n{\"role\":\"assistant\",,}]}", "s.jsonl:4:"},
		{readCline, "{\"messages\":[\n{\"role\":\"user\",\"content\":7}]}", "s.jsonl:2 at /messages/0/content"},
		{readCline, "{\"messages\":[\n{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":[1,}]}]}", "s.jsonl:2:"},
	}
	for _, tt := range tests {
		c, err := apiRead(t, tt.read, "s.jsonl", tt.input)
		if err != nil {
			t.Errorf("%q: error %v, want problems only", tt.input, err)
			continue
		}
		if len(c.Problems) == 0 || !strings.HasPrefix(c.Problems[0].Error(), tt.loc) {
			t.Errorf("%q: problems %q, want one at %s", tt.input, apiShortProblems(c), tt.loc)
		}
	}
}

func TestSpoolMovesToDiskAndReadsBack(t *testing.T) {
	var s spool
	defer s.close()
	big := strings.Repeat("x", spoolInMemory/2+1)
	var refs []spoolRef
	for i := 0; i < 3; i++ {
		ref, err := s.put([]byte(big[:len(big)-i]))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	if s.file == nil {
		t.Fatal("the spool stayed in memory past spoolInMemory")
	}
	name := s.file.Name()
	for i, ref := range refs {
		b, err := s.get(ref)
		if err != nil || string(b) != big[:len(big)-i] {
			t.Errorf("value %d: %d bytes, %v", i, len(b), err)
		}
	}
	s.close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("the spool file is left behind: %v", err)
	}
}

// fuzzAgentSeeds are the first lines of the real sessions, and broken variants.
func fuzzAgentSeeds(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var small []string
	for _, l := range lines {
		if len(l) < 4<<10 {
			small = append(small, l)
		}
	}
	f.Add(strings.Join(small, ""))
	f.Add(strings.Join(small[:len(small)/2], "") + "{\"type\":")
	f.Add("{\"type\":\"api-request\",\"id\":\"a\",\"base\":\"a\",\"keep\":-1}\n")
}

// fuzzAgentReader: a reader never panics, and every problem names the file and a line.
func fuzzAgentReader(f *testing.F, read ReaderFunc) {
	f.Fuzz(func(t *testing.T, input string) {
		var c Collector
		if err := read(context.Background(), "s.jsonl", strings.NewReader(input), &c); err != nil && !strings.HasPrefix(err.Error(), "s.jsonl") {
			t.Fatalf("error %v is not located", err)
		}
		for _, p := range c.Problems {
			if p.Loc.File != "s.jsonl" || (p.Loc.Line == 0 && p.Loc.Pointer == "") {
				t.Fatalf("problem %v is not located", p)
			}
		}
	})
}

func FuzzReadClaudeCode(f *testing.F) {
	fuzzAgentSeeds(f, agentSession(f, "claude-code", "*/*.jsonl"))
	fuzzAgentReader(f, readClaudeCode)
}

func FuzzReadCodex(f *testing.F) {
	fuzzAgentSeeds(f, agentSession(f, "codex", "*/*/*/rollout-*.jsonl"))
	fuzzAgentReader(f, readCodex)
}

func TestReadGeminiCLISessionGivesTheContentsAsSent(t *testing.T) {
	path := agentSession(t, "gemini-cli", "*/chats/session-*.jsonl")
	if f, err := DetectFile(path); err != nil || f != FormatGeminiCLI {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	c := readAgentFile(t, path)
	wire, _ := filepath.Glob(filepath.Join("testdata", "agents", "gemini-cli", "requests", "*-streamGenerateContent.json"))
	if len(c.Conversations) != len(wire) || len(wire) != 3 {
		t.Fatalf("%d conversations, %d requests sent; want 3 of each", len(c.Conversations), len(wire))
	}
	for i, conv := range c.Conversations {
		if conv.Format != FormatGeminiCLI || conv.ServerUsage == nil || conv.Notes[len(conv.Notes)-1] != geminiMissing {
			t.Errorf("request %d: format %s, usage %v, notes %q", i+1, conv.Format, conv.ServerUsage, conv.Notes)
		}
		body, err := os.ReadFile(wire[i])
		if err != nil {
			t.Fatal(err)
		}
		sent, _, rerr := apiParseRequest(geminiAPI(), jwNode{raw: body, loc: Location{File: wire[i]}}, "wire", nil, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if got, want := messageDigest(conv.Messages), messageDigest(sent.Messages); got != want {
			t.Errorf("request %d: rebuilt and sent differ: %s", i+1, firstDifference(got, want))
		}
	}
	if n := CountImageParts(c.Conversations[2].Messages); n != 2 {
		t.Errorf("the last request holds %d pictures, want the MCP image and read_file's", n)
	}
}

// messageDigest renders messages for comparison: roles, names, part kinds, texts, the sizes
// and first bytes of pictures, tool calls.
func messageDigest(msgs []Message) string {
	var b strings.Builder
	var parts func(ps []Part)
	parts = func(ps []Part) {
		for _, p := range ps {
			switch {
			case p.Image != nil:
				fmt.Fprintf(&b, " image(%d %x)", len(p.Image.Data), p.Image.Data[:min(8, len(p.Image.Data))])
			case p.ToolCall != nil:
				fmt.Fprintf(&b, " call(%s %s %s)", p.ToolCall.ID, p.ToolCall.Name, p.ToolCall.Arguments)
			case p.ToolResult != nil:
				fmt.Fprintf(&b, " result(%s %s:", p.ToolResult.CallID, p.ToolResult.Name)
				parts(p.ToolResult.Parts)
				b.WriteString(")")
			default:
				fmt.Fprintf(&b, " %s(%q)", p.Kind, p.Text)
			}
		}
	}
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s/%s:", m.Role, m.Name)
		parts(m.Parts)
		b.WriteString("\n")
	}
	return b.String()
}

func FuzzReadGeminiCLI(f *testing.F) {
	fuzzAgentSeeds(f, agentSession(f, "gemini-cli", "*/chats/session-*.jsonl"))
	fuzzAgentReader(f, readGeminiCLI)
}

// firstDifference shows where two digests part, a little of each.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(s string) string { return s[max(0, i-40):min(len(s), i+80)] }
	return fmt.Sprintf("at byte %d of %d and %d: %q vs %q", i, len(a), len(b), cut(a), cut(b))
}

// TestAgentReadersSurviveDamage reads every real session cut short and with bytes changed, at
// many places: a reader never panics and every problem it reports is located (what the fuzz
// targets check, on inputs chosen here).
func TestAgentReadersSurviveDamage(t *testing.T) {
	for _, tt := range []struct {
		read          ReaderFunc
		name, pattern string
	}{
		{readClaudeCode, "claude-code", "*/*.jsonl"},
		{readClaudeCode, "claude-code-subagent", "*/*/subagents/agent-*.jsonl"},
		{readClaudeCode, "claude-code-resize", "*/*.jsonl"},
		{readCodex, "codex", "*/*/*/rollout-*.jsonl"},
		{readGeminiCLI, "gemini-cli", "*/chats/session-*.jsonl"},
		{readOpencode, "opencode", "ses_*.json"},
		{readCline, "cline", "*/*.messages.json"},
	} {
		data, err := os.ReadFile(agentSession(t, tt.name, tt.pattern))
		if err != nil {
			t.Fatal(err)
		}
		step := len(data)/97 + 1
		for at := 0; at < len(data); at += step {
			for _, input := range []string{
				string(data[:at]),
				string(data[:at]) + "\x00" + string(data[at+1:]),
				string(data[:at]) + "}" + string(data[at:]),
			} {
				var c Collector
				if err := tt.read(context.Background(), "s.jsonl", strings.NewReader(input), &c); err != nil {
					t.Fatalf("%s damaged at %d: %v", tt.name, at, err)
				}
				for _, p := range c.Problems {
					if p.Loc.File != "s.jsonl" || p.Loc.Line == 0 {
						t.Fatalf("%s damaged at %d: problem %v is not located", tt.name, at, p)
					}
				}
			}
		}
	}
}

// TestAgentLineStreamsRunsAndSkipsWhatIsLeft: a line whose bulk is a base64 run is read with
// the run streamed past (kept as its stand-in, so it holds less than the cap); a line that
// holds more than the cap besides is read past whole, and the next line reads as it is.
func TestAgentLineStreamsRunsAndSkipsWhatIsLeft(t *testing.T) {
	run := strings.Repeat("QUJD", 1<<19) // 2 MiB of base64
	text := strings.Repeat("a b ", 1<<18)
	input := `{"text":"screen: ` + run + `"}` + "\n" + `{"text":"` + text + `"}` + "\n" + `{"text":"next"}`
	br := bufio.NewReaderSize(strings.NewReader(input), 64<<10)
	opts := &runsOptions{chars: 1 << 16}
	line, _, tooLong, err := agentLine(br, nil, opts, 1<<19)
	if err != nil || tooLong || len(line) > 1<<18 { // the stand-in keeps the run's first 64 KiB, in hex
		t.Fatalf("the line of a run: %d bytes, too long %v, %v", len(line), tooLong, err)
	}
	var v struct{ Text string }
	if json.Unmarshal(line, &v) != nil || len(LargeRuns(v.Text)) != 1 || LargeRuns(v.Text)[0].Chars != int64(len(run)) {
		t.Errorf("the run is not kept as its stand-in: %.200q", line)
	}
	if line, _, tooLong, err = agentLine(br, line[:0], opts, 1<<19); err != nil || !tooLong || line != nil {
		t.Errorf("the line of 1 MiB of text: %d bytes, too long %v, %v", len(line), tooLong, err)
	}
	if line, _, tooLong, err = agentLine(br, line, opts, 1<<19); err != io.EOF || tooLong || string(line) != `{"text":"next"}` {
		t.Errorf("the next line: %q, too long %v, %v", line, tooLong, err)
	}
}

// runsOptions streams past the runs over chars characters, uncounted.
type runsOptions struct{ chars int }

func (o *runsOptions) NewRunCounter() RunCounter { return nil }
func (o *runsOptions) LargeRunChars() int        { return o.chars }

// TestReadCodexCompactionStartsTheNextRequests: the requests after a compacted record hold
// its replacement_history and what came after, not the items it replaced.
func TestReadCodexCompactionStartsTheNextRequests(t *testing.T) {
	input := strings.Join([]string{
		`{"type":"session_meta","payload":{"model_provider":"p","base_instructions":{"text":"be brief"}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"old question"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"old answer"}]}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":10}}}}`,
		`{"type":"compacted","payload":{"message":"s","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"the summary"}]}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"new question"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"new answer"}]}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":20}}}}`,
	}, "\n")
	c, err := apiRead(t, readCodex, "rollout.jsonl", input)
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 2 {
		t.Fatalf("%v, problems %q, %d conversations", err, apiShortProblems(c), len(c.Conversations))
	}
	var texts []string
	for _, m := range c.Conversations[1].Messages {
		for _, p := range m.Parts {
			texts = append(texts, p.Text)
		}
	}
	if got := strings.Join(texts, "|"); got != "be brief|the summary|new question" {
		t.Errorf("the request after the compaction holds %q", got)
	}
}

// TestAgentReadersLocateAfterAStreamedRun: a syntax error after a base64 run streamed past, in
// the same line, is located at its column in the file: the column counts the run's characters,
// not its stand-in's.
func TestAgentReadersLocateAfterAStreamedRun(t *testing.T) {
	run := strings.Repeat("QUJD", 1<<16) // 256 KiB of base64, streamed past from 64 KiB
	tests := []struct {
		read  ReaderFunc
		input string
	}{
		{readClaudeCode, `{"type":"user","sessionId":"s","message":{"role":"user","content":"screen: ` + run + `"},,}` + "\n"},
		{readCodex, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"screen: ` + run + `"}]},,}` + "\n"},
		{readGeminiCLI, `{"type":"user","content":[{"text":"screen: ` + run + `"}],,}` + "\n"},
		{readOpencode, "{\n  \"info\": {\"id\": \"ses_1\", \"projectID\": \"global\"},\n  \"messages\": [\n" +
			`    {"info": {"role": "user"}, "parts": [{"type": "text", "text": "screen: ` + run + `"},,]}` + "\n  ]\n}\n"},
		{readCline, "{\"sessionId\":\"s\",\n\"messages\":[\n" + `{"role":"user","content":"screen: ` + run + `"},,]}`},
	}
	for _, tt := range tests {
		e := &runEmitter{limit: 1 << 16}
		if err := tt.read(context.Background(), "s.jsonl", strings.NewReader(tt.input), e); err != nil {
			t.Fatal(err)
		}
		at := strings.Index(tt.input, ",,") + 1
		want := fmt.Sprintf("s.jsonl:%d:%d", 1+strings.Count(tt.input[:at], "\n"), at-strings.LastIndexByte(tt.input[:at], '\n'))
		if len(e.Problems) == 0 || !strings.HasPrefix(e.Problems[0].Error(), want+":") && !strings.HasPrefix(e.Problems[0].Error(), want+" ") {
			t.Errorf("%.60s: problems %q, want one at %s", tt.input, apiShortProblems(&e.Collector), want)
		}
	}
}

// TestAgentDocumentsStreamLargePictures: an OpenCode export's attachment and a Cline session's
// image block whose base64 is over the limit are streamed past, not skipped: each request that
// sends the picture holds it as LargeBase64 of its length, and nothing is reported.
func TestAgentDocumentsStreamLargePictures(t *testing.T) {
	b64 := strings.Repeat("QUJD", 1<<16)
	oc := "{\n  \"info\": {\"id\": \"ses_1\", \"projectID\": \"global\"},\n  \"messages\": [\n" +
		`    {"info": {"role": "user"}, "parts": [{"type": "text", "text": "look"}]},` + "\n" +
		`    {"info": {"role": "assistant", "modelID": "m"}, "parts": [{"type": "step-start"}, {"type": "tool", "tool": "read", "callID": "c1", "state": {"status": "completed", "input": {}, "output": "Image read successfully", "attachments": [{"type": "file", "mime": "image/png", "url": "data:image/png;base64,` + b64 + `"}]}}]},` + "\n" +
		`    {"info": {"role": "assistant", "modelID": "m"}, "parts": [{"type": "text", "text": "A page."}]}` + "\n  ]\n}\n"
	cl := "{\"sessionId\":\"s\",\"agent\":\"lead\",\n\"messages\":[\n" +
		`{"role":"user","content":[{"type":"text","text":"look"}]},` + "\n" +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_files","input":{}}],"modelInfo":{"id":"m","provider":"anthropic"}},` + "\n" +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Successfully read image"},{"type":"image","data":"` + b64 + `","mediaType":"image/png"}]}]},` + "\n" +
		`{"role":"assistant","content":[{"type":"text","text":"A page."}],"modelInfo":{"id":"m","provider":"anthropic"}}` + "\n]}"
	for _, tt := range []struct {
		read  ReaderFunc
		input string
	}{{readOpencode, oc}, {readCline, cl}} {
		e := &runEmitter{limit: 1 << 16}
		if err := tt.read(context.Background(), "s.json", strings.NewReader(tt.input), e); err != nil || len(e.Problems) != 0 {
			t.Fatalf("%.40q: %v, problems %v", tt.input, err, apiShortProblems(&e.Collector))
		}
		var large []int64
		for _, c := range e.Conversations {
			for _, m := range c.Messages {
				large = append(large, largeImages(m.Parts)...)
			}
		}
		if len(e.Conversations) != 2 || len(large) != 1 || large[0] != int64(len(b64)) {
			t.Errorf("%.40q: %d conversations, pictures streamed past of %v characters: want 2 and one of %d", tt.input, len(e.Conversations), large, len(b64))
		}
	}
}

// largeImages are the lengths of the pictures streamed past among parts and their tool results.
func largeImages(parts []Part) []int64 {
	var out []int64
	for _, p := range parts {
		if p.Image != nil && p.Image.Large != nil {
			out = append(out, p.Image.Large.Chars)
		}
		if p.ToolResult != nil {
			out = append(out, largeImages(p.ToolResult.Parts)...)
		}
	}
	return out
}
