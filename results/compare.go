package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/strata-eval/strata-eval/results/stats"
)

// CompareSchema is the version of the layout of `compare --format json`.
const CompareSchema = "strata-eval/compare/v1"

// Correctness holds, per case id and arm, whether the arm's answer was correct. Cases and arms
// that were not scored are absent.
type Correctness map[string]map[string]bool

// Results is one results file as read: a replay report or a bench report, with the
// correctness of each case and arm when the report records it.
type Results struct {
	Report  *Report
	Bench   *BenchReport
	Correct Correctness
}

// DecodeResults decodes a results file of `replay` (results.json) or of `bench scan --json`,
// chosen by its "schema" member. Errors name the byte offset or the member at fault.
func DecodeResults(data []byte) (*Results, error) {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(err)
	}
	switch head.Schema {
	case Schema:
		var r Report
		if err := strictDecode(data, &r); err != nil {
			return nil, err
		}
		correct, err := decodeCorrectness(data)
		if err != nil {
			return nil, err
		}
		return &Results{Report: &r, Correct: correct}, nil
	case BenchSchema:
		var b BenchReport
		if err := strictDecode(data, &b); err != nil {
			return nil, err
		}
		for i := range b.Payloads {
			if b.Payloads[i].Name == "" {
				return nil, fmt.Errorf("/payloads/%d/name: empty", i)
			}
		}
		return &Results{Bench: &b}, nil
	case "":
		return nil, errors.New(`/schema: missing; expected "` + Schema + `" or "` + BenchSchema + `"`)
	}
	return nil, fmt.Errorf("/schema: %q is not %q or %q", head.Schema, Schema, BenchSchema)
}

