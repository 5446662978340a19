package results

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/records"
)

// mergeCase builds a case measured in two arms.
func mergeCase(id string, order, before, after int, errMsg string) Case {
	return Case{ID: id, File: "corpus/" + id + ".json", Order: order, Error: errMsg, Arms: []ArmCase{
		{Arm: "before", PromptTokens: before, TextTokens: before, Fits: before < 1000},
		{Arm: "after", PromptTokens: after, TextTokens: after - 100, ImageRows: 100, Fits: true, SeesPicture: true,
			Pictures: []Picture{{PictureRecord: records.PictureRecord{Outcome: records.Outcome("attached")}, Rows: 100}}},
	}}
}

// singleRun is the report of one run over every case, as replay writes it.
func singleRun(cases []Case, problems []Problem, shard string) *Report {
	arms := []records.Arm{{Name: "before"}, {Name: "after"}}
	r := &Report{Schema: Schema, Config: RunConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl", Context: 4096,
		Turns: "last", Arms: arms, Shard: shard, Flags: map[string]string{"shard": shard, "jobs": "2"},
		Inputs: []Input{{Path: "corpus", BLAKE3: "abc", Bytes: 1234}}}}
	r.Cases = cases
	r.Problems = problems
	for _, c := range cases {
		if c.Error != "" {
			r.Problems = append(r.Problems, Problem{Where: c.File, Message: caseProblem(c)})
		}
		for _, a := range []string{"before", "after"} {
			r.Timings.Cases = append(r.Timings.Cases, CaseTiming{Case: c.ID, Arm: a, ScanNanos: []int64{int64(c.Order + 1)}})
		}
	}
	r.Summary = Summarize(cases, []string{"before", "after"})
	r.Timings.Scan = SummarizeScans(r.Timings.Cases, map[string]int64{"before": int64(10 * len(cases)), "after": int64(10 * len(cases))}, []string{"before", "after"})
	r.Timings.InputBytes = 1234
	return r
}

func TestMergeEqualsSingleRun(t *testing.T) {
	all := []Case{
		mergeCase("a@2", 0, 500, 300, ""),
		mergeCase("b@4", 1, 1500, 400, ""),
		mergeCase("c@2", 2, 700, 0, "arm after: broken"),
		mergeCase("d@6", 3, 900, 350, ""),
		mergeCase("e@2", 4, 2500, 600, ""),
	}
	readProblem := Problem{Where: "corpus/bad.json:3", Message: "unexpected end of JSON"}
	single := singleRun(all, []Problem{readProblem}, "")
	tests := []struct {
		name   string
		shards [][]int // case indexes per shard
	}{
		{"one shard", [][]int{{0, 1, 2, 3, 4}}},
		{"two shards", [][]int{{1, 3}, {0, 2, 4}}},
		{"four shards, one empty", [][]int{{4, 0}, {}, {2}, {1, 3}}},
		{"reports given out of order", [][]int{{3}, {2, 4}, {0}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reports []*Report
			for i, idx := range tt.shards {
				var cs []Case
				for _, k := range idx {
					cs = append(cs, all[k])
				}
				shard := ""
				if len(tt.shards) > 1 {
					shard = strings.Join([]string{string(rune('0' + i)), string(rune('0' + len(tt.shards)))}, "/")
				}
				reports = append(reports, singleRun(cs, []Problem{readProblem}, shard))
			}
			got, err := Merge(reports)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Cases, single.Cases) {
				t.Errorf("cases differ:\n got %+v\nwant %+v", ids(got.Cases), ids(single.Cases))
			}
			if !reflect.DeepEqual(got.Summary, single.Summary) {
				t.Errorf("summary differs:\n got %+v\nwant %+v", got.Summary, single.Summary)
			}
			if !reflect.DeepEqual(got.Problems, single.Problems) {
				t.Errorf("problems differ:\n got %+v\nwant %+v", got.Problems, single.Problems)
			}
			if !reflect.DeepEqual(got.Config, single.Config) {
				t.Errorf("config differs:\n got %+v\nwant %+v", got.Config, single.Config)
			}
			if got.Summary[0].PromptTokens != 500+1500+700+900+2500 || got.Summary[0].Refused != 2 {
				t.Errorf("before summary = %+v", got.Summary[0])
			}
			if !reflect.DeepEqual(got.Timings.Cases, single.Timings.Cases) {
				t.Errorf("case timings are not in case order: %+v", got.Timings.Cases)
			}
			if got.Timings.Scan[1].Messages != 5 || got.Timings.Scan[1].Max != 5 || got.Timings.Scan[1].Total != 15 {
				t.Errorf("scan summary = %+v", got.Timings.Scan[1])
			}
			if got.Timings.InputBytes != 1234 {
				t.Errorf("input bytes = %d, want 1234 (the shared input counted once)", got.Timings.InputBytes)
			}
		})
	}
}

