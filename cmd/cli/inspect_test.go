package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/results"
)

// manifest is the part of corpora/samples/manifest.json these tests read: what the sample
// generator put in every file, known independently of the readers.
type manifest struct {
	Files []struct {
		File          string   `json:"file"`
		Conversations int      `json:"conversations"`
		IDs           []string `json:"conversation_ids"`
		Pictures      []struct {
			SHA256 string `json:"sha256"`
			Type   string `json:"type"`
			Bytes  int    `json:"bytes"`
			Expect string `json:"expect"`
		} `json:"pictures"`
		NotPictures []struct {
			SHA256 string `json:"sha256"`
		} `json:"not_pictures"`
	} `json:"files"`
}

// TestInspectSamplesAgainstManifest checks `corpus inspect --json` on the embedded corpus:
// every conversation of every file, and every picture a server can see (image parts, MCP
// picture blocks, base64 runs of 1024+ characters in tool text) with its sha256, type and size.
func TestInspectSamplesAgainstManifest(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"corpus", "inspect", "--json"}, &IOStreams{Out: &out, ErrOut: &errOut}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got []struct {
		Summary  ConversationSummary `json:"summary"`
		Pictures []PictureLocation   `json:"pictures"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "corpora", "samples", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	perFile := map[string]int{}
	pics := map[string]map[string]PictureLocation{} // file → sha256 → picture
	for _, c := range got {
		perFile[c.Summary.File]++
		if pics[c.Summary.File] == nil {
			pics[c.Summary.File] = map[string]PictureLocation{}
		}
		for _, p := range c.Pictures {
			pics[c.Summary.File][p.SHA256] = p
		}
	}
	for _, f := range m.Files {
		if perFile[f.File] != f.Conversations {
			t.Errorf("%s: %d conversations, manifest says %d", f.File, perFile[f.File], f.Conversations)
		}
		for _, want := range f.Pictures {
			p, found := pics[f.File][want.SHA256]
			switch want.Expect {
			case "lift", "native", "mcp-picture":
				if !found {
					t.Errorf("%s: picture %s (%s) not found", f.File, want.SHA256[:12], want.Expect)
					continue
				}
				if p.Type != want.Type || p.Bytes != want.Bytes {
					t.Errorf("%s: picture %s is %s of %d bytes, manifest says %s of %d", f.File, want.SHA256[:12], p.Type, p.Bytes, want.Type, want.Bytes)
				}
			case "short", "never-user":
				if found && p.Kind == "base64-run" {
					t.Errorf("%s: picture %s (%s) was counted as a base64 run of tool text", f.File, want.SHA256[:12], want.Expect)
				}
			}
		}
		for _, np := range f.NotPictures {
			if p, found := pics[f.File][np.SHA256]; found {
				t.Errorf("%s: %s is not a picture but inspect lists it as %s", f.File, np.SHA256[:12], p.Kind)
			}
		}
	}
}

// TestInspectGolden holds the inspect table of the embedded corpus (at the width of a pipe or
// CI log, whatever $COLUMNS says).
func TestInspectGolden(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"corpus", "inspect"}, &IOStreams{Out: &out, ErrOut: &errOut, OutWidth: results.DefaultWidth}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	golden(t, "inspect.txt", out.Bytes())
}

// TestInspectFitsTheWidth: the inspect table fits the terminal as replay's do, naming Chatbox
// sessions by their short id, with the picture counts that are not zero in one cell; --json
// keeps the full ids and every count.
func TestInspectFitsTheWidth(t *testing.T) {
	for _, width := range []int{100, 120, 160} {
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), []string{"corpus", "inspect"}, &IOStreams{Out: &out, ErrOut: &errOut, OutWidth: width}); code != ExitOK {
			t.Fatalf("width %d: exit %d: %s", width, code, errOut.String())
		}
		for i, line := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line %d has %d characters: %s", width, i+1, n, line)
			}
		}
		text := out.String()
		if strings.Contains(text, "1ecb-47ec-b68b-046875d62394") || !strings.Contains(text, "a7a6d3b2") {
			t.Errorf("width %d: the Chatbox session ids are not shortened:\n%s", width, text)
		}
		if !strings.Contains(text, "MCP 3,") || (width == 160 && !strings.Contains(text, "MCP 3, base64 runs 1")) || !strings.Contains(text, "2,091,659") {
			t.Errorf("width %d: the counts of mcp-stdio-2025-06-18.jsonl or the bytes of the Chatbox session are missing:\n%s", width, text)
		}
	}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"corpus", "inspect", "--json"}, &IOStreams{Out: &out, ErrOut: &errOut, OutWidth: 100}); code != ExitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{"a7a6d3b2-1ecb-47ec-b68b-046875d62394", `"structured_pictures": 3`, `"unavailable_references": 2`} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("--json lacks %s", s)
		}
	}
}

// TestInspectRealSamples reads the recordings written by real software (copies in
// corpora/testdata/mcp): the ones with tool calls give conversations, the ones without are
// skipped with a clear note, and nothing is a problem.
func TestInspectRealSamples(t *testing.T) {
	var out, errOut bytes.Buffer
	dir := filepath.Join("..", "..", "corpora", "testdata", "mcp")
	if code := Run(context.Background(), []string{"corpus", "inspect", dir}, &IOStreams{Out: &out, ErrOut: &errOut}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, f := range []string{"goose-mcp-replay-server-everything.txt", "goose-mcp-replay-server-everything-2026.1.14.txt", "inspector-v2-network-logging-modern.json"} {
		if !bytes.Contains(out.Bytes(), []byte(f)) {
			t.Errorf("no conversation listed from %s", f)
		}
	}
	for _, f := range []string{"claude-desktop-mcp-log-2026-summary-format.issue-excerpt.log", "claude-desktop-mcp-server-playwright.issue-excerpt.log",
		"claude-desktop-mcp-server-rebe.issue-excerpt.log", "inspector-v2-history-everything-server.json"} {
		if !bytes.Contains(errOut.Bytes(), []byte(f+" holds no conversation to replay")) {
			t.Errorf("no note that %s holds no conversation; stderr:\n%s", f, errOut.String())
		}
	}
}