// decodeCorrectness reads the "correct" member of every case's arms (a boolean, present only
// when a live model answered and a scorer judged it). It reads the raw JSON so that it does not
// depend on the Go type of the report.
func decodeCorrectness(data []byte) (Correctness, error) {
	var raw struct {
		Cases []struct {
			ID   string `json:"id"`
			Arms []struct {
				Arm     string `json:"arm"`
				Correct *bool  `json:"correct"`
			} `json:"arms"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(err)
	}
	out := Correctness{}
	for _, c := range raw.Cases {
		for _, a := range c.Arms {
			if a.Correct == nil {
				continue
			}
			if out[c.ID] == nil {
				out[c.ID] = map[string]bool{}
			}
			out[c.ID][a.Arm] = *a.Correct
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// CompareOptions configure a comparison.
type CompareOptions struct {
	// Alpha is the significance level of the tests (default 0.05).
	Alpha float64
}

// Comparison is the pairing of two results files by case id (replay) or payload name (bench).
type Comparison struct {
	Schema string  `json:"schema"`
	Alpha  float64 `json:"alpha"`
	// Kind is "replay" or "bench".
	Kind string `json:"kind"`
	// Paired counts the cases (payloads) present in both; OnlyOld and OnlyNew list the others.
	Paired  int      `json:"paired"`
	OnlyOld []string `json:"only_old,omitempty"`
	OnlyNew []string `json:"only_new,omitempty"`
	// Figures are the per-arm totals over the paired cases (per-payload figures for bench).
	Figures []FigureDelta `json:"figures"`
	// Cases lists, per paired case and arm, every figure that changed.
	Cases []FigureDelta `json:"cases,omitempty"`
	// Timings are the timing comparisons (scan time per arm, ns/op per payload).
	Timings []TimingDelta `json:"timings,omitempty"`
	// Correctness is McNemar's test per arm on the paired cases scored in both runs.
	Correctness []CorrectnessDelta `json:"correctness,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
}

// FigureDelta is one figure in the old and the new run.
type FigureDelta struct {
	Case   string  `json:"case,omitempty"`
	Arm    string  `json:"arm"` // the arm, or the payload for bench
	Figure string  `json:"figure"`
	Old    float64 `json:"old"`
	New    float64 `json:"new"`
	Delta  float64 `json:"delta"`
}

// TimingDelta compares two samples of timings with the Mann-Whitney U test.
type TimingDelta struct {
	Arm    string `json:"arm"`
	Figure string `json:"figure"`
	// OldMedian and NewMedian are in nanoseconds.
	OldMedian float64 `json:"old_median_ns"`
	NewMedian float64 `json:"new_median_ns"`
	// Change is NewMedian/OldMedian - 1.
	Change float64           `json:"change"`
	Test   stats.MannWhitney `json:"test"`
	// Significant says Test.P < alpha; otherwise the difference is shown as "~".
	Significant bool `json:"significant"`
}

// CorrectnessDelta compares paired pass/fail outcomes of one arm.
type CorrectnessDelta struct {
	Arm     string              `json:"arm"`
	Pairs   int                 `json:"pairs"`
	OldPass int                 `json:"old_pass"`
	NewPass int                 `json:"new_pass"`
	Test    stats.McNemarResult `json:"test"`
	// Significant says Test.P < alpha; Regressed that it is significant and fewer pass now.
	Significant bool `json:"significant"`
	Regressed   bool `json:"regressed"`
}

// Regressed says whether correctness regressed significantly in some arm.
func (c *Comparison) Regressed() bool {
	for _, d := range c.Correctness {
		if d.Regressed {
			return true
		}
	}
	return false
}

func (o CompareOptions) alpha() float64 {
	if o.Alpha <= 0 || o.Alpha >= 1 || math.IsNaN(o.Alpha) {
		return 0.05
	}
	return o.Alpha
}

// Compare pairs two results files. Both must be replay reports or both bench reports.
func Compare(old, new *Results, opts CompareOptions) (*Comparison, error) {
	switch {
	case old.Report != nil && new.Report != nil:
		return compareReports(old, new, opts.alpha()), nil
	case old.Bench != nil && new.Bench != nil:
		return compareBench(old.Bench, new.Bench, opts.alpha()), nil
	}
	return nil, errors.New("cannot compare a replay report with a bench report")
}

// caseFigures are the per-case figures of an arm, in table order.
func caseFigures(a ArmCase) []FigureDelta {
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	figs := []FigureDelta{
		{Figure: "prompt_tokens", New: float64(a.PromptTokens)},
		{Figure: "text_tokens", New: float64(a.TextTokens)},
		{Figure: "image_rows", New: float64(a.ImageRows)},
		{Figure: "refused", New: b2f(!a.Fits)},
		{Figure: "sees_picture", New: b2f(a.SeesPicture)},
		{Figure: "tool_chars", New: float64(a.ToolChars)},
		{Figure: "tool_pictures", New: float64(a.ToolPictures)},
	}
	return figs
}

// compareReports compares two replay runs over the cases both hold: per arm, their summaries;
// per case, the figures that changed; per arm, the scan times; and their correctness.
func compareReports(old, new *Results, alpha float64) *Comparison {
	c := &Comparison{Schema: CompareSchema, Alpha: alpha, Kind: "replay"}
	pairedOld, pairedNew := c.pairCases(old.Report.Cases, new.Report.Cases)
	arms := unionArms(old.Report, new.Report)
	c.addArmFigures(arms, Summarize(pairedOld, arms), Summarize(pairedNew, arms))
	c.addCaseFigures(pairedOld, pairedNew)
	paired := map[string]bool{}
	for _, k := range pairedNew {
		paired[k.ID] = true
	}
	for _, arm := range arms {
		olds, news := scanSamples(old.Report, arm, paired), scanSamples(new.Report, arm, paired)
		if len(olds) == 0 || len(news) == 0 {
			continue
		}
		c.Timings = append(c.Timings, timingDelta(arm, "scan_time", olds, news, alpha))
	}
	c.Correctness = compareCorrectness(old.Correct, new.Correct, pairedNew, arms, alpha)
	return c
}

// pairCases returns the cases both runs hold (by id, in the new run's order), and notes those
// only one holds (OnlyOld, OnlyNew, a warning).
func (c *Comparison) pairCases(oldCases, newCases []Case) (pairedOld, pairedNew []Case) {
	byID := map[string]Case{}
	for _, k := range oldCases {
		byID[k.ID] = k
	}
	newIDs := map[string]bool{}
	for _, k := range newCases {
		newIDs[k.ID] = true
		if o, ok := byID[k.ID]; ok {
			pairedOld, pairedNew = append(pairedOld, o), append(pairedNew, k)
		} else {
			c.OnlyNew = append(c.OnlyNew, k.ID)
		}
	}
	for _, k := range oldCases {
		if !newIDs[k.ID] {
			c.OnlyOld = append(c.OnlyOld, k.ID)
		}
	}
	c.Paired = len(pairedNew)
	if len(c.OnlyOld)+len(c.OnlyNew) > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the runs cover different cases: %d only in the old run, %d only in the new; figures are over the %d paired cases",
			len(c.OnlyOld), len(c.OnlyNew), c.Paired))
	}
	return pairedOld, pairedNew
}

