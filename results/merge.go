package results

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/records"
)

// ErrMissingShards is wrapped by Merge's error when the reports are shards of one run and
// some shard is absent; the merged report is still returned with the error.
var ErrMissingShards = errors.New("missing shards")

// Merge combines the reports of several runs of one configuration (typically the n shards of a
// `replay --shard i/n` run) into one report whose cases, problems and aggregates equal those of
// a single run over the same inputs, timings aside:
//
//   - the configurations must agree on everything that changes a count (tokenizer, template,
//     vision, context, turns, MCP delivery, arms); inputs are united by path and must agree on
//     their digests;
//   - cases are de-duplicated by id (the first report wins) and ordered by Case.Order, the
//     position a single run gives them;
//   - problems are united (a problem every shard met reading a shared input is kept once per
//     occurrence in a single report), read problems first, then those of failed cases in case
//     order, as replay lists them;
//   - Summary is recomputed with Summarize and scan timings with SummarizeScans; the wall time
//     is the longest of the reports' (shards run side by side).
//
// When every report is a shard i/n of the same n and some shard is absent, Merge returns the
// merged report and an error wrapping ErrMissingShards. Merge does not modify its arguments.
func Merge(reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("merge: no reports")
	}
	first := reports[0]
	for i, r := range reports {
		if r == nil {
			return nil, fmt.Errorf("merge: report %d is nil", i)
		}
		if r.Schema != first.Schema {
			return nil, fmt.Errorf("merge: report %d has schema %q, report 0 has %q", i, r.Schema, first.Schema)
		}
		if err := sameMeasurement(first.Config, r.Config); err != nil {
			return nil, fmt.Errorf("merge: report %d: %w", i, err)
		}
	}
	out := &Report{Schema: first.Schema, Config: first.Config}
	out.Config.Shard = ""
	out.Config.Arms = append(out.Config.Arms[:0:0], first.Config.Arms...)
	out.Config.Flags = make(map[string]string, len(first.Config.Flags))
	for k, v := range first.Config.Flags {
		out.Config.Flags[k] = v
	}
	if _, ok := out.Config.Flags["shard"]; ok {
		out.Config.Flags["shard"] = ""
	}
	inputs, err := mergeInputs(reports)
	if err != nil {
		return nil, err
	}
	out.Config.Inputs = inputs
	out.Config.VisionModels = mergeVisionModels(reports)

	seen := map[string]bool{}
	for _, r := range reports {
		for _, c := range r.Cases {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			out.Cases = append(out.Cases, c)
		}
	}
	sort.SliceStable(out.Cases, func(i, j int) bool { return out.Cases[i].Order < out.Cases[j].Order })

	out.Problems = mergeProblems(reports, out.Cases)
	names := make([]string, len(first.Config.Arms))
	for i, a := range first.Config.Arms {
		names[i] = a.Name
	}
	out.Summary = Summarize(out.Cases, names)
	var thumbs []records.Thumbnail
	for _, r := range reports {
		thumbs = append(thumbs, r.Thumbnails...)
		out.ThumbnailsCut = out.ThumbnailsCut || r.ThumbnailsCut
	}
	set := PageThumbnails(out.Cases, thumbs)
	out.Thumbnails, out.ThumbnailsCut = set.List, out.ThumbnailsCut || set.Cut
	out.Timings = mergeTimings(reports, out.Cases, names)
	for _, in := range out.Config.Inputs {
		out.Timings.InputBytes += in.Bytes
	}
	return out, missingShards(reports)
}

// sameMeasurement reports how b's configuration differs from a's in a way that changes counts.
func sameMeasurement(a, b RunConfig) error {
	fields := []struct{ name, a, b string }{
		{"tokenizer", a.Tokenizer, b.Tokenizer},
		{"template", a.Template, b.Template},
		{"template_date", a.TemplateDate, b.TemplateDate},
		{"vision", a.Vision, b.Vision},
		{"context", strconv.Itoa(a.Context), strconv.Itoa(b.Context)},
		{"turns", a.Turns, b.Turns},
		{"mcp_delivery", a.MCPDelivery, b.MCPDelivery},
		{"arms", armNames(a), armNames(b)},
	}
	for _, f := range fields {
		if f.a != f.b {
			return fmt.Errorf("config %s is %q, the first report's is %q", f.name, f.b, f.a)
		}
	}
	return nil
}

func armNames(c RunConfig) string {
	names := make([]string, len(c.Arms))
	for i, a := range c.Arms {
		names[i] = a.Name
	}
	return strings.Join(names, ",")
}

