package score

import (
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

func TestScore(t *testing.T) {
	tests := []struct {
		scorer, expected, answer string
		correct                  bool
		extracted                string
	}{
		{"exact", "12.40", " 12.40\n", true, ""},
		{"exact", "12.40", "The total is 12.40.", false, ""},
		{"normalized", "The Red Square", "red square!", true, ""},
		{"normalised", "blue", "Blue.", true, ""},
		{"normalized", "blue", "light blue", false, ""},
		{"contains", "7B", "The shelf code is 7B.", true, ""},
		{"contains", "7B", "The shelf code is 7b.", false, ""},
		{"icontains", "red", "It is RED.", true, ""},
		{"icontains", "chromium", "Firefox", false, ""},
		{"regex", `total (?:is|:) \$?(\d+\.\d{2})`, "The total is $12.40 today", true, "12.40"},
		{"regex", `lot \d{5}`, "lot 58213", true, "lot 58213"},
		{"regex", `^\d+$`, "about 12", false, ""},
		{"json", `{"a":1,"b":[true,null]}`, "```json\n{ \"b\": [true, null], \"a\": 1.0 }\n```", true, `{"b":[true,null],"a":1.0}`},
		{"json", `{"a":1}`, `Here you go: {"a": 1} hope it helps`, true, `{"a":1}`},
		{"json", `{"a":1}`, `{"a": 2}`, false, `{"a":2}`},
		{"json", `[1,2]`, "no json here", false, ""},
		{"numeric", "12.40", "The total is 12.4 euros", true, "12.4"},
		{"numeric", "1234.5", "The display shows 1,234.50", true, "1,234.50"},
		{"numeric", "100±5%", "about 104 items", true, "104"},
		{"numeric", "100+-1", "3 boxes of 102", false, "3"},
		{"numeric", "-3", "minus: −3", true, "−3"},
		{"one-of", "red|crimson|scarlet", "It's a crimson square.", true, "crimson"},
		{"one-of", "red|green", "It is reddish.", false, ""},
		{"one-of", "dark blue|navy", "Dark-blue, I think", true, "dark blue"},
	}
	for _, tc := range tests {
		got, err := Score(corpora.Expectation{Scorer: tc.scorer, Answer: tc.expected}, tc.answer)
		if err != nil {
			t.Errorf("%s %q on %q: %v", tc.scorer, tc.expected, tc.answer, err)
			continue
		}
		if got.Correct != tc.correct || got.Extracted != tc.extracted {
			t.Errorf("%s %q on %q = %+v, want correct %v extracted %q", tc.scorer, tc.expected, tc.answer, got, tc.correct, tc.extracted)
		}
	}
}

func TestScoreBadExpectation(t *testing.T) {
	for _, e := range []corpora.Expectation{
		{Scorer: "fuzzy", Answer: "x"},
		{Scorer: "regex", Answer: "(unclosed"},
		{Scorer: "json", Answer: "{nope"},
		{Scorer: "numeric", Answer: "twelve"},
		{Scorer: "numeric", Answer: "12±x"},
	} {
		if err := ValidateExpectation(e); err == nil {
			t.Errorf("%+v: no error", e)
		}
	}
}

func TestParseExpectations(t *testing.T) {
	yamlDoc := `
conv-1@4:
  question: What is the total?
  scorer: numeric
  answer: 12.40±0.01
conv-2:
  scorer: one-of
  answer: [red, crimson]
conv-3:
  scorer: json
  answer: {a: 1}
conv-4:
  answer: plain
`
	m, err := ParseExpectations("expect.yaml", []byte(yamlDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]corpora.Expectation{
		"conv-1@4": {Question: "What is the total?", Scorer: "numeric", Answer: "12.40±0.01"},
		"conv-2":   {Scorer: "one-of", Answer: "red|crimson"},
		"conv-3":   {Scorer: "json", Answer: `{"a":1}`},
		"conv-4":   {Scorer: "exact", Answer: "plain"},
	}
	for k, w := range want {
		if m[k] != w {
			t.Errorf("%s = %+v, want %+v", k, m[k], w)
		}
	}
	if e, ok := ExpectationFor(m, "conv-2@7", "conv-2"); !ok || e.Answer != "red|crimson" {
		t.Errorf("ExpectationFor by conversation id = %+v %v", e, ok)
	}
	jsonDoc := `{"a@2": {"question": "q", "scorer": "icontains", "answer": "Red"}}`
	if m, err := ParseExpectations("expect.json", []byte(jsonDoc)); err != nil || m["a@2"].Answer != "Red" {
		t.Errorf("JSON sidecar: %v %+v", err, m)
	}
	for doc, where := range map[string]string{
		"a:\n  scorer: regex\n  answer: \"(\"\n": "expect.yaml:2:",
		"a:\n  scorer: exact\n":                  "expect.yaml:2:",
		"- 1\n- 2\n":                             "expect.yaml:1:",
	} {
		_, err := ParseExpectations("expect.yaml", []byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), where) {
			t.Errorf("%q: error %v, want one starting %q", doc, err, where)
		}
	}
}

func FuzzScore(f *testing.F) {
	f.Add("numeric", "12.40±1%", "total 12.4")
	f.Add("json", `{"a":[1,2]}`, "```json\n{\"a\":[1,2]}\n```")
	f.Add("regex", `(\d+)`, "abc 42")
	f.Add("one-of", "a|b|", "B!")
	f.Fuzz(func(t *testing.T, scorer, expected, answer string) {
		_, _ = Score(corpora.Expectation{Scorer: scorer, Answer: expected}, answer)
		_ = NormalizeAnswer(answer)
	})
}
