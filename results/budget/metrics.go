package budget

import (
	"strings"

	"github.com/strata-eval/strata-eval/results"
)

type kind int

const (
	kindCount kind = iota // integers: tokens, rows, pictures
	kindBool              // 0 or 1 per sample
	kindRatio             // a dimensionless fraction or factor
	kindTime              // nanoseconds
)

// metric describes one metric a budget can name.
type metric struct {
	kind kind
	// filters are the keys its samples can be filtered by.
	filters []string
	// natural is the aggregation delta compares when none is given.
	natural Aggregation
	help    string
	// samples extracts the metric's samples of one results file that match the filter.
	samples func(r *results.Results, f filterSet) []float64
}

var caseKeys = []string{"arm", "case", "format", "file"}

// metrics is the catalogue of metrics (read only).
var metrics = map[string]metric{
	"prompt_tokens": armMetric(kindCount, "prompt tokens per case (text tokens + image rows)", func(a results.ArmCase) float64 { return float64(a.PromptTokens) }),
	"text_tokens":   armMetric(kindCount, "text tokens per case", func(a results.ArmCase) float64 { return float64(a.TextTokens) }),
	"image_rows":    armMetric(kindCount, "image rows per case", func(a results.ArmCase) float64 { return float64(a.ImageRows) }),
	"tool_chars":    armMetric(kindCount, "characters of tool text per case", func(a results.ArmCase) float64 { return float64(a.ToolChars) }),
	"refused":       armMetric(kindBool, "1 when the case does not fit the context", func(a results.ArmCase) float64 { return b2f(!a.Fits) }),
	"fits":          armMetric(kindBool, "1 when the case fits the context", func(a results.ArmCase) float64 { return b2f(a.Fits) }),
	"sees_picture":  armMetric(kindBool, "1 when pixels of a picture reach the model", func(a results.ArmCase) float64 { return b2f(a.SeesPicture) }),
	"pictures": {kind: kindCount, filters: append(append([]string{}, caseKeys...), "outcome", "type", "payload"), natural: Aggregation{Name: "sum"},
		help: "pictures per case (by outcome, type), or found per bench payload", samples: picturesSamples},
	"reduction": {kind: kindRatio, filters: []string{"arm"}, natural: Aggregation{Name: "value"},
		help: "1 - prompt tokens / prompt tokens of the first arm, per arm", samples: reductionSamples},
	"correct": {kind: kindBool, filters: caseKeys, natural: Aggregation{Name: "rate"},
		help: "1 when a scored answer was correct (cases without a verdict are left out)", samples: correctSamples},
	"problems": {kind: kindCount, filters: nil, natural: Aggregation{Name: "sum"},
		help: "inputs that could not be read, per results file", samples: problemSamples},
	"scan_time": {kind: kindTime, filters: []string{"arm", "case", "payload"}, natural: Aggregation{Name: "med"},
		help: "ns to scan and lift one tool message (replay), ns/op per run (bench)", samples: scanTimeSamples},
	"read_time": benchMetric(kindTime, "ns/op of the plain read of the same bytes, per run", func(p results.BenchPayload) []float64 { return nsOf(p.Read) }),
	"scan_over_read": benchMetric(kindRatio, "scan ns/op over read ns/op of the same run", func(p results.BenchPayload) []float64 {
		return p.ScanOverReadRuns()
	}),
	"scan_mb_per_s": benchMetric(kindRatio, "MB/s of the scan per run", func(p results.BenchPayload) []float64 {
		var out []float64
		for _, r := range p.Runs {
			out = append(out, results.MBPerSec(p.Bytes, r.NsPerOp))
		}
		return out
	}),
	"allocs_per_op": benchMetric(kindCount, "allocations per scan, per run", func(p results.BenchPayload) []float64 {
		var out []float64
		for _, r := range p.Runs {
			out = append(out, float64(r.AllocsPerOp))
		}
		return out
	}),
	"bytes_per_op": benchMetric(kindCount, "bytes allocated per scan, per run", func(p results.BenchPayload) []float64 {
		var out []float64
		for _, r := range p.Runs {
			out = append(out, float64(r.BytesPerOp))
		}
		return out
	}),
}

