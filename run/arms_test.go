package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// replayArms replays one sample recording through the arms of a config file and returns the
// report.
func replayArms(t *testing.T, config string, names []string, paths ...string) (*results.Report, error) {
	t.Helper()
	arms, err := SelectArms(config, names)
	if err != nil {
		t.Fatal(err)
	}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), Config{Paths: paths, Workers: 1, Arms: arms, Offline: off, Tokenizer: "o200k_base"})
}

// TestGateArmsFollowTheCatalog checks that a gate arm naming a catalog asks it: a model the
// catalog says cannot see gets the text lane, a model it does not know too ("not known to
// see"), a model it declares vision-capable the native lane; only the built-in agent arm, which
// names no route, stands for the replayed vision model.
func TestGateArmsFollowTheCatalog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("catalog.yaml", `providers:
  local:
    models:
      blind-model: {supports_vision: false}
      seeing-model: {supports_vision: true}
`)
	config := write("arms.yaml", `arms:
  - {name: blind, client: gate, provider: local, model: blind-model, catalog: catalog.yaml}
  - {name: seeing, client: gate, provider: local, model: seeing-model, catalog: catalog.yaml}
  - {name: unknown, client: gate, provider: local, model: other-model, catalog: catalog.yaml}
  - {name: declared, client: gate, provider: local, model: other-model, supports_vision: false}
`)
	arms, err := SelectArms(config, []string{"agent", "blind", "seeing", "unknown", "declared"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arms {
		if a.Name != "agent" && a.Name != "declared" && a.Settings.SupportsVision != nil {
			t.Errorf("arm %s: supports_vision forced to %v; the catalog must decide", a.Name, a.Settings.SupportsVision)
		}
	}
	rep, err := replayArms(t, config, []string{"agent", "blind", "seeing", "unknown", "declared"}, "../corpora/samples/mcp-stdio-2025-11-25.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 {
		t.Fatalf("%d cases, want 1", len(rep.Cases))
	}
	want := map[string]struct {
		lane string
		sees bool
	}{
		"agent": {replay.LaneNative, true}, "blind": {replay.LaneText, false}, "seeing": {replay.LaneNative, true},
		"unknown": {replay.LaneText, false}, "declared": {replay.LaneText, false},
	}
	for _, a := range rep.Cases[0].Arms {
		w := want[a.Arm]
		if a.Gate == nil || a.Gate.Lane != w.lane {
			t.Errorf("arm %s: gate %+v, want lane %s", a.Arm, a.Gate, w.lane)
		}
		if a.SeesPicture != w.sees {
			t.Errorf("arm %s: sees a picture %v, want %v", a.Arm, a.SeesPicture, w.sees)
		}
	}
}

// TestMissingPathIsAProblem checks that a path that does not exist is reported as a located
// problem (exit 3 in the CLI) and that the other inputs are replayed all the same.
func TestMissingPathIsAProblem(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-file.json")
	rep, err := replayArms(t, "", []string{"before", "after"}, missing, "../corpora/samples/mcp-stdio-2025-11-25.jsonl")
	var inputs *InputsError
	if !errors.As(err, &inputs) {
		t.Fatalf("err = %v, want an *InputsError", err)
	}
	if rep == nil || len(rep.Cases) != 1 {
		t.Fatalf("report %+v: want the other input's case", rep)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Where != missing {
		t.Fatalf("problems %+v, want one at %s", rep.Problems, missing)
	}
}

// TestProgressCountsTheInputBytes: every report carries the size of the inputs; the bytes read
// grow with the files read and reach the total.
func TestProgressCountsTheInputBytes(t *testing.T) {
	paths := []string{"../corpora/samples/mcp-stdio-2025-11-25.jsonl", "../corpora/samples/openai-chat-tiny-png.json", "../corpora/samples/openai-responses-gif.json"}
	var total int64
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
	}
	arms, off := afterArmOffline(t)
	var reports []Progress
	_, err := Run(context.Background(), Config{Paths: paths, Workers: 1, Arms: arms, Offline: off,
		Progress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 3 {
		t.Fatalf("%d progress reports, want one per case (3)", len(reports))
	}
	for i, p := range reports {
		if p.TotalBytes != total || p.Done != i+1 || p.ReadBytes > total || (i > 0 && p.ReadBytes < reports[i-1].ReadBytes) {
			t.Errorf("report %d: %+v (total %d)", i, p, total)
		}
	}
}

// TestModelForCatalogs: a gate arm that names a catalog but no model looks up the http engine's
// --model; an arm's own model, and an arm without a catalog, are left as they are.
func TestModelForCatalogs(t *testing.T) {
	arms, err := SelectArms("../examples/catalog-arms.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	arms = append(arms, replay.Arm{Name: "bare", Settings: replay.Settings{Client: replay.ClientGate, Provider: "local", Catalog: arms[len(arms)-1].Settings.Catalog}})
	ModelForCatalogs(arms, "qwen3-vl-8b")
	for _, a := range arms {
		want := map[string]string{"agent-sees": "qwen3-vl-8b", "agent-blind": "qwen3-8b", "agent-unlisted": "qwen3-vl-32b", "bare": "qwen3-vl-8b"}[a.Name]
		if a.Settings.Model != want {
			t.Errorf("arm %s: model %q, want %q", a.Name, a.Settings.Model, want)
		}
	}
	if d := replay.Decide(arms[len(arms)-1].Settings, mustCatalog(t, arms[len(arms)-1].Settings.Catalog)); d.Lane != replay.LaneNative {
		t.Errorf("the bare arm with --model qwen3-vl-8b: lane %s (%s), want native", d.Lane, d.Reason)
	}
}

func mustCatalog(t *testing.T, path string) *replay.Catalog {
	t.Helper()
	c, err := replay.LoadCatalog(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestProgressEmbeddedCorpusHasATotal: the embedded corpus's size is known, so its progress is a
// bar with a total (not "1/-"), read to the end.
func TestProgressEmbeddedCorpusHasATotal(t *testing.T) {
	arms, off := afterArmOffline(t)
	var last Progress
	if _, err := Run(context.Background(), Config{Workers: 1, Arms: arms, Offline: off, Progress: func(p Progress) { last = p }}); err != nil {
		t.Fatal(err)
	}
	if last.TotalBytes < 1_000_000 || last.ReadBytes > last.TotalBytes || last.Done == 0 {
		t.Errorf("last progress report %+v: want the embedded corpus's size (over 1 MB) as the total", last)
	}
}

// afterArmOffline is the after arm and the default offline counter.
func afterArmOffline(t *testing.T) ([]replay.Arm, *engine.Offline) {
	t.Helper()
	arms, err := SelectArms("", []string{"after"})
	if err != nil {
		t.Fatal(err)
	}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	return arms, off
}
