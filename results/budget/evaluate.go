package budget

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/results/stats"
)

// VerdictSchema is the version of the JSON verdict.
const VerdictSchema = "strata-eval/budget/v1"

// Verdict is the outcome of every budget of a file against a run. The printed verdict, the
// JSON verdict and the exit code are all derived from it.
type Verdict struct {
	Schema   string   `json:"schema"`
	Budgets  string   `json:"budgets"`
	Results  []string `json:"results"`
	Baseline []string `json:"baseline,omitempty"`
	// Passed is true when no budget was crossed; Crossed counts those that were.
	Passed  bool      `json:"passed"`
	Crossed int       `json:"crossed"`
	Checks  []Outcome `json:"checks"`
}

// Outcome is one budget's evaluation.
type Outcome struct {
	// Budget is the selector and expression as one line: "prompt_tokens{arm:after}: sum <= 30838".
	Budget string `json:"budget"`
	Metric string `json:"metric"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Samples is the number of samples aggregated in the current run.
	Samples int `json:"samples"`
	// Observed is the aggregated value (the difference with the baseline for delta), in the
	// metric's base unit (nanoseconds for durations); absent when it could not be computed.
	Observed *float64 `json:"observed,omitempty"`
	// Current and Base are the two sides of a delta.
	Current   *float64 `json:"current,omitempty"`
	Base      *float64 `json:"base,omitempty"`
	Op        string   `json:"op"`
	Threshold float64  `json:"threshold"`
	// Unit is "ns" for durations, "" otherwise.
	Unit   string `json:"unit,omitempty"`
	Passed bool   `json:"passed"`
	// Note explains an outcome that could not be computed (no samples, no baseline).
	Note string `json:"note,omitempty"`
}

// Inputs are the results files a verdict is computed from.
type Inputs struct {
	// Names and Results are the current run's files (several are combined, e.g. shards).
	Names   []string
	Results []*results.Results
	// BaselineNames and Baseline are the baseline run's files (for delta).
	BaselineNames []string
	Baseline      []*results.Results
}

// Evaluate evaluates every budget of f against the inputs. It is the only evaluator.
func Evaluate(f *File, in Inputs) Verdict {
	v := Verdict{Schema: VerdictSchema, Budgets: f.Path, Results: in.Names, Baseline: in.BaselineNames, Passed: true}
	if v.Results == nil {
		v.Results = []string{}
	}
	for _, b := range f.Budgets {
		o := evaluateOne(b, in)
		if !o.Passed {
			v.Passed = false
			v.Crossed++
		}
		v.Checks = append(v.Checks, o)
	}
	return v
}

func collect(b Budget, files []*results.Results) []float64 {
	f := filterSet{}
	for _, kv := range b.Filter {
		f[kv.Key] = kv.Value
	}
	m := metrics[b.Metric]
	var out []float64
	for _, r := range files {
		out = append(out, m.samples(r, f)...)
	}
	return out
}

func evaluateOne(b Budget, in Inputs) Outcome {
	m := metrics[b.Metric]
	o := Outcome{Budget: b.Selector() + ": " + strings.TrimSpace(b.Source), Metric: b.Metric, Line: b.Line, Column: b.Column,
		Op: b.Op, Threshold: b.Threshold}
	if m.kind == kindTime && b.Agg.Name != "count" {
		o.Unit = "ns"
	}
	cur := collect(b, in.Results)
	o.Samples = len(cur)
	value, note := aggregate(b.Agg, cur)
	if note != "" {
		o.Note = note
		return o
	}
	if b.Agg.Delta {
		current := value
		o.Current = &current
		if len(in.Baseline) == 0 {
			o.Note = "delta needs a baseline (--baseline)"
			return o
		}
		base, note := aggregate(b.Agg, collect(b, in.Baseline))
		if note != "" {
			o.Note = "baseline: " + note
			return o
		}
		o.Base = &base
		value -= base
	}
	o.Observed = &value
	o.Passed = compare(value, b.Op, b.Threshold)
	return o
}

// aggregate reduces samples; note says why it could not.
func aggregate(a Aggregation, xs []float64) (float64, string) {
	if a.Name == "count" {
		return float64(len(xs)), ""
	}
	if len(xs) == 0 {
		return 0, "no samples match the selector"
	}
	switch a.Name {
	case "sum":
		return stats.Sum(xs), ""
	case "min":
		return stats.Min(xs), ""
	case "max":
		return stats.Max(xs), ""
	case "avg":
		return stats.Mean(xs), ""
	case "med":
		return stats.Median(xs), ""
	case "p":
		return stats.Percentile(xs, a.P), ""
	case "rate":
		n := 0
		for _, x := range xs {
			if x != 0 {
				n++
			}
		}
		return float64(n) / float64(len(xs)), ""
	case "value":
		if len(xs) != 1 {
			return 0, fmt.Sprintf("value needs exactly one sample and there are %d; use sum, avg, min or max", len(xs))
		}
		return xs[0], ""
	}
	return 0, "unknown aggregation " + a.Name
}

// tolerance absorbs float noise in equality of sums of integers and in fractions.
const tolerance = 1e-9

func compare(v float64, op string, t float64) bool {
	eq := math.Abs(v-t) <= tolerance*math.Max(1, math.Abs(t))
	switch op {
	case "<":
		return v < t && !eq
	case "<=":
		return v < t || eq
	case ">":
		return v > t && !eq
	case ">=":
		return v > t || eq
	case "==":
		return eq
	case "!=":
		return !eq
	}
	return false
}

// FormatValue prints a value in the unit of an outcome: a duration for "ns", else a number.
func FormatValue(v float64, unit string) string {
	if unit == "ns" {
		return formatDuration(v)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return results.Thousands(int64(v))
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func formatDuration(ns float64) string {
	d := time.Duration(math.Round(ns))
	switch a := math.Abs(ns); {
	case a >= 1e9:
		d = d.Round(time.Millisecond)
	case a >= 1e6:
		d = d.Round(time.Microsecond)
	case a >= 1e3:
		d = d.Round(10 * time.Nanosecond)
	}
	return d.String()
}

// Table is the verdict as a table: one row per budget.
func (v Verdict) Table() results.Table {
	t := results.Table{Title: fmt.Sprintf("budgets (%s): %d checked, %d crossed", v.Budgets, len(v.Checks), v.Crossed),
		Header: []string{"line", "budget", "observed", "result"}, Right: []bool{true, false, true, false}}
	for _, o := range v.Checks {
		observed := "-"
		if o.Observed != nil {
			observed = FormatValue(*o.Observed, o.Unit)
			if o.Base != nil {
				observed = fmt.Sprintf("%s (%s → %s)", signed(*o.Observed, o.Unit), FormatValue(*o.Base, o.Unit), FormatValue(*o.Current, o.Unit))
			}
		}
		result := "ok"
		if !o.Passed {
			result = "CROSSED"
			if o.Note != "" {
				result += ": " + o.Note
			}
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(o.Line), o.Budget, observed, result})
	}
	return t
}

func signed(v float64, unit string) string {
	s := FormatValue(v, unit)
	if v > 0 {
		return "+" + s
	}
	return s
}

// Summary is the one-line verdict printed after the table.
func (v Verdict) Summary() string {
	if v.Passed {
		return fmt.Sprintf("all %d budgets hold", len(v.Checks))
	}
	var crossed []string
	for _, o := range v.Checks {
		if !o.Passed {
			crossed = append(crossed, fmt.Sprintf("%s:%d: %s", v.Budgets, o.Line, o.Budget))
		}
	}
	return fmt.Sprintf("%d of %d budgets crossed:\n  %s", v.Crossed, len(v.Checks), strings.Join(crossed, "\n  "))
}

// WriteJSON writes the verdict as indented JSON.
func (v Verdict) WriteJSON(w io.Writer) error { return results.WriteIndentedJSON(w, v) }
