package corpora

import (
	"context"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://img.example.test/a.png?access_token=abc123", "https://img.example.test/a.png?access_token=REDACTED"},
		{"https://h/p?size=large&api_key=k1&x=2#frag", "https://h/p?size=large&api_key=REDACTED&x=2#frag"},
		{"https://h/p?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA/x&X-Amz-Date=20261130", "https://h/p?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&X-Amz-Date=20261130"},
		{"https://user:hunter2@h.example/p?key=k", "https://REDACTED@h.example/p?key=REDACTED"},
		{"https://h/cb#access_token=tok&state=s", "https://h/cb#access_token=REDACTED&state=s"},
		{"https://h/p?sig=s&sigma=1", "https://h/p?sig=REDACTED&sigma=1"},
		{"https://h/plain.png", "https://h/plain.png"},
		{"https://h/p?flag&token", "https://h/p?flag&token"},
		{"data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,iVBORw0KGgo="},
		{"not a url ?token=x", "not a url ?token=x"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReadRedactsReferenceURLs(t *testing.T) {
	rec := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://h.example/a.png?access_token=planted-7"}}]}]}`
	var c Collector
	if err := Read(context.Background(), "x.json", strings.NewReader(rec), "", &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Conversations) != 1 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	var found bool
	for _, p := range c.Conversations[0].Messages[0].Parts {
		if p.Ref != nil {
			found = true
			if p.Ref.Target != "https://h.example/a.png?access_token=REDACTED" {
				t.Errorf("reference target %q", p.Ref.Target)
			}
		}
	}
	if !found {
		t.Fatal("no reference read")
	}
}

func FuzzRedactURL(f *testing.F) {
	f.Add("https://u:p@h/p?access_token=x&y=1#k=2")
	f.Add("data:image/png;base64,AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactURL(s)
		if !strings.Contains(s, "://") && out != s {
			t.Errorf("changed a string that is not a URL: %q -> %q", s, out)
		}
		if RedactURL(out) != out {
			t.Errorf("not idempotent: %q -> %q -> %q", s, out, RedactURL(out))
		}
	})
}

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"see https://h.example/x?api_key=k1&q=1 now", "see https://h.example/x?api_key=REDACTED&q=1 now"},
		{`{"u":"https://u:pw@h.example/p"}`, `{"u":"https://REDACTED@h.example/p"}`},
		{"(https://h/p?token=t) and <wss://h/s?sig=s>", "(https://h/p?token=REDACTED) and <wss://h/s?sig=REDACTED>"},
		{"two: http://a/?key=1 http://b/?key=2", "two: http://a/?key=REDACTED http://b/?key=REDACTED"},
		{"plain https://h/p?size=2 and :// alone", "plain https://h/p?size=2 and :// alone"},
		{"no url at all", "no url at all"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactMessagesCopies(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: "hi"}}},
		{Role: RoleTool, Raw: []byte(`{"role":"tool"}`), Parts: []Part{{Kind: PartToolResult, ToolResult: &ToolResult{
			Text: "at https://h/p?api_key=planted", MCP: &CallToolResult{Content: []Block{{Type: "text", Text: "https://h/?token=planted"}}}}}}},
	}
	out := RedactMessages(msgs)
	if &out[0] == &msgs[0] {
		t.Fatal("a changed list was not copied")
	}
	if strings.Contains(msgs[1].Parts[0].ToolResult.Text, "REDACTED") || msgs[1].Raw == nil {
		t.Error("the input was modified")
	}
	tr := out[1].Parts[0].ToolResult
	if tr.Text != "at https://h/p?api_key=REDACTED" || tr.MCP.Content[0].Text != "https://h/?token=REDACTED" || out[1].Raw != nil {
		t.Errorf("redacted: %q, %q, raw %q", tr.Text, tr.MCP.Content[0].Text, out[1].Raw)
	}
	if same := RedactMessages(msgs[:1]); &same[0] != &msgs[0] {
		t.Error("messages naming no URL were copied")
	}
}

// FuzzRedactText: no panic, idempotent, and text naming no URL comes back the same.
func FuzzRedactText(f *testing.F) {
	f.Add("see https://h.example/x?api_key=k1&q=1 now")
	f.Add("https://u:pw@h/p://x?key=1")
	f.Add("://?token=")
	f.Fuzz(func(t *testing.T, s string) {
		r := RedactText(s)
		if RedactText(r) != r {
			t.Fatalf("not idempotent: %q → %q → %q", s, r, RedactText(r))
		}
		if !strings.Contains(s, "://") && r != s {
			t.Fatalf("text with no URL changed: %q → %q", s, r)
		}
	})
}