// mergeVisionModels unites the model ids of the reports (each shard names those of its own
// cases), by id.
func mergeVisionModels(reports []*Report) []VisionModel {
	var out []VisionModel
	seen := map[string]bool{}
	for _, r := range reports {
		for _, m := range r.Config.VisionModels {
			if !seen[m.Model] {
				seen[m.Model] = true
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// mergeInputs unites the inputs by path, in order of first appearance.
func mergeInputs(reports []*Report) ([]Input, error) {
	var out []Input
	byPath := map[string]Input{}
	for i, r := range reports {
		for _, in := range r.Config.Inputs {
			prev, ok := byPath[in.Path]
			if !ok {
				byPath[in.Path] = in
				out = append(out, in)
				continue
			}
			switch same, known := prev.SameContent(in); {
			case !known:
				return nil, fmt.Errorf("merge: report %d and an earlier report digest %s differently (%s, %s): whether the input changed cannot be told; replay both with the same strata-eval",
					i, in.Path, in.Digest(), prev.Digest())
			case !same:
				return nil, fmt.Errorf("merge: report %d read %s with %s, an earlier report with %s: the input changed between runs",
					i, in.Path, in.Digest(), prev.Digest())
			}
		}
	}
	return out, nil
}

// caseProblem is the problem replay records for a case that failed in some arm.
func caseProblem(c Case) string { return fmt.Sprintf("case %s: %s", c.ID, c.Error) }

// mergeProblems unites the read problems of the reports (each kept as many times as the report
// that has it most often) and lists the failed cases' problems after them, in case order.
func mergeProblems(reports []*Report, cases []Case) []Problem {
	caseMsgs := map[string]bool{}
	for _, r := range reports {
		for _, c := range r.Cases {
			if c.Error != "" {
				caseMsgs[caseProblem(c)] = true
			}
		}
	}
	most := map[Problem]int{}
	for _, r := range reports {
		count := map[Problem]int{}
		for _, p := range r.Problems {
			if !caseMsgs[p.Message] {
				count[p]++
			}
		}
		for p, n := range count {
			most[p] = max(most[p], n)
		}
	}
	var out []Problem
	kept := map[Problem]int{}
	for _, r := range reports {
		for _, p := range r.Problems {
			if caseMsgs[p.Message] || kept[p] >= most[p] {
				continue
			}
			kept[p]++
			out = append(out, p)
		}
	}
	// The case problems as replay words them, found again in the reports (for Where).
	where := map[string]string{}
	for _, r := range reports {
		for _, p := range r.Problems {
			if caseMsgs[p.Message] {
				if _, ok := where[p.Message]; !ok {
					where[p.Message] = p.Where
				}
			}
		}
	}
	for _, c := range cases {
		if c.Error == "" {
			continue
		}
		msg := caseProblem(c)
		w, ok := where[msg]
		if !ok {
			w = c.File
		}
		out = append(out, Problem{Where: w, Message: msg})
	}
	return out
}

// mergeTimings keeps the timings of the kept cases in case order and summarises them again.
func mergeTimings(reports []*Report, cases []Case, arms []string) Timings {
	pos := make(map[string]int, len(cases))
	for i, c := range cases {
		pos[c.ID] = i
	}
	var t Timings
	taken := map[[2]string]bool{}
	bytes := map[string]int64{}
	for _, r := range reports {
		for _, ct := range r.Timings.Cases {
			key := [2]string{ct.Case, ct.Arm}
			if _, ok := pos[ct.Case]; !ok || taken[key] {
				continue
			}
			taken[key] = true
			t.Cases = append(t.Cases, ct)
		}
		for _, s := range r.Timings.Scan {
			bytes[s.Arm] += s.Bytes
		}
		t.WallNanos = max(t.WallNanos, r.Timings.WallNanos)
	}
	sort.SliceStable(t.Cases, func(i, j int) bool { return pos[t.Cases[i].Case] < pos[t.Cases[j].Case] })
	t.Scan = SummarizeScans(t.Cases, bytes, arms)
	return t
}

// missingShards returns an error naming the absent shards when every report is a shard of
// the same count; nil otherwise.
func missingShards(reports []*Report) error {
	count := -1
	have := map[int]bool{}
	for _, r := range reports {
		a, b, ok := strings.Cut(r.Config.Shard, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || (count >= 0 && n != count) {
			return nil
		}
		count = n
		have[i] = true
	}
	var missing []string
	for i := 0; i < count; i++ {
		if !have[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("merge: %w: %s", ErrMissingShards, strings.Join(missing, ", "))
}
