package cli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/measure/tokenize"
	"github.com/strata-eval/strata-eval/results"
)

const samplesDir = "../../corpora/samples"

// sampleRecordings are the recordings of the sample corpus (the sidecar files left out).
func sampleRecordings(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(samplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n != "manifest.json" && n != "expectations.json" {
			out = append(out, filepath.Join(samplesDir, n))
		}
	}
	return out
}

// TestCountAgreesWithReplay: for every recording of the sample corpus and every built-in arm,
// `count --arm before,after,agent FILE` gives each request the text tokens, image rows, prompt tokens and
// verdict that `replay` reports for it in that arm.
func TestCountAgreesWithReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("counts the sample corpus file by file")
	}
	r, _ := replayJSON(t, samplesDir)
	byID := map[string]results.Case{}
	for _, c := range r.Cases {
		byID[c.ID] = c
	}
	counted := 0
	for _, file := range sampleRecordings(t) {
		code, out, errOut := runCLI(t, "count", "--format", "json", "--arm", "before,after,agent", file)
		if code != ExitOK {
			t.Fatalf("count %s: exit %d\n%s", file, code, errOut)
		}
		var rows []countRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("count %s: %v\n%s", file, err, out)
		}
		if len(rows) == 0 {
			t.Errorf("count %s: no request counted", file)
		}
		for _, row := range rows {
			c, ok := byID[row.Case]
			if !ok {
				t.Errorf("count %s: request %s is not a case of replay", file, row.Case)
				continue
			}
			for _, a := range c.Arms {
				if a.Arm != row.Arm {
					continue
				}
				counted++
				got := fmt.Sprint(row.TextTokens, row.ImageRows, row.PromptTokens, row.Fits, row.Messages)
				want := fmt.Sprint(a.TextTokens, a.ImageRows, a.PromptTokens, a.Fits, c.Messages)
				if got != want {
					t.Errorf("%s arm %s: count says %s, replay %s (text tokens, image rows, prompt tokens, fits, messages)", row.Case, row.Arm, got, want)
				}
			}
		}
	}
	if counted != 3*len(r.Cases) {
		t.Errorf("compared %d requests, want every case in every arm (%d)", counted, 3*len(r.Cases))
	}
}

