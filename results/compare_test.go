package results

import (
	"math"
	"strings"
	"testing"
)

func scoredReport(tokens []int, scanNs int64, ids ...string) *Report {
	r := &Report{Schema: Schema}
	for i, id := range ids {
		r.Cases = append(r.Cases, Case{ID: id, Arms: []ArmCase{{Arm: "after", PromptTokens: tokens[i], Fits: true}}})
		r.Timings.Cases = append(r.Timings.Cases, CaseTiming{Case: id, Arm: "after", ScanNanos: []int64{scanNs + int64(i), scanNs + int64(i) + 10}})
	}
	r.Summary = Summarize(r.Cases, []string{"after"})
	return r
}

func TestComparePairsByCaseID(t *testing.T) {
	old := &Results{Report: scoredReport([]int{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 50},
		1000, "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "gone"),
		Correct: Correctness{}}
	new := &Results{Report: scoredReport([]int{100, 250, 300, 400, 500, 600, 700, 800, 900, 1000, 7},
		2000, "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "fresh"),
		Correct: Correctness{}}
	for i := 1; i <= 10; i++ {
		id := "c" + string(rune('0'+i%10))
		if i == 10 {
			id = "c10"
		}
		old.Correct[id] = map[string]bool{"after": true}
		new.Correct[id] = map[string]bool{"after": i > 8} // 8 pass → fail, 0 fail → pass
	}
	c, err := Compare(old, new, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Paired != 10 || strings.Join(c.OnlyOld, ",") != "gone" || strings.Join(c.OnlyNew, ",") != "fresh" {
		t.Errorf("paired %d, only old %v, only new %v", c.Paired, c.OnlyOld, c.OnlyNew)
	}
	var tokens *FigureDelta
	for i := range c.Figures {
		if c.Figures[i].Figure == "prompt_tokens" {
			tokens = &c.Figures[i]
		}
	}
	if tokens == nil || tokens.Old != 5500 || tokens.New != 5550 || tokens.Delta != 50 {
		t.Errorf("prompt_tokens over paired cases: %+v", tokens)
	}
	if len(c.Cases) != 1 || c.Cases[0].Case != "c2" || c.Cases[0].Delta != 50 {
		t.Errorf("changed cases: %+v", c.Cases)
	}
	if len(c.Timings) != 1 || !c.Timings[0].Significant || c.Timings[0].Test.N1 != 20 || c.Timings[0].Change < 0.9 {
		t.Errorf("timings: %+v", c.Timings)
	}
	if len(c.Correctness) != 1 {
		t.Fatalf("correctness: %+v", c.Correctness)
	}
	d := c.Correctness[0]
	// McNemar exact: b = 8, c = 0, p = 2/256.
	if d.Pairs != 10 || d.OldPass != 10 || d.NewPass != 2 || math.Abs(d.Test.P-2.0/256) > 1e-15 || !d.Regressed || !c.Regressed() {
		t.Errorf("correctness: %+v", d)
	}
	warnings := strings.Join(CompareWarnings(c), "\n")
	for _, w := range []string{"1 only in the old run, 1 only in the new", "only in the old run: gone", "only in the new run: fresh"} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q: %s", w, warnings)
		}
	}
	tables := CompareTables(c)
	if len(tables) != 4 || tables[2].Rows[0][4][0] != '+' || tables[3].Rows[0][7] != "regressed" {
		t.Errorf("tables: %+v", tables)
	}
}

func TestCompareNotSignificantIsTilde(t *testing.T) {
	a := &Results{Report: scoredReport([]int{1, 1, 1}, 1000, "x", "y", "z")}
	b := &Results{Report: scoredReport([]int{1, 1, 1}, 1001, "x", "y", "z")}
	c, err := Compare(a, b, CompareOptions{Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if cell := timingCell(c.Timings[0]); !strings.HasPrefix(cell, "~ (p=") {
		t.Errorf("timing cell %q", cell)
	}
	if c.Correctness != nil || c.Regressed() {
		t.Errorf("no scores, yet correctness %+v", c.Correctness)
	}
	if _, err := Compare(a, &Results{Bench: &BenchReport{}}, CompareOptions{}); err == nil {
		t.Error("a replay report compared with a bench report")
	}
}

func TestDecodeResults(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"replay with scores", `{"schema":"strata-eval/results/v1","cases":[{"id":"a","arms":[{"arm":"after","correct":false}]}]}`, ""},
		{"bench", `{"schema":"strata-eval/bench/v1","payloads":[{"name":"p"}]}`, ""},
		{"syntax", `{"schema":"strata-eval/results/v1",`, "byte 35: unexpected end of JSON input"},
		{"type", `{"schema":"strata-eval/results/v1","cases":[{"id":5}]}`, `member "cases.id": number where string was expected`},
		{"no schema", `{}`, "/schema: missing"},
		{"other schema", `{"schema":"x"}`, `/schema: "x" is not`},
		{"unknown member", `{"schema":"strata-eval/results/v1","cases":[{"id":"a","arms":[{"arm":"after","colour":1}]}]}`,
			`byte 77: member "cases.arms.colour": unknown`},
		{"unknown member of an embedded struct", `{"schema":"strata-eval/results/v1","cases":[{"id":"a","arms":[{"arm":"after","pictures":[{"sha256":"x","hue":2}]}]}]}`,
			`member "cases.arms.pictures.hue": unknown`},
		{"unknown bench member", `{"schema":"strata-eval/bench/v1","payloads":[{"name":"p"}],"extra":true}`, `member "extra": unknown`},
		{"trailing data", `{"schema":"strata-eval/results/v1"} {}`, "byte 37: invalid character '{' after top-level value"},
		{"unnamed payload", `{"schema":"strata-eval/bench/v1","payloads":[{}]}`, "/payloads/0/name: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResults([]byte(tt.in))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.Report != nil && (r.Correct["a"]["after"] != false || len(r.Correct) != 1) {
					t.Errorf("correctness %v", r.Correct)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func TestBenchPayloadSummarize(t *testing.T) {
	p := BenchPayload{Bytes: 2_000_000,
		Runs: []BenchRun{{NsPerOp: 4e6, AllocsPerOp: 7, BytesPerOp: 100}, {NsPerOp: 2e6, AllocsPerOp: 7, BytesPerOp: 100}, {NsPerOp: 3e6, AllocsPerOp: 9, BytesPerOp: 300}},
		Read: []BenchRun{{NsPerOp: 1e6}, {NsPerOp: 1e6}, {NsPerOp: 0.5e6}}}
	p.Summarize()
	if p.Scan.MinNs != 2e6 || p.Scan.MedianNs != 3e6 || p.Scan.P95Ns != 3.9e6 || p.Scan.AllocsPerOp != 7 || p.Scan.BytesPerOp != 100 {
		t.Errorf("scan stats %+v", p.Scan)
	}
	// 2 MB in 3 ms: 666.7 MB/s; ratios per run 4, 2, 6 → median 4.
	if p.Scan.MBPerSec < 666.6 || p.Scan.MBPerSec > 666.7 || p.ScanOverRead != 4 {
		t.Errorf("MB/s %v, scan/read %v", p.Scan.MBPerSec, p.ScanOverRead)
	}
}
