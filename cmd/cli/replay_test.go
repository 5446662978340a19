package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/results"
)

// TestReplayDeterministic: the same inputs and flags give the same results.json apart from
// the timings section (and the --out flag that names a different folder).
func TestReplayDeterministic(t *testing.T) {
	norm := func(r *results.Report) []byte {
		r.Timings = results.Timings{}
		delete(r.Config.Flags, "out")
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, _ := replayJSON(t, "-j", "2")
	b, _ := replayJSON(t, "-j", "1")
	delete(a.Config.Flags, "jobs")
	delete(b.Config.Flags, "jobs")
	if !bytes.Equal(norm(a), norm(b)) {
		t.Error("two replays of the sample corpus (-j 2 and -j 1) differ outside the timings")
	}
	if len(a.Cases) == 0 || len(a.Summary) != 3 || len(a.Thumbnails) == 0 {
		t.Fatalf("got %d cases, %d arms and %d thumbnails", len(a.Cases), len(a.Summary), len(a.Thumbnails))
	}
}

// TestReplayTurnsAll: every request of a conversation is a case; the picture re-sent with the
// history is lifted again, identically, in every later turn.
func TestReplayTurnsAll(t *testing.T) {
	r, _ := replayJSON(t, "--turns", "all", "--arms", "before,after", "../../corpora/samples/openai-chat-chatbox-screenshot.json")
	if len(r.Cases) < 2 {
		t.Fatalf("--turns all gave %d cases, want every request of the conversation", len(r.Cases))
	}
	var seen []results.Picture
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			if a.Arm != "after" {
				continue
			}
			for _, p := range a.Pictures {
				if p.Outcome == "lifted" {
					seen = append(seen, p)
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no picture lifted in any turn")
	}
	for _, p := range seen[1:] {
		if p.SHA256 != seen[0].SHA256 || p.Rows != seen[0].Rows || p.Width != seen[0].Width || p.Offset != seen[0].Offset {
			t.Errorf("turns lift the picture differently: %+v vs %+v", p.PictureRecord, seen[0].PictureRecord)
		}
	}
}

// TestCatalogReasonInEveryOutput: the example catalog of examples/ decides the lane of its gate
// arms, and why a picture took the text lane (the model and the catalog file named) reaches
// every output: the table, Markdown, CSV, JSON and the HTML report, not results.json alone.
func TestCatalogReasonInEveryOutput(t *testing.T) {
	const (
		unlisted = "local/qwen3-vl-32b is not known to see (not in the catalog " // then the catalog's path
		entry    = "no providers.local.models.qwen3-vl-32b"
		blind    = "local/qwen3-8b cannot see pictures"
	)
	dir := t.TempDir()
	args := []string{"replay", "--config", "../../examples/catalog-arms.yaml", "--arms", "agent-sees,agent-blind,agent-unlisted",
		"--out", dir, "../../corpora/samples/mcp-stdio-2025-11-25.jsonl"}
	for _, format := range []string{"table", "markdown", "csv", "json"} {
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), append(args, "--format", format), &IOStreams{Out: &out, ErrOut: &errOut, OutWidth: 1000}); code != ExitOK {
			t.Fatalf("--format %s: exit %d\n%s", format, code, errOut.String())
		}
		for _, want := range []string{unlisted + "../../examples/catalog.yaml", entry, blind} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("--format %s: stdout lacks %q:\n%s", format, want, out.String())
			}
		}
	}
	for _, name := range []string{"results.md", "results.csv", "results.json", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{entry, blind} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}

// TestUnknownFormatNamesTheFlag: a file whose format cannot be told is a problem (exit 3) whose
// message names the flag the command has, --input-format, in replay and in corpus inspect; the
// flag then reads the file.
func TestUnknownFormatNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("a note, not a recording\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay", notes}, {"corpus", "inspect", notes}} {
		code, out, errOut := runCLI(t, args...)
		if code != ExitInputs {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, ExitInputs, errOut)
		}
		out += errOut
		if !strings.Contains(out, "--input-format") || strings.Contains(out, "use --format") {
			t.Errorf("%v: the error does not name --input-format:\n%s", args, out)
		}
	}
	sample := "../../corpora/samples/openai-chat-tiny-png.json"
	for _, args := range [][]string{{"replay", "--input-format", "openai-chat", sample}, {"corpus", "inspect", "--input-format", "openai-chat", sample}} {
		if code, _, errOut := runCLI(t, args...); code != ExitOK {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
}

// TestEmbedTargetClampedInReplay: an arms file with embed_target_bytes: 1000 replays (exit 0)
// with the budget clamped to 65,536, which the results' config block shows.
func TestEmbedTargetClampedInReplay(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "arms.yaml")
	if err := os.WriteFile(config, []byte("arms:\n  - {name: small, client: gate, embed_target_bytes: 1000}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := replayJSON(t, "--config", config, "--arms", "small", "../../corpora/samples/chatbox-exported-data-2026-11-30.json")
	if got := r.Config.Arms[0].Settings.EmbedTargetBytes; got != 65536 {
		t.Errorf("embed_target_bytes in the report: %d, want 65536", got)
	}
	attached := 0
	for _, c := range r.Cases {
		for _, p := range c.Arms[0].Pictures {
			if p.Outcome != "attached" || p.Resized == nil || p.Resized.FromWidth != 1280 {
				continue
			}
			attached++
			// the 1280×800 screenshot does not fit 64 KiB as it is: it is made smaller (with the
			// default 256 KiB it keeps its size)
			if p.Resized.ToWidth >= 1280 {
				t.Errorf("attached picture not fitted to 65,536 bytes: %+v", p.Resized)
			}
		}
	}
	if attached == 0 {
		t.Error("the small arm attached no 1280×800 picture")
	}
}
