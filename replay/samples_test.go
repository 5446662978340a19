package replay_test

import (
	"context"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/replay"
)

// textOf joins the text parts of a message's parts, in order.
func textOf(parts []corpora.Part) []string {
	var out []string
	for _, p := range parts {
		if p.Kind == corpora.PartText {
			out = append(out, p.Text)
		}
	}
	return out
}

// TestSamplesUntouched replays every request of every sample through the before and after
// arms: every user and assistant message comes out byte-identical, and so does the text of
// every tool message in which no picture was found. Lifting the lifted text again changes
// nothing.
func TestSamplesUntouched(t *testing.T) {
	var col corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &col); err != nil {
		t.Fatal(err)
	}
	if len(col.Conversations) == 0 {
		t.Fatal("no sample conversations")
	}
	arms := replay.BuiltinArms()[:2] // before, after
	checked := 0
	for _, conv := range col.Conversations {
		for _, req := range conv.Requests() {
			for _, arm := range arms {
				res, err := arm.Apply(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %s: %v", req.ID(), arm.Name, err)
				}
				if len(res.Messages) != len(req.Messages) {
					t.Fatalf("%s %s: %d messages out of %d", req.ID(), arm.Name, len(res.Messages), len(req.Messages))
				}
				pictured := map[int]bool{}
				for _, p := range res.Pictures {
					pictured[p.MessageIndex] = true
				}
				for i, in := range req.Messages {
					out := res.Messages[i]
					switch in.Role {
					case corpora.RoleUser, corpora.RoleAssistant, corpora.RoleSystem:
						a, b := textOf(in.Parts), textOf(out.Parts)
						if len(a) != len(b) {
							t.Errorf("%s %s: message %d (%s) has %d text parts, was %d", req.ID(), arm.Name, i, in.Role, len(b), len(a))
							continue
						}
						for k := range a {
							if a[k] != b[k] {
								t.Errorf("%s %s: message %d (%s) text part %d changed", req.ID(), arm.Name, i, in.Role, k)
							}
						}
						checked++
					case corpora.RoleTool:
						if pictured[i] || len(in.Parts) != 1 || in.Parts[0].ToolResult == nil || !in.Parts[0].ToolResult.IsText {
							continue
						}
						got := textOf(out.Parts)
						if len(got) != 1 || got[0] != in.Parts[0].ToolResult.Text {
							t.Errorf("%s %s: tool message %d without a picture changed", req.ID(), arm.Name, i)
						}
						checked++
					}
				}
				if arm.Name != "after" {
					continue
				}
				for i, out := range res.Messages {
					if out.Role != corpora.RoleTool {
						continue
					}
					for _, text := range textOf(out.Parts) {
						again, err := replay.NewLifter(arm.Settings).Lift(text)
						if err != nil {
							t.Fatal(err)
						}
						if again.Text != text || len(again.Pictures) != 0 {
							t.Errorf("%s: tool message %d: lifting the lifted text again changed it", req.ID(), i)
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}