// addArmFigures adds each arm's summary figures, old and new (oldSum and newSum, in the order of
// arms); an arm only one run has is a warning.
func (c *Comparison) addArmFigures(arms []string, oldSum, newSum []ArmSummary) {
	for i, arm := range arms {
		o, n := oldSum[i], newSum[i]
		switch {
		case o.Cases == 0 && n.Cases == 0:
			continue
		case n.Cases == 0:
			c.Warnings = append(c.Warnings, fmt.Sprintf("arm %s is only in the old run", arm))
			continue
		case o.Cases == 0:
			c.Warnings = append(c.Warnings, fmt.Sprintf("arm %s is only in the new run", arm))
			continue
		}
		add := func(fig string, ov, nv float64) {
			c.Figures = append(c.Figures, FigureDelta{Arm: arm, Figure: fig, Old: ov, New: nv, Delta: nv - ov})
		}
		add("cases", float64(o.Cases), float64(n.Cases))
		add("refused", float64(o.Refused), float64(n.Refused))
		add("prompt_tokens", float64(o.PromptTokens), float64(n.PromptTokens))
		add("text_tokens", float64(o.TextTokens), float64(n.TextTokens))
		add("image_rows", float64(o.ImageRows), float64(n.ImageRows))
		add("reduction", o.Reduction, n.Reduction)
		add("sees_picture", float64(o.SeesPicture), float64(n.SeesPicture))
		for _, outcome := range outcomeKeys(o.Pictures, n.Pictures) {
			add("pictures_"+outcome, float64(o.Pictures[outcome]), float64(n.Pictures[outcome]))
		}
	}
}

// addCaseFigures adds, for each paired case and each arm both runs measured, the figures that
// changed.
func (c *Comparison) addCaseFigures(pairedOld, pairedNew []Case) {
	for i := range pairedNew {
		oc, nc := pairedOld[i], pairedNew[i]
		for _, na := range nc.Arms {
			oa, ok := findArm(oc, na.Arm)
			if !ok {
				continue
			}
			of, nf := caseFigures(oa), caseFigures(na)
			for j := range nf {
				if of[j].New != nf[j].New {
					c.Cases = append(c.Cases, FigureDelta{Case: nc.ID, Arm: na.Arm, Figure: nf[j].Figure,
						Old: of[j].New, New: nf[j].New, Delta: nf[j].New - of[j].New})
				}
			}
		}
	}
}

func findArm(c Case, arm string) (ArmCase, bool) {
	for _, a := range c.Arms {
		if a.Arm == arm {
			return a, true
		}
	}
	return ArmCase{}, false
}

// unionArms lists the arms of old, then those only new has, in the order of their summaries
// (or of their cases when a summary is missing).
func unionArms(reports ...*Report) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, r := range reports {
		for _, s := range r.Summary {
			add(s.Arm)
		}
		for _, k := range r.Cases {
			for _, a := range k.Arms {
				add(a.Arm)
			}
		}
	}
	return out
}

