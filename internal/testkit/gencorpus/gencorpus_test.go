package gencorpus

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

type countingEmitter struct {
	conversations, toolMessages int
	problems                    []*corpora.ReadError
}

func (e *countingEmitter) Conversation(c *corpora.Conversation) error {
	e.conversations++
	for _, m := range c.Messages {
		if m.Role == corpora.RoleTool {
			e.toolMessages++
		}
	}
	return nil
}
func (e *countingEmitter) Problem(err *corpora.ReadError) { e.problems = append(e.problems, err) }

func TestGenerate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"small files", Config{Seed: 7, TotalBytes: 3 << 20, FileBytes: 1 << 20, ToolMessageBytes: 128 << 10, ToolTurns: 3, Pictures: 2}},
		{"one file, one turn", Config{Seed: 8, TotalBytes: 1 << 20, ToolMessageBytes: 96 << 10, ToolTurns: 1, Pictures: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := Generate(context.Background(), dir, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.Bytes < tt.cfg.TotalBytes || st.Requests != st.Conversations*tt.cfg.ToolTurns || st.Pictures == 0 {
				t.Fatalf("stats %+v do not fit the config %+v", st, tt.cfg)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			if len(files) != st.Files {
				t.Fatalf("%d files on disk, stats say %d", len(files), st.Files)
			}
			var onDisk int64
			em := &countingEmitter{}
			for _, f := range files {
				info, _ := os.Stat(f)
				onDisk += info.Size()
				if err := corpora.ReadFile(context.Background(), f, "", em); err != nil {
					t.Fatalf("read %s: %v", f, err)
				}
			}
			if onDisk != st.Bytes {
				t.Errorf("%d bytes on disk, stats say %d", onDisk, st.Bytes)
			}
			if len(em.problems) > 0 {
				t.Fatalf("problems reading the corpus: %v", em.problems)
			}
			// One conversation per recorded request; each re-sends the tool messages before it.
			wantTools := st.Conversations * tt.cfg.ToolTurns * (tt.cfg.ToolTurns + 1) / 2
			if em.conversations != st.Requests || em.toolMessages != wantTools {
				t.Errorf("read %d conversations with %d tool messages, want %d and %d", em.conversations, em.toolMessages, st.Requests, wantTools)
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := Config{Seed: 3, TotalBytes: 1 << 20, ToolMessageBytes: 100 << 10, Pictures: 1}
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := Generate(context.Background(), d, cfg); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := os.ReadFile(filepath.Join(a, "requests-0000.jsonl"))
	y, _ := os.ReadFile(filepath.Join(b, "requests-0000.jsonl"))
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two corpora of one seed differ (%d and %d bytes)", len(x), len(y))
	}
	cfg.Seed = 4
	c := t.TempDir()
	if _, err := Generate(context.Background(), c, cfg); err != nil {
		t.Fatal(err)
	}
	z, _ := os.ReadFile(filepath.Join(c, "requests-0000.jsonl"))
	if bytes.Equal(x, z) {
		t.Fatal("two seeds gave the same corpus")
	}
}

func TestGenerateRejectsNoSize(t *testing.T) {
	if _, err := Generate(context.Background(), t.TempDir(), Config{}); err == nil {
		t.Fatal("no error for a zero TotalBytes")
	}
}

// TestHugeLines: every huge-line format writes one recording, told apart by its name and
// content, whose tool result carries a picture that decodes to a PNG of at least the size asked.
func TestHugeLines(t *testing.T) {
	for _, f := range HugeLineFormats {
		var b bytes.Buffer
		n, err := HugeLine(&b, f, 30_000, 1)
		if err != nil || n != int64(b.Len()) {
			t.Fatalf("%s: %d bytes written, %d counted, %v", f.Name, b.Len(), n, err)
		}
		huge := 0 // lines holding the picture's 40,000 base64 characters
		for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
			if len(line) > 40_000 {
				huge++
			}
		}
		if huge != 1 || b.Bytes()[b.Len()-1] != '\n' {
			t.Errorf("%s: %d huge lines", f.Name, huge)
		}
		var c corpora.Collector
		// one conversation; an agent's session, one per request, the last one sending the picture
		if err := corpora.Read(context.Background(), f.File, &b, "", &c); err != nil || len(c.Problems) != 0 || len(c.Conversations) == 0 {
			t.Fatalf("%s: %v, problems %v", f.Name, err, c.Problems)
		}
		last := c.Conversations[len(c.Conversations)-1]
		agent := slices.ContainsFunc(AgentSessionFormats, func(a AgentSessionFormat) bool { return a.Name == f.Name })
		if got := last.Format; string(got) != f.Name || (len(c.Conversations) > 1 && !agent) {
			t.Errorf("%s: read as %s, %d conversations", f.Name, got, len(c.Conversations))
		}
		png := toolPicture(t, last)
		if len(png) < 30_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s: picture of %d bytes", f.Name, len(png))
		}
	}
	if _, err := HugeLineFormatNamed("gif"); err == nil || !strings.Contains(err.Error(), "mcp-jsonl, openai-chat") {
		t.Errorf("unknown format: %v", err)
	}
}

// toolPicture is the picture of the conversation's tool result, as its format carries it: an
// MCP image block, an image part, base64 after the caption of a text, or a picture of a user
// message after the result (OpenCode's).
func toolPicture(t *testing.T, conv *corpora.Conversation) []byte {
	t.Helper()
	for _, m := range conv.Messages {
		for _, p := range m.Parts {
			tr := p.ToolResult
			switch {
			case p.Image != nil && m.Role == corpora.RoleUser:
				return p.Image.Data
			case tr == nil:
			case tr.MCP != nil:
				for _, blk := range tr.MCP.Content {
					if blk.Data != "" {
						data, err := base64.StdEncoding.DecodeString(blk.Data)
						if err != nil {
							t.Fatal(err)
						}
						return data
					}
				}
			case tr.Parts != nil:
				for _, q := range tr.Parts {
					if q.Image != nil {
						return q.Image.Data
					}
				}
			case strings.HasPrefix(tr.Text, "the screen: "):
				data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(tr.Text, "the screen: "))
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
		}
	}
	t.Fatalf("%s: no tool result with a picture", conv.Format)
	return nil
}
