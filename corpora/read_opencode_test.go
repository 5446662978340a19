package corpora

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opencodeWire are the Chat Completions bodies OpenCode sent for its session's turn: those that
// offer tools (the one before them, without tools, asks for the session's title).
func opencodeWire(t *testing.T) []*Conversation {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "agents", "opencode", "requests", "*-chat-completions.json"))
	var sent []*Conversation
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		conv, _, rerr := apiParseRequest(chatAPI(), jwNode{raw: body, loc: Location{File: f}}, "wire", nil, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if len(conv.Tools) > 0 {
			sent = append(sent, conv)
		}
	}
	return sent
}

func TestReadOpencodeExportGivesTheMessagesAsSent(t *testing.T) {
	path := agentSession(t, "opencode", "ses_*.json")
	if f, err := DetectFile(path); err != nil || f != FormatOpencode {
		t.Fatalf("DetectFile = %q, %v", f, err)
	}
	c := readAgentFile(t, path)
	sent := opencodeWire(t)
	if len(c.Conversations) != len(sent) || len(sent) != 3 {
		t.Fatalf("%d conversations, %d requests with tools sent; want 3 of each", len(c.Conversations), len(sent))
	}
	for i, conv := range c.Conversations {
		if conv.Format != FormatOpencode || conv.Model != "gpt-4.1" || conv.Provider != "agentsim" || len(conv.Tools) != 0 {
			t.Errorf("request %d: format %s, model %q, provider %q, %d tools", i+1, conv.Format, conv.Model, conv.Provider, len(conv.Tools))
		}
		if len(conv.Notes) == 0 || conv.Notes[len(conv.Notes)-1] != opencodeMissing {
			t.Errorf("request %d: notes %q, want the note of the system prompt and tool schemas", i+1, conv.Notes)
		}
		// What the export does not hold: the system prompt, first on the wire, and the tools.
		wire := sent[i].Messages
		if wire[0].Role != RoleSystem || len(sent[i].Tools) != 11 {
			t.Fatalf("request %d on the wire: first %s, %d tools", i+1, wire[0].Role, len(sent[i].Tools))
		}
		if got, want := messageDigest(conv.Messages), messageDigest(wire[1:]); got != want {
			t.Errorf("request %d: rebuilt and sent differ: %s", i+1, firstDifference(got, want))
		}
	}
	// The usage OpenCode recorded for each answer: the scripted server's prompt_tokens.
	for i, want := range []int{8417, 24911, 31844} {
		if u := c.Conversations[i].ServerUsage; u == nil || u.PromptTokens != want || u.CompletionTokens != 12 {
			t.Errorf("request %d: usage %+v, the export records %d prompt tokens", i+1, u, want)
		}
	}
	last := c.Conversations[2].Messages
	if n := CountImageParts(last); n != 2 {
		t.Errorf("the last request holds %d pictures, want the MCP image and the file read", n)
	}
	// OpenCode sends a tool's pictures in a user message after its result.
	if m := last[len(last)-1]; m.Role != RoleUser || len(m.Parts) != 2 || m.Parts[0].Text != opencodeMediaPrompt {
		t.Errorf("last message %+v: want the user message carrying the file's picture", m)
	}
}

func FuzzReadOpencode(f *testing.F) {
	fuzzAgentSeeds(f, agentSession(f, "opencode", "ses_*.json"))
	fuzzAgentReader(f, readOpencode)
}

// TestReadOpencodeCompactionStartsTheNextRequests: once a summary answers a compaction, the
// requests after it start at the compaction's user message, as OpenCode sends them; the
// summary's own request holds what it summarizes.
func TestReadOpencodeCompactionStartsTheNextRequests(t *testing.T) {
	text := func(s string) string { return `"parts": [{"type": "text", "text": "` + s + `"}]` }
	export := `{"info": {"id": "ses_1", "projectID": "global"}, "messages": [
  {"info": {"id": "msg_1", "role": "user"}, ` + text("first") + `},
  {"info": {"id": "msg_2", "role": "assistant", "parentID": "msg_1", "modelID": "m", "finish": "stop"}, ` + text("answer") + `},
  {"info": {"id": "msg_3", "role": "user"}, "parts": [{"type": "compaction", "auto": true}]},
  {"info": {"id": "msg_4", "role": "assistant", "parentID": "msg_3", "modelID": "m", "mode": "compaction", "summary": true, "finish": "stop"}, ` + text("summary") + `},
  {"info": {"id": "msg_5", "role": "user"}, ` + text("next") + `},
  {"info": {"id": "msg_6", "role": "assistant", "parentID": "msg_5", "modelID": "m", "finish": "stop"}, ` + text("done") + `}
]}`
	c, err := apiRead(t, readOpencode, "ses_1.json", export)
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 3 {
		t.Fatalf("%v, problems %q, %d conversations", err, apiShortProblems(c), len(c.Conversations))
	}
	for i, want := range [][]string{{"first"}, {"first", "answer", "[Compacted summary of the prior conversation]"},
		{"[Compacted summary of the prior conversation]", "summary", "next"}} {
		var got []string
		for _, m := range c.Conversations[i].Messages {
			got = append(got, m.Parts[0].Text)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("request %d: %q, want %q", i, got, want)
		}
	}
}
