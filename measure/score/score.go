// Package score checks a model's answer against a case's expectation: exact, normalised,
// contains, regular expression, JSON and numeric scorers.
package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/strata-eval/strata-eval/corpora"
)

// Scorer names (corpora.Expectation.Scorer).
const (
	ScoreExact      = "exact"      // the answer, trimmed, equals the expected text
	ScoreNormalized = "normalized" // equal after lower-casing, dropping punctuation and articles, folding spaces
	ScoreContains   = "contains"   // the answer contains the expected text
	ScoreIContains  = "icontains"  // the same, ignoring case
	ScoreRegex      = "regex"      // the expected text is a regular expression the answer matches
	ScoreJSON       = "json"       // the answer's JSON value equals the expected one
	ScoreNumeric    = "numeric"    // a number in the answer is within a tolerance of the expected one
	ScoreOneOf      = "one-of"     // the normalised answer holds one of the "|"-separated options as words
)

// Scorers lists the scorer names.
func Scorers() []string {
	return []string{ScoreExact, ScoreNormalized, ScoreContains, ScoreIContains, ScoreRegex, ScoreJSON, ScoreNumeric, ScoreOneOf}
}

// ScoreResult is the verdict of a scorer on one answer.
type ScoreResult struct {
	Correct bool `json:"correct"`
	// Extracted is the part of the answer the scorer judged: a regex's first capture group
	// (or whole match), the number or JSON value found.
	Extracted string `json:"extracted,omitempty"`
}

// Score judges an answer against an expectation. An unknown scorer or an expectation that is
// not valid for its scorer (a bad regex, invalid JSON, not a number) is an error; an answer
// that cannot be read the scorer's way is simply not correct.
func Score(e corpora.Expectation, answer string) (ScoreResult, error) {
	scorer := strings.ToLower(strings.TrimSpace(e.Scorer))
	switch scorer {
	case "", ScoreExact:
		return ScoreResult{Correct: strings.TrimSpace(answer) == strings.TrimSpace(e.Answer)}, nil
	case ScoreNormalized, "normalised", "normalized-exact":
		return ScoreResult{Correct: NormalizeAnswer(answer) == NormalizeAnswer(e.Answer)}, nil
	case ScoreContains:
		return ScoreResult{Correct: strings.Contains(answer, e.Answer)}, nil
	case ScoreIContains:
		return ScoreResult{Correct: strings.Contains(strings.ToLower(answer), strings.ToLower(e.Answer))}, nil
	case ScoreRegex:
		return scoreRegex(e.Answer, answer)
	case ScoreJSON:
		return scoreJSON(e.Answer, answer)
	case ScoreNumeric:
		return scoreNumeric(e.Answer, answer)
	case ScoreOneOf, "oneof", "one_of":
		return scoreOneOf(e.Answer, answer), nil
	}
	return ScoreResult{}, fmt.Errorf("unknown scorer %q (known: %s)", e.Scorer, strings.Join(Scorers(), ", "))
}

// ValidateExpectation checks that an expectation's scorer is known and its answer is valid
// for it.
func ValidateExpectation(e corpora.Expectation) error {
	_, err := Score(e, "")
	return err
}

var articles = map[string]bool{"a": true, "an": true, "the": true}

