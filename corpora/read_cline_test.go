package corpora

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadClineSessionGivesTheMessagesAsSent(t *testing.T) {
	path := agentSession(t, "cline", "*/*.messages.json")
	if f, err := DetectFile(path); err != nil || f != FormatCline {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	c := readAgentFile(t, path)
	wire, _ := filepath.Glob(filepath.Join("testdata", "agents", "cline", "requests", "*-messages.json"))
	if len(c.Conversations) != len(wire) || len(wire) != 3 {
		t.Fatalf("%d conversations, %d requests sent; want 3 of each", len(c.Conversations), len(wire))
	}
	for i, conv := range c.Conversations {
		if conv.Format != FormatCline || conv.Model != "claude-sonnet-4-5" || conv.Provider != "anthropic" || conv.ServerUsage == nil || conv.Notes[0] != clineMissing {
			t.Errorf("request %d: format %s, model %q, provider %q, usage %v, notes %q", i+1, conv.Format, conv.Model, conv.Provider, conv.ServerUsage, conv.Notes)
		}
		body, err := os.ReadFile(wire[i])
		if err != nil {
			t.Fatal(err)
		}
		sent, _, rerr := apiParseRequest(anthropicAPI(), jwNode{raw: body, loc: Location{File: wire[i]}}, "wire", nil, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		asSent := conv.Messages
		if conv.Sent != nil {
			asSent = conv.Sent
		}
		if got, want := messageDigest(asSent)+resultTexts(asSent), messageDigest(sent.Messages)+resultTexts(sent.Messages); got != want {
			t.Errorf("request %d: rebuilt and sent differ: %s", i+1, firstDifference(got, want))
		}
	}
	// The usage Cline recorded for the first answer (the scripted server's input_tokens).
	if got := c.Conversations[0].ServerUsage.PromptTokens; got != 5547 {
		t.Errorf("request 1: usage %d prompt tokens, the session records 5547", got)
	}
	// The MCP screenshot's result, a string of 65,720 characters, went out cut to 7,999.
	last := c.Conversations[2]
	if last.Sent == nil || !strings.Contains(last.Notes[len(last.Notes)-1], "1 tool result(s) differ from what Cline sent") {
		t.Fatalf("the last request: no Sent, notes %q", last.Notes)
	}
	shot := func(msgs []Message) int {
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.ToolResult != nil && p.ToolResult.CallID == "toolu_shot" {
					return len(p.ToolResult.Text)
				}
			}
		}
		return 0
	}
	if got, sent := shot(last.Messages), shot(last.Sent); got != 65720 || sent != 7999 {
		t.Errorf("the screenshot's result: %d characters as recorded, %d as sent; want 65720 and 7999", got, sent)
	}
	if n := CountImageParts(last.Sent); n != 1 {
		t.Errorf("the last request sent %d pictures, want read_files' one", n)
	}
}

func TestClineCutKeepsHeadAndTail(t *testing.T) {
	s := strings.Repeat("a", 5000) + strings.Repeat("b", 60720)
	got := clineCut(s)
	want := strings.Repeat("a", 3983) + "\n\n...[truncated 57754 chars]...\n\n" + strings.Repeat("b", 3983)
	if got != want {
		t.Errorf("clineCut: %d characters, want %d", len(got), len(want))
	}
	if short := strings.Repeat("é", 8000); clineCut(short) != short {
		t.Error("a text of 8000 UTF-16 units was cut")
	}
	if got := clineCut(strings.Repeat("é", 8001)); !strings.HasPrefix(got, strings.Repeat("é", 3985)+"\n\n...[truncated 31 chars]") {
		t.Errorf("clineCut counts UTF-16 units: %.40q", got)
	}
	if got := clineUserText(` <user_input mode="act">look</user_input> `); got != "look" {
		t.Errorf("clineUserText = %q", got)
	}
}

func TestClineIsNotAnAnthropicRequest(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "agents", "cline", "requests", "003-v1-messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect("003-v1-messages.json", body[:min(len(body), sniffSize)]); err != nil || f != FormatAnthropic {
		t.Errorf("a request Cline sent is detected as %q, %v; want anthropic", f, err)
	}
	// The session's <id>.json beside its messages names an Anthropic model: it is Cline's, and
	// holds no request.
	meta := strings.TrimSuffix(agentSession(t, "cline", "*/*.messages.json"), ".messages.json") + ".json"
	if f, err := DetectFile(meta); err != nil || f != FormatCline {
		t.Errorf("the session's %s is detected as %q, %v; want cline", filepath.Base(meta), f, err)
	}
	if c := readAgentFile(t, meta); len(c.Conversations) != 0 {
		t.Errorf("the session's metadata gave %d conversations", len(c.Conversations))
	}
}

// resultTexts are the texts of the tool results of msgs (a result recorded as a string),
// one a line.
func resultTexts(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				b.WriteString(p.ToolResult.Text + "\n")
			}
		}
	}
	return b.String()
}

func FuzzReadCline(f *testing.F) {
	fuzzAgentSeeds(f, agentSession(f, "cline", "*/*.messages.json"))
	fuzzAgentReader(f, readCline)
}

// TestClineCutOfAStreamedRun: a tool result whose base64 run was streamed past is sent as Cline
// cut the text it recorded: the first characters of the run, the count of those left out and
// the run's last characters, as the cut of the whole text gives them.
func TestClineCutOfAStreamedRun(t *testing.T) {
	raw := make([]byte, 240_000)
	for i := range raw {
		raw[i] = byte(i * 7 % 251)
	}
	for _, text := range []string{"the page: " + base64.StdEncoding.EncodeToString(raw) + " done",
		"é " + base64.StdEncoding.EncodeToString(raw[:200_000]) + strings.Repeat(" and more", 1000)} {
		session := `{"sessionId":"s","agent":"lead","messages":[{"role":"user","content":"look"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"shot","input":{}}],"modelInfo":{"id":"m","provider":"anthropic"}},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + string(jsString(text)) + `}]},` +
			`{"role":"assistant","content":[{"type":"text","text":"A page."}],"modelInfo":{"id":"m","provider":"anthropic"}}]}`
		e := &runEmitter{limit: 1 << 16}
		if err := readCline(context.Background(), "s.messages.json", strings.NewReader(session), e); err != nil || len(e.Problems) != 0 || len(e.Conversations) != 2 {
			t.Fatalf("%v, problems %q, %d conversations", err, apiShortProblems(&e.Collector), len(e.Conversations))
		}
		conv := e.Conversations[1]
		if len(conv.Sent) == 0 {
			t.Fatalf("no Sent arm: notes %q", conv.Notes)
		}
		kept := conv.Messages[len(conv.Messages)-1].Parts[0].ToolResult.Text
		sent := conv.Sent[len(conv.Sent)-1].Parts[0].ToolResult.Text
		if len(LargeRuns(kept)) != 1 || sent != clineCut(text) {
			t.Errorf("%.20q: kept %d runs; sent %.80q…, want %.80q…", text, len(LargeRuns(kept)), sent, clineCut(text))
		}
	}
}
