package budget

import (
	"math"
	"testing"

	"github.com/strata-eval/strata-eval/records"
	"github.com/strata-eval/strata-eval/results"
)

// fixture is a two-case, two-arm replay report and a bench report.
func fixture(afterTokens int) []*results.Results {
	pic := func(o records.Outcome) results.Picture {
		return results.Picture{PictureRecord: records.PictureRecord{Outcome: o, Type: "image/png"}}
	}
	rep := &results.Report{Schema: results.Schema,
		Summary: []results.ArmSummary{{Arm: "before"}, {Arm: "after", Reduction: 0.75}},
		Cases: []results.Case{
			{ID: "a", Format: "openai-chat", Arms: []results.ArmCase{
				{Arm: "before", PromptTokens: 300000, Fits: false, Pictures: []results.Picture{pic(records.OutcomeText)}},
				{Arm: "after", PromptTokens: afterTokens, ImageRows: 1000, Fits: true, SeesPicture: true, Pictures: []results.Picture{pic(records.OutcomeLifted)}},
			}},
			{ID: "b", Format: "mcp", Arms: []results.ArmCase{
				{Arm: "before", PromptTokens: 100, Fits: true},
				{Arm: "after", PromptTokens: 100, Fits: true},
			}},
		},
		Timings: results.Timings{Cases: []results.CaseTiming{
			{Case: "a", Arm: "after", ScanNanos: []int64{1000, 2000, 3000, 4000}},
			{Case: "b", Arm: "after", ScanNanos: []int64{5000}},
		}},
	}
	bench := &results.BenchReport{Schema: results.BenchSchema, Payloads: []results.BenchPayload{{
		Name: "png_2MB", Bytes: 2_000_000, Pictures: 1,
		Runs: []results.BenchRun{{N: 1, NsPerOp: 3e6}, {N: 1, NsPerOp: 2e6}, {N: 1, NsPerOp: 4e6}},
		Read: []results.BenchRun{{N: 1, NsPerOp: 1e6}, {N: 1, NsPerOp: 1e6}, {N: 1, NsPerOp: 1e6}},
	}}}
	return []*results.Results{
		{Report: rep, Correct: results.Correctness{"a": {"after": true}, "b": {"after": false}}},
		{Bench: bench},
	}
}

func TestEvaluate(t *testing.T) {
	src := `budgets:
  prompt_tokens{arm:before}: sum == 300100
  prompt_tokens{arm:after,format:mcp}: max <= 100
  refused{arm:before}: [sum == 1, rate == 50%]
  pictures{arm:after,outcome:lifted}: sum == 1
  pictures{payload:png_2MB}: sum == 1
  reduction{arm:after}: value >= 0.75
  reduction: value > 0
  scan_time{arm:after}: [p(50) == 3us, max < 5us, count == 5]
  scan_time{payload:png_2MB}: med == 3ms
  scan_over_read{payload:png_2MB}: p(50) < 4
  correct{arm:after}: rate >= 0.5
  correct{arm:before}: rate >= 0.5
  prompt_tokens{arm:after}: delta <= 0
  image_rows: delta(max) == 0
`
	f, err := Parse("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	v := Evaluate(f, Inputs{Names: []string{"new"}, Results: fixture(1300), BaselineNames: []string{"old"}, Baseline: fixture(1200)})
	want := []struct {
		observed float64 // NaN: not computed
		passed   bool
		note     string
	}{
		{300100, true, ""},
		{100, true, ""},
		{1, true, ""},
		{0.5, true, ""},
		{1, true, ""},
		{1, true, ""},
		{0.75, true, ""},
		{math.NaN(), false, "value needs exactly one sample and there are 2; use sum, avg, min or max"},
		{3000, true, ""},
		{5000, false, ""},
		{5, true, ""},
		{3e6, true, ""},
		{3, true, ""},
		{0.5, true, ""},
		{math.NaN(), false, "no samples match the selector"},
		{100, false, ""},
		{0, true, ""},
	}
	if len(v.Checks) != len(want) {
		t.Fatalf("%d checks, want %d", len(v.Checks), len(want))
	}
	crossed := 0
	for i, w := range want {
		o := v.Checks[i]
		if !w.passed {
			crossed++
		}
		got := math.NaN()
		if o.Observed != nil {
			got = *o.Observed
		}
		if o.Passed != w.passed || o.Note != w.note || (math.IsNaN(w.observed) != math.IsNaN(got)) || (!math.IsNaN(got) && math.Abs(got-w.observed) > 1e-9) {
			t.Errorf("check %d %s: observed %v passed %v note %q; want %v %v %q", i, o.Budget, got, o.Passed, o.Note, w.observed, w.passed, w.note)
		}
	}
	if v.Passed || v.Crossed != crossed {
		t.Errorf("verdict passed=%v crossed=%d, want false %d", v.Passed, v.Crossed, crossed)
	}
	if d := v.Checks[15]; d.Base == nil || *d.Base != 1300 || *d.Current != 1400 {
		t.Errorf("delta sides: %+v", d)
	}
}

func TestCompareOperators(t *testing.T) {
	for _, tt := range []struct {
		v, t float64
		op   string
		want bool
	}{
		{1, 1, "==", true}, {0.1 + 0.2, 0.3, "==", true}, {1, 2, "<", true}, {2, 2, "<", false},
		{2, 2, "<=", true}, {3, 2, ">", true}, {2, 2, ">=", true}, {1, 2, "!=", true}, {2, 2, "!=", false},
	} {
		if got := compare(tt.v, tt.op, tt.t); got != tt.want {
			t.Errorf("%v %s %v = %v", tt.v, tt.op, tt.t, got)
		}
	}
}
