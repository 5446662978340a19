package results_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/records"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/results/budget"
)

// junitChildren are the elements the JUnit schema allows under each element a CI system reads
// (the Ant/Jenkins junit-10 schema, as GitLab and GitHub actions read it).
var junitChildren = map[string][]string{
	"":           {"testsuites"},
	"testsuites": {"testsuite"},
	"testsuite":  {"properties", "testcase", "system-out", "system-err"},
	"testcase":   {"failure", "error", "skipped", "system-out", "system-err"},
	"failure":    nil,
}

// junitDoc is a JUnit document as read back: the attributes as text, to check they are numbers.
type junitDoc struct {
	Name     string `xml:"name,attr"`
	Tests    string `xml:"tests,attr"`
	Failures string `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    string `xml:"tests,attr"`
		Failures string `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit parses data as a CI system does and checks it against the schema's structure:
// elements only where the schema allows them, every testcase named, and the tests and
// failures counts of each suite and of the document equal to the testcases and failures in it.
func readJUnit(t *testing.T, data []byte) junitDoc {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(xml.Header)) {
		t.Errorf("no XML declaration: %.60q", data)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	parents := []string{""}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			parent := parents[len(parents)-1]
			allowed, ok := junitChildren[parent]
			if !ok || !contains(allowed, e.Name.Local) {
				t.Errorf("<%s> inside <%s>", e.Name.Local, parent)
			}
			parents = append(parents, e.Name.Local)
		case xml.EndElement:
			parents = parents[:len(parents)-1]
		}
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tests, failures := 0, 0
	for _, s := range doc.Suites {
		fails := 0
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" {
				t.Errorf("suite %s: a testcase without name or classname: %+v", s.Name, c)
			}
			if c.Failure != nil {
				fails++
				if c.Failure.Message == "" {
					t.Errorf("suite %s, testcase %s: a failure without message", s.Name, c.Name)
				}
			}
		}
		if s.Tests != strconv.Itoa(len(s.Cases)) || s.Failures != strconv.Itoa(fails) {
			t.Errorf("suite %s: tests=%q failures=%q, holds %d testcases, %d failing", s.Name, s.Tests, s.Failures, len(s.Cases), fails)
		}
		tests += len(s.Cases)
		failures += fails
	}
	if doc.Tests != strconv.Itoa(tests) || doc.Failures != strconv.Itoa(failures) {
		t.Errorf("testsuites: tests=%q failures=%q, holds %d testcases, %d failing", doc.Tests, doc.Failures, tests, failures)
	}
	return doc
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// failures lists the failing testcases of a document as "suite/testcase: type: message".
func failures(doc junitDoc) []string {
	var out []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				out = append(out, fmt.Sprintf("%s/%s: %s: %s", s.Name, c.Name, c.Failure.Type, c.Failure.Message))
			}
		}
	}
	return out
}

// TestReplayJUnit: a suite per arm with a testcase per case; a prompt that does not fit and an
// arm's error fail, and every input that could not be read is a failing testcase.
func TestReplayJUnit(t *testing.T) {
	r := &results.Report{Schema: results.Schema,
		Config: results.RunConfig{Arms: []records.Arm{{Name: "before"}, {Name: "after"}}},
		Cases: []results.Case{
			{ID: "big#0", File: "big.json", Arms: []results.ArmCase{
				{Arm: "before", PromptTokens: 300000, Context: 262144, Verdict: "the request exceeds the available context size"},
				{Arm: "after", PromptTokens: 900, Context: 262144, Fits: true},
			}},
			{ID: "small#0", File: "small.json", Arms: []results.ArmCase{{Arm: "before", PromptTokens: 100, Context: 262144, Fits: true}},
				Errors: []results.ArmError{{Arm: "after", Message: "picture <bad> & \x01 broken"}}},
		},
		Problems: []results.Problem{{Where: "broken.json:3:7", Message: "unexpected end of JSON input"}},
	}
	var b bytes.Buffer
	if err := results.ReportFormats().Write(&b, results.FormatJUnit, r, results.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := readJUnit(t, b.Bytes())
	got := strings.Join(failures(doc), "\n")
	want := strings.Join([]string{
		"before/big#0: context: prompt of 300,000 tokens does not fit the context of 262,144",
		"after/small#0: problem: picture <bad> & \uFFFD broken",
		"problems/broken.json:3:7: problem: unexpected end of JSON input",
	}, "\n")
	if got != want {
		t.Errorf("failures:\n%s\nwant:\n%s", got, want)
	}
	if doc.Tests != "5" || len(doc.Suites) != 3 || doc.Suites[0].Name != "before" || doc.Suites[1].Name != "after" {
		t.Errorf("suites %+v", doc)
	}
}

// TestBudgetJUnit: a testcase per budget; a crossed one fails with the measured figure and the
// bound, one that could not be computed says why.
func TestBudgetJUnit(t *testing.T) {
	file, err := budget.Parse("budgets.yaml", []byte("budgets:\n  prompt_tokens{arm:after}: sum <= 1000\n  prompt_tokens{arm:before}: sum < 500\n  image_rows{arm:gate}: sum == 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := &results.Report{Schema: results.Schema, Cases: []results.Case{{ID: "a", Arms: []results.ArmCase{
		{Arm: "before", PromptTokens: 1234, Fits: true}, {Arm: "after", PromptTokens: 900, Fits: true}}}}}
	v := budget.Evaluate(file, budget.Inputs{Names: []string{"results.json"}, Results: []*results.Results{{Report: rep}}})
	var b bytes.Buffer
	if err := budget.VerdictFormats().Write(&b, results.FormatJUnit, v, results.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := readJUnit(t, b.Bytes())
	got := strings.Join(failures(doc), "\n")
	want := "budgets.yaml/prompt_tokens{arm:before}: sum < 500: budget: measured 1,234, bound < 500\n" +
		"budgets.yaml/image_rows{arm:gate}: sum == 0: budget: no figure: no samples match the selector; bound == 0"
	if got != want {
		t.Errorf("failures:\n%s\nwant:\n%s", got, want)
	}
	if doc.Tests != "3" || doc.Failures != "2" {
		t.Errorf("tests %s, failures %s", doc.Tests, doc.Failures)
	}
	if text := doc.Suites[0].Cases[1].Failure.Text; !strings.HasPrefix(text, "budgets.yaml:3:") {
		t.Errorf("the failure's text does not locate the budget: %q", text)
	}
}