func ids(cs []Case) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestMergeDeduplicatesCases(t *testing.T) {
	a := singleRun([]Case{mergeCase("a@2", 0, 500, 300, ""), mergeCase("b@2", 1, 600, 300, "")}, nil, "")
	b := singleRun([]Case{mergeCase("b@2", 1, 999, 999, ""), mergeCase("c@2", 2, 700, 300, "")}, nil, "")
	got, err := Merge([]*Report{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a@2", "b@2", "c@2"}; !reflect.DeepEqual(ids(got.Cases), want) {
		t.Fatalf("cases = %v, want %v", ids(got.Cases), want)
	}
	if got.Cases[1].Arms[0].PromptTokens != 600 {
		t.Errorf("duplicate kept from the second report: %+v", got.Cases[1].Arms[0])
	}
	if got.Summary[0].PromptTokens != 500+600+700 || got.Summary[0].Cases != 3 {
		t.Errorf("summary = %+v", got.Summary[0])
	}
	if n := len(got.Timings.Cases); n != 6 {
		t.Errorf("%d case timings, want 6 (one per kept case and arm)", n)
	}
}

func TestMergeRejects(t *testing.T) {
	base := func() *Report { return singleRun([]Case{mergeCase("a@2", 0, 500, 300, "")}, nil, "") }
	tests := []struct {
		name   string
		change func(r *Report)
		want   string
	}{
		{"other tokenizer", func(r *Report) { r.Config.Tokenizer = "cl100k_base" }, `config tokenizer is "cl100k_base"`},
		{"other context", func(r *Report) { r.Config.Context = 8192 }, `config context is "8192"`},
		{"other arms", func(r *Report) { r.Config.Arms = r.Config.Arms[:1] }, `config arms is "before"`},
		{"other schema", func(r *Report) { r.Schema = "strata-eval/results/v0" }, `schema "strata-eval/results/v0"`},
		{"changed input", func(r *Report) { r.Config.Inputs[0].BLAKE3 = "def" }, "read corpus with blake3:def, an earlier report with blake3:abc: the input changed between runs"},
		{"changed size", func(r *Report) { r.Config.Inputs[0].Bytes++ }, "the input changed between runs"},
		{"other digest", func(r *Report) { r.Config.Inputs[0] = Input{Path: "corpus", SHA256: "abc", Bytes: 1234} },
			"digest corpus differently (sha256:abc, blake3:abc): whether the input changed cannot be told"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := base()
			tt.change(other)
			_, err := Merge([]*Report{base(), other})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := Merge(nil); err == nil {
		t.Error("merging nothing gave no error")
	}
}

func TestMergeMissingShards(t *testing.T) {
	r0 := singleRun([]Case{mergeCase("a@2", 0, 500, 300, "")}, nil, "0/4")
	r2 := singleRun([]Case{mergeCase("c@2", 2, 500, 300, "")}, nil, "2/4")
	got, err := Merge([]*Report{r0, r2})
	if !errors.Is(err, ErrMissingShards) || !strings.Contains(err.Error(), "1/4, 3/4") {
		t.Fatalf("err = %v, want missing 1/4, 3/4", err)
	}
	if got == nil || len(got.Cases) != 2 {
		t.Fatalf("merged report = %+v, want the 2 cases present", got)
	}
	// Shards of different counts are not one run split up: no shard check.
	r1 := singleRun([]Case{mergeCase("b@2", 1, 500, 300, "")}, nil, "1/3")
	if _, err := Merge([]*Report{r0, r1}); err != nil {
		t.Errorf("mixed shard counts: %v", err)
	}
}

// TestMergeVisionModels: shards of a --vision recorded run each name the models of their own
// cases; the merged report names every one once, by id.
func TestMergeVisionModels(t *testing.T) {
	gpt := VisionModel{Model: "gpt-4.1", Family: "openai/gpt-4.1-high", Rule: "openai/gpt-4.1-high (tiles)"}
	claude := VisionModel{Model: "claude-sonnet-4-5", Family: "anthropic/claude-legacy", Rule: "anthropic/claude-legacy (resize)"}
	qwen := VisionModel{Model: "qwen3-vl", Family: "llamacpp/qwen3vl", Rule: "llamacpp/qwen3vl", Fallback: true}
	a := singleRun([]Case{mergeCase("a@2", 0, 500, 300, "")}, nil, "0/2")
	b := singleRun([]Case{mergeCase("b@2", 1, 600, 300, "")}, nil, "1/2")
	a.Config.VisionModels = []VisionModel{gpt, qwen}
	b.Config.VisionModels = []VisionModel{claude, gpt}
	merged, err := Merge([]*Report{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := []VisionModel{claude, gpt, qwen}; !reflect.DeepEqual(merged.Config.VisionModels, want) {
		t.Errorf("merged vision models %+v, want %+v", merged.Config.VisionModels, want)
	}
}
