package budget

import (
	"errors"
	"strings"
	"testing"
)

func TestParseBudgets(t *testing.T) {
	src := `# budgets of the sample corpus
budgets:
  prompt_tokens{arm:after}: sum <= 30_838
  refused{arm:before}: [sum == 1, rate < 10%]
  scan_time{arm:after}:
    - p(95) < 1ms
    - "max <= 2.5 ms"
  scan_over_read{payload:png_2MB}: p(50) < 4
  correct{arm:after}: rate >= 0.99
  image_rows{arm:after}: delta <= 0
  scan_time{payload:"json_2MB"}: delta(p(90)) < 500us
  pictures{arm:after, outcome:lifted}: sum >= 5
  prompt_tokens{case:openai-chat-chatbox-screenshot.json#0@6,arm:before}: max > 262144
`
	f, err := Parse("budgets.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		selector, agg, op string
		threshold         float64
		line, col         int
	}
	wants := []want{
		{"prompt_tokens{arm:after}", "sum", "<=", 30838, 3, 29},
		{"refused{arm:before}", "sum", "==", 1, 4, 25},
		{"refused{arm:before}", "rate", "<", 0.1, 4, 35},
		{"scan_time{arm:after}", "p(95)", "<", 1e6, 6, 7},
		{"scan_time{arm:after}", "max", "<=", 2.5e6, 7, 7},
		{"scan_over_read{payload:png_2MB}", "p(50)", "<", 4, 8, 36},
		{"correct{arm:after}", "rate", ">=", 0.99, 9, 23},
		{"image_rows{arm:after}", "delta(sum)", "<=", 0, 10, 26},
		{"scan_time{payload:json_2MB}", "delta(p(90))", "<", 5e5, 11, 34},
		{"pictures{arm:after,outcome:lifted}", "sum", ">=", 5, 12, 40},
		{"prompt_tokens{case:openai-chat-chatbox-screenshot.json#0@6,arm:before}", "max", ">", 262144, 13, 75},
	}
	if len(f.Budgets) != len(wants) {
		t.Fatalf("%d budgets, want %d", len(f.Budgets), len(wants))
	}
	for i, w := range wants {
		b := f.Budgets[i]
		if b.Selector() != w.selector || b.Agg.String() != w.agg || b.Op != w.op || b.Threshold != w.threshold || b.Line != w.line || b.Column != w.col {
			t.Errorf("budget %d = %s %s %s %v at %d:%d, want %s %s %s %v at %d:%d", i, b.Selector(), b.Agg, b.Op, b.Threshold, b.Line, b.Column,
				w.selector, w.agg, w.op, w.threshold, w.line, w.col)
		}
	}
}

func TestParseErrorsNameLineAndColumn(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the whole error message
	}{
		{"unknown metric", "budgets:\n  prompt_tokenz{arm:after}: sum < 1\n",
			`b.yaml:2:3: unknown metric "prompt_tokenz" (did you mean prompt_tokens?)`},
		{"unknown aggregation", "budgets:\n  scan_time: p95 < 1ms\n",
			`b.yaml:2:14: unknown aggregation "p95" (did you mean p(95)?)`},
		{"missing operator", "budgets:\n  image_rows: sum 5\n",
			`b.yaml:2:19: expected an operator (<, <=, >, >=, ==, !=) after sum`},
		{"single equals", "budgets:\n  image_rows: sum = 5\n",
			`b.yaml:2:19: '=' is not an operator; use ==`},
		{"missing number", "budgets:\n  image_rows: sum <\n",
			`b.yaml:2:20: expected a number after <`},
		{"duration without unit", "budgets:\n  scan_time{arm:after}: max < 5\n",
			`b.yaml:2:32: max of a duration needs a unit: ns, µs, ms or s`},
		{"duration on a count", "budgets:\n  image_rows: max < 5ms\n",
			`b.yaml:2:22: unit "ms" is a duration, but max of this metric is not`},
		{"unknown unit", "budgets:\n  scan_time: max < 5 hours\n",
			`b.yaml:2:22: unknown unit "hours"; units: ns, µs, ms, s, %`},
		{"bad filter key", "budgets:\n  image_rows{payload:x}: sum < 5\n",
			`b.yaml:2:14: metric image_rows cannot be filtered by "payload"; keys: arm, case, format, file`},
		{"unclosed filter", "budgets:\n  image_rows{arm:after: sum < 5\n",
			`b.yaml:2:23: expected ',' or '}' in the filter`},
		{"rate of a count", "budgets:\n  image_rows: rate < 0.5\n",
			`b.yaml:2:15: rate is the fraction of true samples`},
		{"percentile out of range", "budgets:\n  scan_time: p(101) < 1ms\n",
			`b.yaml:2:16: percentile 101 is not between 0 and 100`},
		{"trailing garbage", "budgets:\n  image_rows: sum < 5 6\n",
			`b.yaml:2:23: unknown unit "6"`},
		{"quoted column", "budgets:\n  image_rows: \"sum << 5\"\n",
			`b.yaml:2:21: expected a number after <`},
		{"list item", "budgets:\n  image_rows:\n    - sum < 5\n    - avg >> 5\n",
			`b.yaml:4:12: expected a number after >`},
		{"unknown top key", "thresholds:\n  image_rows: sum < 5\n",
			`b.yaml:1:1: unknown key "thresholds"; the file has one key, budgets`},
		{"empty", "", `b.yaml:1:1: empty budgets file`},
		{"no expression", "budgets:\n  image_rows: []\n", `b.yaml:2:15: no expression for image_rows`},
		{"mapping value", "budgets:\n  image_rows: {sum: 5}\n", `b.yaml:2:15: expected an expression or a list`},
		{"bad yaml", "budgets:\n  a: [\n", `b.yaml:2:1: did not find expected node content`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("b.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", err, tt.want)
			}
		})
	}
}

func TestAggregationString(t *testing.T) {
	for _, tt := range []struct {
		a    Aggregation
		want string
	}{
		{Aggregation{Name: "p", P: 99.9}, "p(99.9)"},
		{Aggregation{Name: "sum", Delta: true}, "delta(sum)"},
		{Aggregation{Name: "rate"}, "rate"},
	} {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.a, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("budgets:\n  prompt_tokens{arm:after}: sum <= 30838\n")
	f.Add("budgets:\n  scan_time{payload:\"a,b\"}: [p(95) < 1ms, delta(p(50)) <= 0.5us]\n")
	f.Add("budgets:\n  correct: rate >= 99%\n")
	f.Add("budgets:\n  image_rows{arm:}: sum < -1e3\n")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("fuzz.yaml", []byte(src))
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error %v (%T) without a position", err, err)
			}
			return
		}
		for _, b := range file.Budgets {
			if _, ok := metrics[b.Metric]; !ok || b.Op == "" {
				t.Fatalf("parsed budget %+v is incomplete", b)
			}
			// Evaluating on nothing never panics.
			_ = Evaluate(file, Inputs{})
		}
	})
}