// outcomeKeys lists the picture outcomes of either side in table order.
func outcomeKeys(ms ...map[string]int) []string {
	order := []string{"lifted", "taken", "passed", "attached", "capped", "omitted", "noted", "text"}
	present := map[string]bool{}
	for _, m := range ms {
		for k, v := range m {
			if v != 0 {
				present[k] = true
			}
		}
	}
	var out []string
	for _, k := range order {
		if present[k] {
			out = append(out, k)
			delete(present, k)
		}
	}
	var rest []string
	for k := range present {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// scanSamples are the per-message scan times of an arm over the given cases.
func scanSamples(r *Report, arm string, cases map[string]bool) []float64 {
	var out []float64
	for _, t := range r.Timings.Cases {
		if t.Arm != arm || !cases[t.Case] {
			continue
		}
		for _, ns := range t.ScanNanos {
			out = append(out, float64(ns))
		}
	}
	return out
}

func timingDelta(name, figure string, old, new []float64, alpha float64) TimingDelta {
	d := TimingDelta{Arm: name, Figure: figure, OldMedian: stats.Median(old), NewMedian: stats.Median(new)}
	if len(old) == 0 {
		d.OldMedian = 0
	}
	if len(new) == 0 {
		d.NewMedian = 0
	}
	if d.OldMedian > 0 {
		d.Change = d.NewMedian/d.OldMedian - 1
	}
	d.Test = stats.MannWhitneyU(old, new)
	d.Significant = d.Test.P < alpha
	return d
}

func compareCorrectness(old, new Correctness, paired []Case, arms []string, alpha float64) []CorrectnessDelta {
	if old == nil || new == nil {
		return nil
	}
	var out []CorrectnessDelta
	for _, arm := range arms {
		d := CorrectnessDelta{Arm: arm}
		b, c := 0, 0
		for _, k := range paired {
			o, okO := old[k.ID][arm]
			n, okN := new[k.ID][arm]
			if !okO || !okN {
				continue
			}
			d.Pairs++
			if o {
				d.OldPass++
			}
			if n {
				d.NewPass++
			}
			switch {
			case o && !n:
				b++
			case !o && n:
				c++
			}
		}
		if d.Pairs == 0 {
			continue
		}
		d.Test = stats.McNemar(b, c)
		d.Significant = d.Test.P < alpha
		d.Regressed = d.Significant && b > c
		out = append(out, d)
	}
	return out
}

func compareBench(old, new *BenchReport, alpha float64) *Comparison {
	c := &Comparison{Schema: CompareSchema, Alpha: alpha, Kind: "bench"}
	oldByName := map[string]BenchPayload{}
	for _, p := range old.Payloads {
		oldByName[p.Name] = p
	}
	newNames := map[string]bool{}
	for _, n := range new.Payloads {
		newNames[n.Name] = true
		o, ok := oldByName[n.Name]
		if !ok {
			c.OnlyNew = append(c.OnlyNew, n.Name)
			continue
		}
		c.Paired++
		add := func(fig string, ov, nv float64) {
			c.Figures = append(c.Figures, FigureDelta{Arm: n.Name, Figure: fig, Old: ov, New: nv, Delta: nv - ov})
		}
		add("bytes", float64(o.Bytes), float64(n.Bytes))
		add("pictures", float64(o.Pictures), float64(n.Pictures))
		add("allocs_per_op", float64(o.Scan.AllocsPerOp), float64(n.Scan.AllocsPerOp))
		add("bytes_per_op", float64(o.Scan.BytesPerOp), float64(n.Scan.BytesPerOp))
		c.Timings = append(c.Timings, timingDelta(n.Name, "scan_time", nsSamples(o.Runs), nsSamples(n.Runs), alpha))
		c.Timings = append(c.Timings, timingDelta(n.Name, "read_time", nsSamples(o.Read), nsSamples(n.Read), alpha))
		sr := timingDelta(n.Name, "scan_over_read", o.ScanOverReadRuns(), n.ScanOverReadRuns(), alpha)
		c.Timings = append(c.Timings, sr)
	}
	for _, o := range old.Payloads {
		if !newNames[o.Name] {
			c.OnlyOld = append(c.OnlyOld, o.Name)
		}
	}
	if len(c.OnlyOld)+len(c.OnlyNew) > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the runs cover different payloads: %d only in the old run, %d only in the new",
			len(c.OnlyOld), len(c.OnlyNew)))
	}
	return c
}

func nsSamples(runs []BenchRun) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.NsPerOp
	}
	return out
}

