package run

import (
	"context"
	"reflect"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
)

// describedEngine is an engine run has no type of: it counts with an offline counter of its own
// (another tokenizer, so that its counts are not the computed ones) and says what it runs only
// through the optional capabilities.
type describedEngine struct{ *engine.Offline }

func (describedEngine) Name() string  { return "described" }
func (describedEngine) Model() string { return "model-7b.gguf" }
func (describedEngine) API() string   { return "wire-v2" }
func (describedEngine) Endpoints() []string {
	return []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}
}
func (describedEngine) Describe() engine.Description {
	return engine.Description{Server: "its own runtime", Context: 12345, Blind: "no pixels here"}
}

// TestEngineCapabilitiesReachTheReport: an engine of a type run does not know reports its model,
// protocol, servers, context and description in results.json by having the capability methods;
// a new engine whose figures go missing from the report fails here.
func TestEngineCapabilitiesReachTheReport(t *testing.T) {
	arms, off := afterArmOffline(t)
	own, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "cl100k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	e := describedEngine{own}
	rep, err := Run(context.Background(), Config{Paths: []string{"../corpora/samples/mcp-stdio-2025-11-25.jsonl"}, Workers: 1,
		Arms: arms, Offline: off, Engine: e, Tokenizer: "o200k_base", Tolerance: 0.05,
		Flags: map[string]string{"endpoint": "[http://user:secret@127.0.0.1:1]"}})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Config
	if c.Engine != "described" || c.Model != e.Model() || c.API != e.API() || !reflect.DeepEqual(c.Endpoints, e.Endpoints()) {
		t.Errorf("config engine %q model %q api %q endpoints %q: the engine's capabilities are lost", c.Engine, c.Model, c.API, c.Endpoints)
	}
	if c.Context != 12345 || c.Server != "its own runtime" {
		t.Errorf("config context %d server %q: want the engine's description", c.Context, c.Server)
	}
	if c.Flags["endpoint"] != "[http://127.0.0.1:1,http://127.0.0.1:2]" || c.Tolerance != 0.05 {
		t.Errorf("flags endpoint %q, tolerance %v: want the engine's endpoints and the tolerance", c.Flags["endpoint"], c.Tolerance)
	}
	compared, blind := 0, 0
	for _, cs := range rep.Cases {
		for _, a := range cs.Arms {
			if a.CountDiff != nil && a.Computed != nil {
				compared++
			}
			for _, p := range a.Pictures {
				if p.Reason == "no pixels here" {
					blind++
				}
			}
		}
	}
	if compared == 0 {
		t.Error("no arm compared with the computed counts: the engine is not live")
	}
	if blind == 0 {
		t.Error("no picture carries the engine's reason for not seeing it")
	}
}
