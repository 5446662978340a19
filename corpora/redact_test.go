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
