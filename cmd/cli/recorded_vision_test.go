package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// recordedSamples are recordings naming a model with a hosted family (gpt-4.1, a Claude
// Sonnet 4.5), one naming an id that implies none (a Chatbox qwen model) and one naming none
// (an MCP transcript).
var recordedSamples = []string{"../../corpora/samples/openai-responses-gif.json", "../../corpora/samples/anthropic-tool-result-webp.json",
	"../../corpora/samples/openai-chat-chatbox-screenshot.json", "../../corpora/samples/mcp-stdio-2025-11-25.jsonl"}

// TestReplayVisionRecorded: with --vision recorded every picture a model sees costs the rows of
// the hosted family its case's recorded model id implies (imagerows.FamilyForModel), the default
// family's where the id implies none or no id is recorded; results.json and the header name
// each model with its family and rule.
func TestReplayVisionRecorded(t *testing.T) {
	rep, _ := replayJSON(t, append([]string{"--vision", imagerows.RecordedVision}, recordedSamples...)...)
	if want := "recorded (else " + imagerows.DefaultFamily + ")"; rep.Config.Vision != want {
		t.Errorf("config vision %q, want %q", rep.Config.Vision, want)
	}
	fallback, err := imagerows.FamilyByName(imagerows.DefaultFamily)
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]int{} // pictures seen by family
	for _, c := range rep.Cases {
		fam, hosted := imagerows.FamilyForModel(c.Model)
		if !hosted {
			fam = fallback
		}
		for _, a := range c.Arms {
			sizes := seenSizes(a)
			for _, p := range a.Pictures {
				if !p.SeenByModel {
					continue
				}
				w, h := sizes[0][0], sizes[0][1]
				sizes = sizes[1:]
				want, err := imagerows.ImageRows(fam, w, h, imagerows.RowOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if p.Family != fam.Name || p.Rows != want.Rows || p.Markers != want.Markers {
					t.Errorf("case %s (model %q), arm %s, %d×%d: %s %d rows + %d markers, want %s %d + %d",
						c.ID, c.Model, a.Arm, w, h, p.Family, p.Rows, p.Markers, fam.Name, want.Rows, want.Markers)
				}
				counted[p.Family]++
			}
		}
	}
	for _, f := range []string{"openai/gpt-4.1-high", "anthropic/claude-legacy", imagerows.DefaultFamily} {
		if counted[f] == 0 {
			t.Errorf("no picture counted with %s (counted: %v)", f, counted)
		}
	}
	var models []string
	for _, m := range rep.Config.VisionModels {
		f, _ := imagerows.FamilyByName(m.Family)
		if m.Rule != f.Describe() {
			t.Errorf("model %s: rule %q, want %q", m.Model, m.Rule, f.Describe())
		}
		models = append(models, m.Model+" "+m.Family)
	}
	want := "claude-sonnet-4-5-20250929 anthropic/claude-legacy,gpt-4.1 openai/gpt-4.1-high,qwen3.8-flash-next " + imagerows.DefaultFamily
	if got := strings.Join(models, ","); got != want {
		t.Errorf("config vision_models %s, want %s", got, want)
	}

	code, out, errOut := runCLI(t, append([]string{"replay", "--summary", "--vision", imagerows.RecordedVision}, recordedSamples...)...)
	if code != ExitOK {
		t.Fatalf("replay: exit %d\n%s", code, errOut)
	}
	for _, line := range []string{"vision recorded (else " + imagerows.DefaultFamily + ")", "\nmodel gpt-4.1 → openai/gpt-4.1-high (",
		"\nmodel claude-sonnet-4-5-20250929 → anthropic/claude-legacy (", "\nmodel qwen3.8-flash-next → " + imagerows.DefaultFamily} {
		if !strings.Contains(out, line) {
			t.Errorf("the header lacks %q:\n%s", line, out)
		}
	}
}

// TestCountVisionRecorded: count takes the same choice, so a request's image rows are those
// replay gives the same arm.
func TestCountVisionRecorded(t *testing.T) {
	sample := recordedSamples[0]
	rep, _ := replayJSON(t, "--vision", imagerows.RecordedVision, "--arms", "before", sample)
	code, out, errOut := runCLI(t, "count", "--vision", imagerows.RecordedVision, sample)
	if code != ExitOK {
		t.Fatalf("count: exit %d\n%s", code, errOut)
	}
	if len(rep.Cases) != 1 || len(rep.Cases[0].Arms) != 1 || rep.Cases[0].Arms[0].ImageRows == 0 {
		t.Fatalf("replay gave no picture rows: %+v", rep.Cases)
	}
	if !strings.Contains(out, "model gpt-4.1 → openai/gpt-4.1-high (") {
		t.Errorf("count's header does not name gpt-4.1's family:\n%s", out)
	}
	code, out, errOut = runCLI(t, "count", "--format", "json", "--vision", imagerows.RecordedVision, sample)
	if code != ExitOK {
		t.Fatalf("count --format json: exit %d\n%s", code, errOut)
	}
	var rows []countRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if want := rep.Cases[0].Arms[0].ImageRows; len(rows) != 1 || rows[0].ImageRows != want {
		t.Errorf("count: %+v, want one request of %d image rows, as replay", rows, want)
	}
}

// TestVisionRecordedWithMMProj: --vision recorded and --mmproj name two ways of choosing the
// family: a usage error (exit 2) of one line, in replay and count.
func TestVisionRecordedWithMMProj(t *testing.T) {
	for _, cmd := range []string{"replay", "count"} {
		code, _, errOut := runCLI(t, cmd, "--vision", imagerows.RecordedVision, "--mmproj", "proj.gguf", recordedSamples[0])
		if code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--mmproj") {
			t.Errorf("%s --vision recorded --mmproj: exit %d, want %d with one line naming --mmproj:\n%s", cmd, code, ExitUsage, errOut)
		}
	}
}
