package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLIIn runs strata-eval in-process with stdin and returns its exit code, stdout and stderr.
func runCLIIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
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

// TestMissingPathExitsThree: a path that does not exist is a located problem; the other inputs
// are replayed and reported, and the exit code is 3, as docs/exit-codes.md says.
func TestMissingPathExitsThree(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.json")
	sample := "../../corpora/samples/openai-chat-chatbox-screenshot.json"
	code, out, errOut := runCLI(t, "replay", "--summary", missing, sample)
	if code != ExitInputs {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInputs, errOut)
	}
	if !strings.Contains(out, "inputs that could not be read") || !strings.Contains(out, missing) {
		t.Errorf("stdout does not name the missing path:\n%s", out)
	}
	if !strings.Contains(out, "1,002") { // the sample's picture rows: the other input was replayed
		t.Errorf("the other input was not replayed:\n%s", out)
	}
	code, out, errOut = runCLI(t, "corpus", "inspect", missing, sample)
	if code != ExitInputs || !strings.Contains(out, "openai-chat-chatbox-screenshot.json") {
		t.Errorf("corpus inspect: exit %d, want %d with the other input listed\n%s%s", code, ExitInputs, out, errOut)
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