// MetricHelp returns the one-line description of each metric, by name.
func MetricHelp() map[string]string {
	out := map[string]string{}
	for n, m := range metrics {
		out[n] = m.help + " [" + strings.Join(m.filters, ", ") + "]"
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// filterSet is a budget's filter as a map.
type filterSet map[string]string

func (f filterSet) match(key, value string) bool {
	want, ok := f[key]
	return !ok || want == value
}

func (f filterSet) matchCase(c results.Case, arm string) bool {
	return f.match("arm", arm) && f.match("case", c.ID) && f.match("format", c.Format) && f.match("file", c.File)
}

// has says the filter names key (a payload filter leaves replay samples out, an arm or case
// filter bench samples).
func (f filterSet) has(key string) bool { _, ok := f[key]; return ok }

func armMetric(k kind, help string, value func(results.ArmCase) float64) metric {
	return metric{kind: k, filters: caseKeys, natural: Aggregation{Name: "sum"}, help: help,
		samples: func(r *results.Results, f filterSet) []float64 {
			if r.Report == nil {
				return nil
			}
			var out []float64
			for _, c := range r.Report.Cases {
				for _, a := range c.Arms {
					if f.matchCase(c, a.Arm) {
						out = append(out, value(a))
					}
				}
			}
			return out
		}}
}

func benchMetric(k kind, help string, values func(results.BenchPayload) []float64) metric {
	return metric{kind: k, filters: []string{"payload"}, natural: Aggregation{Name: "med"}, help: help,
		samples: func(r *results.Results, f filterSet) []float64 {
			if r.Bench == nil {
				return nil
			}
			var out []float64
			for _, p := range r.Bench.Payloads {
				if f.match("payload", p.Name) {
					out = append(out, values(p)...)
				}
			}
			return out
		}}
}

func nsOf(runs []results.BenchRun) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.NsPerOp
	}
	return out
}

func picturesSamples(r *results.Results, f filterSet) []float64 {
	var out []float64
	if r.Bench != nil && !f.has("arm") && !f.has("case") && !f.has("outcome") && !f.has("type") {
		for _, p := range r.Bench.Payloads {
			if f.match("payload", p.Name) {
				out = append(out, float64(p.Pictures))
			}
		}
	}
	if r.Report == nil || f.has("payload") {
		return out
	}
	for _, c := range r.Report.Cases {
		for _, a := range c.Arms {
			if !f.matchCase(c, a.Arm) {
				continue
			}
			n := 0
			for _, p := range a.Pictures {
				if f.match("outcome", string(p.Outcome)) && f.match("type", p.Type) {
					n++
				}
			}
			out = append(out, float64(n))
		}
	}
	return out
}

func reductionSamples(r *results.Results, f filterSet) []float64 {
	if r.Report == nil {
		return nil
	}
	var out []float64
	for _, s := range r.Report.Summary {
		if f.match("arm", s.Arm) {
			out = append(out, s.Reduction)
		}
	}
	return out
}

func correctSamples(r *results.Results, f filterSet) []float64 {
	if r.Report == nil || r.Correct == nil {
		return nil
	}
	var out []float64
	for _, c := range r.Report.Cases {
		for _, a := range c.Arms {
			ok, scored := r.Correct[c.ID][a.Arm]
			if scored && f.matchCase(c, a.Arm) {
				out = append(out, b2f(ok))
			}
		}
	}
	return out
}

func problemSamples(r *results.Results, _ filterSet) []float64 {
	if r.Report == nil {
		return nil
	}
	return []float64{float64(len(r.Report.Problems))}
}

func scanTimeSamples(r *results.Results, f filterSet) []float64 {
	var out []float64
	if r.Bench != nil && !f.has("arm") && !f.has("case") {
		for _, p := range r.Bench.Payloads {
			if f.match("payload", p.Name) {
				out = append(out, nsOf(p.Runs)...)
			}
		}
	}
	if r.Report == nil || f.has("payload") {
		return out
	}
	for _, t := range r.Report.Timings.Cases {
		if f.match("arm", t.Arm) && f.match("case", t.Case) {
			for _, ns := range t.ScanNanos {
				out = append(out, float64(ns))
			}
		}
	}
	return out
}
