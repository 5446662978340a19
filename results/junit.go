package results

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnitSuites is a JUnit XML document as CI systems read it (Jenkins, GitLab, GitHub
// actions): <testsuites> of <testsuite> of <testcase>, a failing one holding a <failure>.
// WriteJUnitXML fills in the counts.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one <testsuite>.
type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is one <testcase>; Failure is nil when it passed.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
}

// JUnitFailure is a <failure>: a one-line message, its kind and the details as text.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnitXML counts the tests and failures of every suite and of the document and writes it
// as indented XML with its declaration.
func WriteJUnitXML(w io.Writer, doc JUnitSuites) error {
	doc.Tests, doc.Failures = 0, 0
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Tests, s.Failures = len(s.Cases), 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				s.Failures++
			}
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJUnit writes a replay report as JUnit XML: a suite per arm holding a testcase per case
// (an arm that failed on the case, or whose prompt does not fit the context window, fails it),
// and a suite "problems" with a failing testcase per input that could not be read.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := JUnitSuites{Name: "strata-eval replay"}
	for _, arm := range reportArms(r) {
		s := JUnitSuite{Name: arm}
		for _, c := range r.Cases {
			s.Cases = append(s.Cases, JUnitCase{Name: c.ID, Classname: arm, Failure: armFailure(c, arm)})
		}
		doc.Suites = append(doc.Suites, s)
	}
	if len(r.Problems) > 0 {
		s := JUnitSuite{Name: "problems"}
		for _, p := range r.Problems {
			s.Cases = append(s.Cases, JUnitCase{Name: p.Where, Classname: "problems",
				Failure: &JUnitFailure{Message: p.Message, Type: "problem", Text: p.Where + ": " + p.Message}})
		}
		doc.Suites = append(doc.Suites, s)
	}
	return WriteJUnitXML(w, doc)
}

// reportArms are the arms of a report in table order: the configuration's, else those the
// summary names.
func reportArms(r *Report) []string {
	var arms []string
	for _, a := range r.Config.Arms {
		arms = append(arms, a.Name)
	}
	if len(arms) == 0 {
		for _, s := range r.Summary {
			arms = append(arms, s.Arm)
		}
	}
	return arms
}

// armFailure is the failure of a case in an arm: the errors of the arm (and of the whole case),
// else the context-window verdict of a prompt that does not fit; nil when it passed.
func armFailure(c Case, arm string) *JUnitFailure {
	var errs []string
	for _, e := range c.Errors {
		if e.Arm == "" || e.Arm == arm {
			errs = append(errs, e.Message)
		}
	}
	if len(errs) > 0 {
		return &JUnitFailure{Message: errs[0], Type: "problem", Text: c.File + ": " + strings.Join(errs, "\n")}
	}
	for _, a := range c.Arms {
		if a.Arm != arm || a.Fits {
			continue
		}
		msg := fmt.Sprintf("prompt of %s tokens does not fit the context of %s", Thousands(int64(a.PromptTokens)), Thousands(int64(a.Context)))
		text := a.Verdict
		if text == "" {
			text = msg
		}
		return &JUnitFailure{Message: msg, Type: "context", Text: c.File + ": " + text}
	}
	return nil
}