// NormalizeAnswer lower-cases s, turns punctuation into spaces, drops the articles a, an and
// the, and joins the words with single spaces.
func NormalizeAnswer(s string) string {
	s = strings.ToLower(s)
	words := strings.FieldsFunc(s, func(r rune) bool {
		if r == '.' || r == ',' { // keep decimal and thousands marks inside numbers
			return false
		}
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
	})
	out := words[:0]
	for _, w := range words {
		w = strings.Trim(w, ".,")
		if w == "" || articles[w] {
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func scoreRegex(pattern, answer string) (ScoreResult, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return ScoreResult{}, fmt.Errorf("regex scorer: %w", err)
	}
	m := re.FindStringSubmatch(answer)
	if m == nil {
		return ScoreResult{}, nil
	}
	r := ScoreResult{Correct: true, Extracted: m[0]}
	if len(m) > 1 {
		r.Extracted = m[1]
	}
	return r, nil
}

// jsonInAnswer finds the JSON value of an answer: the whole answer, a fenced code block, or
// the first object or array in the text.
func jsonInAnswer(answer string) (any, string, bool) {
	s := strings.TrimSpace(answer)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			s = strings.TrimSpace(rest[:j])
		}
	}
	if v, ok := decodeJSON(s); ok {
		return v, s, true
	}
	for i, r := range s {
		if r != '{' && r != '[' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return normalizeNumbers(v), s[i : i+int(dec.InputOffset())], true
		}
	}
	return nil, "", false
}

func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return normalizeNumbers(v), true
}

// normalizeNumbers turns json.Number into float64 so that 1, 1.0 and 1e0 are equal.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

func scoreJSON(expected, answer string) (ScoreResult, error) {
	want, ok := decodeJSON(strings.TrimSpace(expected))
	if !ok {
		return ScoreResult{}, fmt.Errorf("json scorer: expected answer %q is not one JSON value", expected)
	}
	got, text, ok := jsonInAnswer(answer)
	if !ok {
		return ScoreResult{}, nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(text)) == nil {
		text = compact.String()
	}
	return ScoreResult{Correct: reflect.DeepEqual(want, got), Extracted: text}, nil
}

// numberPattern matches a decimal number with optional sign, thousands commas and exponent.
var numberPattern = regexp.MustCompile(`[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+−]?\.\d+`)

func parseNumber(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), "−", "-")
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// parseTolerance reads "VALUE", "VALUE±TOL", "VALUE+-TOL" or "VALUE±P%": the value and the
// largest allowed difference (1e-9 relative when none is given).
func parseTolerance(expected string) (value, tol float64, err error) {
	s := strings.TrimSpace(expected)
	var tolText string
	for _, sep := range []string{"±", "+-", "+/-"} {
		if i := strings.Index(s, sep); i >= 0 {
			s, tolText = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(sep):])
			break
		}
	}
	value, ok := parseNumber(s)
	if !ok {
		return 0, 0, fmt.Errorf("numeric scorer: expected answer %q is not a number (VALUE, VALUE±TOL or VALUE±P%%)", expected)
	}
	if tolText == "" {
		return value, 1e-9 * math.Max(1, math.Abs(value)), nil
	}
	pct := strings.HasSuffix(tolText, "%")
	t, ok := parseNumber(strings.TrimSuffix(tolText, "%"))
	if !ok || t < 0 {
		return 0, 0, fmt.Errorf("numeric scorer: tolerance %q of %q is not a non-negative number", tolText, expected)
	}
	if pct {
		t = math.Abs(value) * t / 100
	}
	return value, t, nil
}

func scoreNumeric(expected, answer string) (ScoreResult, error) {
	want, tol, err := parseTolerance(expected)
	if err != nil {
		return ScoreResult{}, err
	}
	var first string
	for _, m := range numberPattern.FindAllString(answer, -1) {
		got, ok := parseNumber(m)
		if !ok {
			continue
		}
		if first == "" {
			first = m
		}
		if math.Abs(got-want) <= tol {
			return ScoreResult{Correct: true, Extracted: m}, nil
		}
	}
	return ScoreResult{Extracted: first}, nil
}

func scoreOneOf(options, answer string) ScoreResult {
	got := " " + NormalizeAnswer(answer) + " "
	for _, o := range strings.Split(options, "|") {
		n := NormalizeAnswer(o)
		if n != "" && strings.Contains(got, " "+n+" ") {
			return ScoreResult{Correct: true, Extracted: strings.TrimSpace(o)}
		}
	}
	return ScoreResult{}
}