// TestCountStdinAndText: `count -` reads the request from stdin with the figures of the file;
// a plain text is counted with the tokenizer, and as a user message through the template.
func TestCountStdinAndText(t *testing.T) {
	file := filepath.Join(samplesDir, "openai-chat-chatbox-screenshot.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, fromFile, _ := runCLI(t, "count", "--format", "json", "--arm", "after", file)
	code, fromStdin, errOut := runCLIIn(t, string(data), "count", "--format", "json", "--arm", "after", "-")
	if code != ExitOK {
		t.Fatalf("count -: exit %d\n%s", code, errOut)
	}
	var a, b []countRow
	if json.Unmarshal([]byte(fromFile), &a) != nil || json.Unmarshal([]byte(fromStdin), &b) != nil || len(a) != 1 || len(b) != 1 {
		t.Fatalf("count output:\n%s\n%s", fromFile, fromStdin)
	}
	if b[0].Case != "stdin#0@6" || a[0].PromptTokens != b[0].PromptTokens || b[0].ImageRows != 1002 {
		t.Errorf("stdin %+v, file %+v", b[0], a[0])
	}

	text := "The screenshot shows a terminal with a failing test.\n"
	code, out, errOut := runCLIIn(t, text, "count", "--format", "json", "-")
	if code != ExitOK {
		t.Fatalf("count - (text): exit %d\n%s", code, errOut)
	}
	var tc textCount
	if err := json.Unmarshal([]byte(out), &tc); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.LoadTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	if tc.Tokens != tok.Count(text) || tc.Tokens == 0 || tc.AsUserMessage <= tc.Tokens || tc.Template != "qwen" {
		t.Errorf("text count %+v (tokenizer alone: %d)", tc, tok.Count(text))
	}
	// a recording counted as text with --text: its characters are tokens, not a request
	code, out, _ = runCLI(t, "count", "--text", file)
	if code != ExitOK || !strings.Contains(out, "2,040,") {
		t.Errorf("count --text: exit %d\n%s", code, out)
	}
}

// TestReplayStdin: `replay -` reads a recording from stdin and measures it as the file; the
// report's inputs name it stdin with the digest of what was read.
func TestReplayStdin(t *testing.T) {
	file := filepath.Join(samplesDir, "openai-chat-chatbox-screenshot.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLIIn(t, string(data), "replay", "--format", "json", "-")
	if code != ExitOK {
		t.Fatalf("replay -: exit %d\n%s", code, errOut)
	}
	var fromStdin results.Report
	if err := json.Unmarshal([]byte(out), &fromStdin); err != nil {
		t.Fatal(err)
	}
	fromFile, _ := replayJSON(t, file)
	if len(fromStdin.Cases) != 1 || fromStdin.Cases[0].ID != "stdin#0@6" {
		t.Fatalf("cases %+v", fromStdin.Cases)
	}
	for i, s := range fromFile.Summary {
		if got := fromStdin.Summary[i]; got.PromptTokens != s.PromptTokens || got.ImageRows != s.ImageRows || got.Refused != s.Refused {
			t.Errorf("arm %s: stdin %+v, file %+v", s.Arm, got, s)
		}
	}
	in := fromStdin.Config.Inputs
	if len(in) != 1 || in[0].Path != "stdin" || in[0].Bytes != int64(len(data)) || in[0].BLAKE3 != fromFile.Config.Inputs[0].BLAKE3 {
		t.Errorf("inputs %+v, want stdin with the file's digest %+v", in, fromFile.Config.Inputs)
	}
	if sum := blake3.Sum256(data); fromFile.Config.Inputs[0].BLAKE3 != hex.EncodeToString(sum[:]) || fromFile.Config.Inputs[0].Bytes != int64(len(data)) {
		t.Errorf("the file's digest %+v, want %x of %d bytes", fromFile.Config.Inputs[0], sum, len(data))
	}
	if code, _, errOut := runCLI(t, "replay", "-", "-"); code != ExitUsage {
		t.Errorf("replay - -: exit %d, want %d\n%s", code, ExitUsage, errOut)
	}
}

// TestRowsAgreesWithReplay: for every picture replay measured, `rows WxH --vision FAMILY` gives
// the rows and markers replay recorded; a picture file costs what its size costs.
func TestRowsAgreesWithReplay(t *testing.T) {
	r, _ := replayJSON(t)
	type key struct {
		family string
		w, h   int
	}
	want := map[key]results.Picture{}
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			for _, p := range a.Pictures {
				if p.Rows > 0 && p.Width > 0 {
					want[key{p.Family, p.Width, p.Height}] = p
				}
			}
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d measured picture sizes in the sample corpus", len(want))
	}
	for k, p := range want {
		code, out, errOut := runCLI(t, "rows", "--format", "json", "--vision", k.family, fmt.Sprintf("%dx%d", k.w, k.h))
		if code != ExitOK {
			t.Fatalf("rows %dx%d: exit %d\n%s", k.w, k.h, code, errOut)
		}
		var rows []rowsRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("rows output %q: %v", out, err)
		}
		if rows[0].Rows.Rows != p.Rows || rows[0].Rows.Markers != p.Markers {
			t.Errorf("%s %d×%d: rows says %d rows + %d markers, replay %d + %d", k.family, k.w, k.h, rows[0].Rows.Rows, rows[0].Rows.Markers, p.Rows, p.Markers)
		}
	}

	png := filepath.Join(t.TempDir(), "screenshot.png")
	if err := os.WriteFile(png, testimages.PNG(1280, 800, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, bySize, _ := runCLI(t, "rows", "--format", "json", "1280x800")
	code, byFile, errOut := runCLI(t, "rows", "--format", "json", png)
	if code != ExitOK {
		t.Fatalf("rows %s: exit %d\n%s", png, code, errOut)
	}
	var a, b []rowsRow
	if json.Unmarshal([]byte(bySize), &a) != nil || json.Unmarshal([]byte(byFile), &b) != nil || len(a) != 1 || len(b) != 1 || a[0].Rows != b[0].Rows || b[0].Rows.Total != 1002 {
		t.Errorf("by size %s\nby file %s", bySize, byFile)
	}
	if code, _, _ := runCLI(t, "rows", "--vision", "all", "640x400"); code != ExitOK {
		t.Errorf("rows --vision all: exit %d", code)
	}
	if code, _, _ := runCLI(t, "rows", "nonsense"); code != ExitUsage {
		t.Errorf("rows nonsense: exit %d, want %d", code, ExitUsage)
	}
}
