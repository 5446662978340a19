package results

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteOptions shape the text forms of a report.
type WriteOptions struct {
	// Width is the width terminal tables are fitted to (0: DefaultWidth).
	Width int
	// Summary keeps only the summary tables (summary, scan time, problems): no per-case table,
	// no pictures table.
	Summary bool
}

// Header is the line printed before the tables: what counted and against what — tokenizer,
// chat template, vision family, context and engine (with the model and servers of a live one).
func Header(r *Report) string {
	c := r.Config
	parts := []string{"tokenizer " + orDash(c.Tokenizer), "template " + orDash(c.Template),
		"vision " + orDash(c.Vision), "context " + Thousands(int64(c.Context)), "engine " + orDash(c.Engine)}
	if c.Model != "" {
		parts = append(parts, "model "+c.Model)
	}
	if len(c.Endpoints) > 0 {
		parts = append(parts, "server "+strings.Join(c.Endpoints, ", "))
	}
	if c.Shard != "" {
		parts = append(parts, "shard "+c.Shard)
	}
	return strings.Join(parts, " · ")
}

// HeaderLines are the header line and, when each case's recorded model chose its vision
// family, a line per model id the recordings name: "model gpt-4.1 → openai/gpt-4.1-high (what
// it counts; the page it follows)", or the fallback family for an id that implies none.
func HeaderLines(r *Report) []string {
	lines := []string{Header(r)}
	for _, m := range r.Config.VisionModels {
		line := "model " + m.Model + " → " + m.Rule
		if m.Fallback {
			line += " (no hosted family for this id: the fallback)"
		}
		lines = append(lines, line)
	}
	return lines
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TextTables returns the tables of the text forms. Markdown, a document read from the top,
// starts with the summary: summary, scan times, per-case tables (unless Summary), the pictures
// in their compact form (unless Summary), problems. The terminal ends on the summary, which is
// then what stays on the screen: per-case tables, pictures, scan times, problems, summary.
func TextTables(r *Report, o WriteOptions, markdown bool) []Table {
	var cases, pictures, scan, problems []Table
	if !o.Summary {
		for _, c := range r.Cases {
			cases = append(cases, CaseTable(c))
		}
		if pt := CompactPictureTable(r); len(pt.Rows) > 0 {
			pictures = append(pictures, pt)
		}
	}
	if len(r.Timings.Scan) > 0 {
		if st := ScanTable(r); len(st.Rows) > 0 {
			scan = append(scan, st)
		}
	}
	if len(r.Problems) > 0 {
		problems = append(problems, ProblemTable(r))
	}
	summary := []Table{SummaryTable(r)}
	if markdown {
		return slices.Concat(summary, scan, cases, pictures, problems)
	}
	return slices.Concat(cases, pictures, scan, problems, summary)
}

// writeText writes the header and the tables; terminal tables are fitted to the width, their
// text columns wrapped.
func writeText(w io.Writer, r *Report, o WriteOptions, markdown bool) error {
	lines := HeaderLines(r)
	header := strings.Join(lines, "\n")
	if markdown {
		header = "_" + strings.Join(lines, "_\n\n_") + "_"
	}
	if _, err := fmt.Fprintf(w, "%s\n\n", header); err != nil {
		return err
	}
	ts := TextTables(r, o, markdown)
	if !markdown {
		width := o.Width
		if width <= 0 {
			width = DefaultWidth
		}
		for i, t := range ts {
			cols := TextColumns(t)
			if t.Title == "pictures" {
				cols[0].Max, cols[3].Max = 20, 14 // the case id is named once per taller group; "png 1280×800" over "1.5 MB"
			}
			ts[i] = FitTable(t, width, cols)
		}
	}
	return WriteTables(w, ts, markdown)
}
