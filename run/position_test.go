package run

import (
	"context"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/tinyproj"
)

// TestPicturesRowsWherePlaced: with a projector whose rows depend on where the picture sits
// (DeepSeek-V4), the rows results.json gives each picture the model sees are those the count
// gave it at its position, so that they add up to the arm's image rows.
func TestPicturesRowsWherePlaced(t *testing.T) {
	proj, err := tinyproj.WriteNamed(t.TempDir(), "deepseek-v4-vision")
	if err != nil {
		t.Fatal(err)
	}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", MMProj: proj})
	if err != nil {
		t.Fatal(err)
	}
	arms, err := SelectArms("", []string{"before", "after"})
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	paths := []string{"../corpora/samples/openai-chat-tiny-png.json", "../corpora/samples/openai-chat-aisdk5-calltoolresult.json"}
	rep, err := Run(context.Background(), Config{Paths: paths, Workers: 1, Arms: arms, Offline: off, Tokenizer: "o200k_base", Notes: &notes})
	if err != nil {
		t.Fatalf("%v\n%s", err, notes.String())
	}
	checked := 0
	for _, c := range rep.Cases {
		for _, a := range c.Arms {
			seen, rows := 0, 0
			for _, p := range a.Pictures {
				if p.SeenByModel {
					seen++
					rows += p.PromptRows()
				}
			}
			if seen == 0 {
				continue
			}
			checked++
			if rows != a.ImageRows {
				t.Errorf("case %s arm %s: its %d picture(s) seen add up to %d rows, the arm counts %d", c.ID, a.Arm, seen, rows, a.ImageRows)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no arm with a picture the model sees")
	}
}