// CompareTables renders a comparison as tables: the figures, the changed cases, the timings
// and the correctness tests.
func CompareTables(c *Comparison) []Table {
	var ts []Table
	fig := Table{Title: fmt.Sprintf("figures over %d paired %s", c.Paired, map[string]string{"replay": "cases", "bench": "payloads"}[c.Kind]),
		Header: []string{armHeader(c), "figure", "old", "new", "delta"}, Right: []bool{false, false, true, true, true}}
	for _, f := range c.Figures {
		fig.Rows = append(fig.Rows, []string{f.Arm, f.Figure, figureCell(f.Figure, f.Old), figureCell(f.Figure, f.New), deltaCell(f)})
	}
	ts = append(ts, fig)
	if len(c.Cases) > 0 {
		t := Table{Title: "changed cases", Header: []string{"case", "arm", "figure", "old", "new", "delta"},
			Right: []bool{false, false, false, true, true, true}}
		for _, f := range c.Cases {
			t.Rows = append(t.Rows, []string{f.Case, f.Arm, f.Figure, figureCell(f.Figure, f.Old), figureCell(f.Figure, f.New), deltaCell(f)})
		}
		ts = append(ts, t)
	}
	if len(c.Timings) > 0 {
		t := Table{Title: fmt.Sprintf("timings (Mann-Whitney U, α = %s)", strconv.FormatFloat(c.Alpha, 'g', -1, 64)),
			Header: []string{armHeader(c), "figure", "old median", "new median", "delta"}, Right: []bool{false, false, true, true, false}}
		for _, d := range c.Timings {
			unit := nsCell
			if d.Figure == "scan_over_read" {
				unit = func(v float64) string { return fmt.Sprintf("%.2f×", v) }
			}
			t.Rows = append(t.Rows, []string{d.Arm, d.Figure, unit(d.OldMedian), unit(d.NewMedian), timingCell(d)})
		}
		ts = append(ts, t)
	}
	if len(c.Correctness) > 0 {
		t := Table{Title: fmt.Sprintf("correctness (McNemar, α = %s)", strconv.FormatFloat(c.Alpha, 'g', -1, 64)),
			Header: []string{"arm", "pairs", "old pass", "new pass", "pass→fail", "fail→pass", "p", "verdict"},
			Right:  []bool{false, true, true, true, true, true, true, false}}
		for _, d := range c.Correctness {
			verdict := "~"
			switch {
			case d.Regressed:
				verdict = "regressed"
			case d.Significant:
				verdict = "improved"
			}
			t.Rows = append(t.Rows, []string{d.Arm, strconv.Itoa(d.Pairs), strconv.Itoa(d.OldPass), strconv.Itoa(d.NewPass),
				strconv.Itoa(d.Test.B), strconv.Itoa(d.Test.C), pCell(d.Test.P), verdict})
		}
		ts = append(ts, t)
	}
	return ts
}

func armHeader(c *Comparison) string {
	if c.Kind == "bench" {
		return "payload"
	}
	return "arm"
}

func figureCell(figure string, v float64) string {
	if figure == "reduction" {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return Thousands(int64(math.Round(v)))
}

func deltaCell(f FigureDelta) string {
	if f.Delta == 0 {
		return "0"
	}
	if f.Figure == "reduction" {
		return fmt.Sprintf("%+.1f pt", 100*f.Delta)
	}
	s := Thousands(int64(math.Round(f.Delta)))
	if f.Delta > 0 {
		s = "+" + s
	}
	if f.Old != 0 {
		s += fmt.Sprintf(" (%+.1f%%)", 100*f.Delta/math.Abs(f.Old))
	}
	return s
}

func timingCell(d TimingDelta) string {
	n := fmt.Sprintf("n=%d+%d", d.Test.N1, d.Test.N2)
	if !d.Significant {
		return fmt.Sprintf("~ (p=%s %s)", pCell(d.Test.P), n)
	}
	return fmt.Sprintf("%+.1f%% (p=%s %s)", 100*d.Change, pCell(d.Test.P), n)
}

func pCell(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// CompareWarnings are the lines that go to stderr: the warnings and the unpaired cases.
func CompareWarnings(c *Comparison) []string {
	out := append([]string(nil), c.Warnings...)
	for _, id := range c.OnlyOld {
		out = append(out, "only in the old run: "+id)
	}
	for _, id := range c.OnlyNew {
		out = append(out, "only in the new run: "+id)
	}
	return out
}
