package budget

import (
	"fmt"
	"io"

	"github.com/strata-eval/strata-eval/results"
)

// WriteJUnit writes the verdict as JUnit XML: one suite, the budgets file, with a testcase per
// budget; a crossed budget fails with the measured figure and the bound.
func (v Verdict) WriteJUnit(w io.Writer) error {
	s := results.JUnitSuite{Name: v.Budgets}
	for _, o := range v.Checks {
		c := results.JUnitCase{Name: o.Budget, Classname: v.Budgets}
		if !o.Passed {
			c.Failure = crossed(v.Budgets, o)
		}
		s.Cases = append(s.Cases, c)
	}
	return results.WriteJUnitXML(w, results.JUnitSuites{Name: "strata-eval budget check", Suites: []results.JUnitSuite{s}})
}

// crossed is the failure of a crossed budget: the figure measured (or why there is none) and
// the bound it crossed, at the budget's place in its file.
func crossed(file string, o Outcome) *results.JUnitFailure {
	bound := o.Op + " " + FormatValue(o.Threshold, o.Unit)
	msg := "no figure: " + o.Note + "; bound " + bound
	if o.Observed != nil {
		msg = "measured " + FormatValue(*o.Observed, o.Unit) + ", bound " + bound
	}
	return &results.JUnitFailure{Message: msg, Type: "budget", Text: fmt.Sprintf("%s:%d:%d: %s: %s", file, o.Line, o.Column, o.Budget, msg)}
}
