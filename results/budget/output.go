package budget

import (
	"fmt"
	"io"

	"github.com/strata-eval/strata-eval/results"
)

// VerdictFormats are the output formats of a verdict (budget check; compare --budgets prints
// the verdict in its own format).
func VerdictFormats() results.Outputs[Verdict] {
	return results.Outputs[Verdict]{
		{Name: results.FormatTable, Help: "a row per budget, then the verdict", Write: func(w io.Writer, v Verdict, _ results.WriteOptions) error { return v.writeText(w, false) }},
		{Name: results.FormatMarkdown, Help: "the same as Markdown", Write: func(w io.Writer, v Verdict, _ results.WriteOptions) error { return v.writeText(w, true) }},
		{Name: results.FormatJSON, Help: "the verdict (" + VerdictSchema + ")", Write: func(w io.Writer, v Verdict, _ results.WriteOptions) error { return v.WriteJSON(w) }},
		{Name: results.FormatJUnit, Help: "JUnit XML for CI: a testcase per budget, a crossed one failing with the figure and the bound", Write: func(w io.Writer, v Verdict, _ results.WriteOptions) error { return v.WriteJUnit(w) }},
	}
}

// writeText prints the verdict as a table (or Markdown) and its summary line.
func (v Verdict) writeText(w io.Writer, markdown bool) error {
	if err := results.WriteTables(w, []results.Table{v.Table()}, markdown); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", v.Summary())
	return err
}
