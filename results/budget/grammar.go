// Package budget parses CI budgets (thresholds in the spirit of k6) and evaluates them against
// results files of `replay` and `bench scan`. One evaluator produces the Verdict from which
// the printed verdict, the JSON verdict and the exit code are all derived.
//
// A budgets file is YAML with one mapping, budgets, from a metric selector to one expression
// or a list of them:
//
//	budgets:
//	  prompt_tokens{arm:after}: sum <= 30838
//	  refused{arm:before}: [sum == 1]
//	  scan_over_read{payload:png_2MB}:
//	    - p(50) < 4
//	  scan_time{arm:after}: p(95) < 5ms
//	  correct{arm:after}: rate >= 0.99
//	  image_rows{arm:after}: delta <= 0     # against --baseline
//
// The grammar of selectors and expressions:
//
//	selector    = metric [ "{" filter { "," filter } "}" ]
//	filter      = key ":" value              (value: bare up to "," or "}", or "quoted")
//	expression  = aggregation op number [ unit ]
//	aggregation = "count" | "sum" | "min" | "max" | "avg" | "med" | "rate" | "value"
//	            | "p(" number ")" | "delta" [ "(" aggregation ")" ]
//	op          = "<" | "<=" | ">" | ">=" | "==" | "!="
//	unit        = "ns" | "us" | "µs" | "ms" | "s" | "%"
//
// A malformed budget is a *SyntaxError naming the file, line and column.
package budget

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	strsuggest "github.com/strata-eval/strata-eval/internal/suggest"
)

// SyntaxError is a malformed budget, located in its file (1-based line and column).
type SyntaxError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// File is a parsed budgets file.
type File struct {
	Path    string
	Budgets []Budget
}

// Budget is one expression on one metric selector.
type Budget struct {
	Metric string
	// Filter restricts the samples (arm, case, outcome, payload, …), in the order written.
	Filter []Filter
	// Source is the expression as written; Line and Column locate it in the file.
	Source string
	Line   int
	Column int
	Agg    Aggregation
	Op     string
	// Threshold is in the metric's base unit (nanoseconds for a duration, a fraction for %).
	Threshold float64
}

// Filter is one key:value condition of a selector.
type Filter struct {
	Key   string
	Value string
}

// Aggregation reduces a metric's samples to one number.
type Aggregation struct {
	// Name is count, sum, min, max, avg, med, rate, value or p.
	Name string
	// P is the percentile of "p" (0–100).
	P float64
	// Delta says the aggregation is taken of the current run minus the baseline run.
	Delta bool
}

// String writes the aggregation as in the grammar.
func (a Aggregation) String() string {
	s := a.Name
	if a.Name == "p" {
		s = "p(" + strconv.FormatFloat(a.P, 'g', -1, 64) + ")"
	}
	if a.Delta {
		return "delta(" + s + ")"
	}
	return s
}

// Selector writes the metric and its filter as in the grammar.
func (b Budget) Selector() string {
	if len(b.Filter) == 0 {
		return b.Metric
	}
	parts := make([]string, len(b.Filter))
	for i, f := range b.Filter {
		v := f.Value
		if strings.ContainsAny(v, ",}\" ") {
			v = strconv.Quote(v)
		}
		parts[i] = f.Key + ":" + v
	}
	return b.Metric + "{" + strings.Join(parts, ",") + "}"
}

// ReadFile reads and parses a budgets file.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a budgets file; name is used in error messages.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	errAt := func(n *yaml.Node, format string, args ...any) error {
		return &SyntaxError{File: name, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &SyntaxError{File: name, Line: 1, Column: 1, Msg: "empty budgets file; expected a mapping with the key budgets"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errAt(root, "expected a mapping with the key budgets")
	}
	var budgets *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Value != "budgets" {
			return nil, errAt(k, "unknown key %q; the file has one key, budgets", k.Value)
		}
		budgets = root.Content[i+1]
	}
	if budgets == nil {
		return nil, errAt(root, "no budgets key")
	}
	if budgets.Kind != yaml.MappingNode {
		return nil, errAt(budgets, "budgets must map a metric selector to expressions")
	}
	for i := 0; i+1 < len(budgets.Content); i += 2 {
		key, val := budgets.Content[i], budgets.Content[i+1]
		metric, filter, err := parseSelector(scalarText(name, key))
		if err != nil {
			return nil, err
		}
		var exprs []*yaml.Node
		switch val.Kind {
		case yaml.ScalarNode:
			exprs = []*yaml.Node{val}
		case yaml.SequenceNode:
			exprs = val.Content
			if len(exprs) == 0 {
				return nil, errAt(val, "no expression for %s", key.Value)
			}
		default:
			return nil, errAt(val, "expected an expression or a list of expressions for %s", key.Value)
		}
		for _, e := range exprs {
			if e.Kind != yaml.ScalarNode {
				return nil, errAt(e, "expected an expression such as \"p(95) < 1ms\"")
			}
			b, err := parseExpression(scalarText(name, e), metric)
			if err != nil {
				return nil, err
			}
			b.Metric, b.Filter = metric, filter
			b.Source, b.Line, b.Column = e.Value, e.Line, e.Column
			f.Budgets = append(f.Budgets, b)
		}
	}
	if len(f.Budgets) == 0 {
		return nil, errAt(budgets, "no budget in the file")
	}
	return f, nil
}

// yamlError turns a YAML error into a SyntaxError when it names a line.
func yamlError(name string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		rest := msg[strings.Index(msg, ":")+1:]
		return &SyntaxError{File: name, Line: line, Column: 1, Msg: strings.TrimSpace(rest)}
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return &SyntaxError{File: name, Line: 1, Column: 1, Msg: strings.Join(te.Errors, "; ")}
	}
	return &SyntaxError{File: name, Line: 1, Column: 1, Msg: msg}
}

// text is a scalar with the position of its first character, for error columns.
type text struct {
	file   string
	s      string
	line   int
	column int // of s[0]
	// exact says columns map one to one (a plain or single-line quoted scalar).
	exact bool
}

func scalarText(file string, n *yaml.Node) text {
	t := text{file: file, s: n.Value, line: n.Line, column: n.Column, exact: true}
	switch n.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		t.column++
		t.exact = !strings.ContainsAny(n.Value, "\\'\n")
	case yaml.LiteralStyle, yaml.FoldedStyle:
		t.line++
		t.exact = false
	}
	return t
}

// errAt reports a syntax error at byte offset i of the scalar.
func (t text) errAt(i int, format string, args ...any) error {
	col := t.column
	if t.exact {
		col += utf8.RuneCountInString(t.s[:min(max(i, 0), len(t.s))])
	}
	return &SyntaxError{File: t.file, Line: t.line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func ident(s string, i int) (string, int) {
	j := i
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return s[i:j], j
}

// parseSelector parses metric{key:value,...}.
func parseSelector(t text) (string, []Filter, error) {
	s := t.s
	i := skipSpace(s, 0)
	name, j := ident(s, i)
	if name == "" {
		return "", nil, t.errAt(i, "expected a metric name (%s)", strings.Join(MetricNames(), ", "))
	}
	m, ok := metrics[name]
	if !ok {
		return "", nil, t.errAt(i, "unknown metric %q%s; metrics: %s", name, suggest(name, MetricNames()), strings.Join(MetricNames(), ", "))
	}
	i = skipSpace(s, j)
	var filter []Filter
	if i < len(s) && s[i] == '{' {
		var err error
		if filter, i, err = parseFilters(t, i+1, name, m); err != nil {
			return "", nil, err
		}
	}
	i = skipSpace(s, i)
	if i < len(s) {
		return "", nil, t.errAt(i, "unexpected %q after the selector", s[i:])
	}
	return name, filter, nil
}

// parseFilters parses the key:value pairs of a selector's filter from i (after its '{') to its
// '}', each key one that metric m (named name) may be filtered by, once; it returns the index
// after the '}'.
func parseFilters(t text, i int, name string, m metric) ([]Filter, int, error) {
	s := t.s
	var filter []Filter
	seen := map[string]bool{}
	for {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == '}' && len(filter) == 0 {
			return filter, i + 1, nil
		}
		key, j := ident(s, i)
		if key == "" {
			return nil, 0, t.errAt(i, "expected a filter key (%s)", strings.Join(m.filters, ", "))
		}
		if !contains(m.filters, key) {
			return nil, 0, t.errAt(i, "metric %s cannot be filtered by %q; keys: %s", name, key, strings.Join(m.filters, ", "))
		}
		if seen[key] {
			return nil, 0, t.errAt(i, "filter key %q given twice", key)
		}
		seen[key] = true
		i = skipSpace(s, j)
		if i >= len(s) || s[i] != ':' {
			return nil, 0, t.errAt(i, "expected ':' after the filter key %q", key)
		}
		var value string
		var err error
		if value, i, err = parseFilterValue(t, skipSpace(s, i+1)); err != nil {
			return nil, 0, err
		}
		if value == "" {
			return nil, 0, t.errAt(i, "empty value for the filter key %q", key)
		}
		filter = append(filter, Filter{Key: key, Value: value})
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i < len(s) && s[i] == '}' {
			return filter, i + 1, nil
		}
		return nil, 0, t.errAt(i, "expected ',' or '}' in the filter")
	}
}

// parseFilterValue parses a filter value at i: a Go-quoted string, or the text up to the next
// ',' or '}' (trimmed). It returns the index after it.
func parseFilterValue(t text, i int) (string, int, error) {
	s := t.s
	if i >= len(s) || s[i] != '"' {
		k := i
		for k < len(s) && s[k] != ',' && s[k] != '}' {
			k++
		}
		return strings.TrimSpace(s[i:k]), k, nil
	}
	k := i + 1
	for k < len(s) && s[k] != '"' {
		if s[k] == '\\' {
			k++
		}
		k++
	}
	if k >= len(s) {
		return "", 0, t.errAt(i, "unterminated quoted filter value")
	}
	v, err := strconv.Unquote(s[i : k+1])
	if err != nil {
		return "", 0, t.errAt(i, "bad quoted filter value: %v", err)
	}
	return v, k + 1, nil
}

var aggregations = []string{"count", "sum", "min", "max", "avg", "med", "rate", "value", "p(N)", "delta"}

// parseAggregation parses one aggregation (not delta) at i.
func parseAggregation(t text, i int) (Aggregation, int, error) {
	s := t.s
	name, j := ident(s, i)
	switch name {
	case "count", "sum", "min", "max", "avg", "med", "rate", "value":
		return Aggregation{Name: name}, j, nil
	case "p":
		k := skipSpace(s, j)
		if k >= len(s) || s[k] != '(' {
			return Aggregation{}, 0, t.errAt(k, "expected '(' after p, as in p(95)")
		}
		k = skipSpace(s, k+1)
		num, end := scanNumber(s, k)
		if num == "" {
			return Aggregation{}, 0, t.errAt(k, "expected a percentile between 0 and 100 in p( )")
		}
		p, err := strconv.ParseFloat(num, 64)
		if err != nil || p < 0 || p > 100 {
			return Aggregation{}, 0, t.errAt(k, "percentile %s is not between 0 and 100", num)
		}
		end = skipSpace(s, end)
		if end >= len(s) || s[end] != ')' {
			return Aggregation{}, 0, t.errAt(end, "expected ')' to close p(")
		}
		return Aggregation{Name: "p", P: p}, end + 1, nil
	case "":
		return Aggregation{}, 0, t.errAt(i, "expected an aggregation (%s)", strings.Join(aggregations, ", "))
	}
	hint := suggest(name, []string{"count", "sum", "min", "max", "avg", "med", "rate", "value", "delta"})
	if len(name) > 1 && name[0] == 'p' && strings.Trim(name[1:], "0123456789.") == "" {
		hint = fmt.Sprintf(" (did you mean p(%s)?)", name[1:])
	}
	return Aggregation{}, 0, t.errAt(i, "unknown aggregation %q%s; aggregations: %s", name, hint, strings.Join(aggregations, ", "))
}

// scanNumber returns the number at i: an optional sign, digits with '_' separators, a
// fraction and an exponent.
func scanNumber(s string, i int) (string, int) {
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	digits := 0
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '.') {
		if s[j] != '_' && s[j] != '.' {
			digits++
		}
		j++
	}
	if digits == 0 {
		return "", i
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	return s[i:j], j
}

var ops = []string{"<=", ">=", "==", "!=", "<", ">"}

// parseExpression parses "aggregation op number [unit]" for a metric.
func parseExpression(t text, metric string) (Budget, error) {
	s := t.s
	m := metrics[metric]
	var b Budget
	i := skipSpace(s, 0)
	a, i, err := parseBudgetAggregation(t, i, m)
	if err != nil {
		return b, err
	}
	b.Agg = a
	if b.Agg.Name == "rate" && m.kind != kindBool {
		return b, t.errAt(0, "rate is the fraction of true samples; %s is not a yes/no metric (%s are)", metric, strings.Join(boolMetrics(), ", "))
	}
	i = skipSpace(s, i)
	opStart := i
	for _, op := range ops {
		if strings.HasPrefix(s[i:], op) {
			b.Op = op
			i += len(op)
			break
		}
	}
	if b.Op == "" {
		if i < len(s) && s[i] == '=' {
			return b, t.errAt(opStart, "'=' is not an operator; use ==")
		}
		return b, t.errAt(opStart, "expected an operator (<, <=, >, >=, ==, !=) after %s", b.Agg)
	}
	i = skipSpace(s, i)
	numStart := i
	num, end := scanNumber(s, i)
	if num == "" {
		return b, t.errAt(i, "expected a number after %s", b.Op)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", ""), 64)
	if err != nil || math.IsInf(v, 0) {
		return b, t.errAt(numStart, "%q is not a number", num)
	}
	unit, unitStart, i := scanUnit(s, end)
	scaled, err := applyUnit(v, unit, m, b.Agg)
	if err != nil {
		return b, t.errAt(unitStart, "%v", err)
	}
	b.Threshold = scaled
	i = skipSpace(s, i)
	if i < len(s) {
		return b, t.errAt(i, "unexpected %q after the threshold", s[i:])
	}
	return b, nil
}

// parseBudgetAggregation parses the aggregation of a budget on metric m at i: delta (of the
// metric's natural aggregation) or delta(aggregation), or an aggregation. It returns the index
// after it.
func parseBudgetAggregation(t text, i int, m metric) (Aggregation, int, error) {
	s := t.s
	name, j := ident(s, i)
	if name != "delta" {
		return parseAggregation(t, i)
	}
	agg := Aggregation{Name: m.natural.Name, P: m.natural.P}
	k := skipSpace(s, j)
	if k < len(s) && s[k] == '(' {
		a, end, err := parseAggregation(t, skipSpace(s, k+1))
		if err != nil {
			return agg, 0, err
		}
		end = skipSpace(s, end)
		if end >= len(s) || s[end] != ')' {
			return agg, 0, t.errAt(end, "expected ')' to close delta(")
		}
		agg, j = a, end+1
	}
	agg.Delta = true
	return agg, j, nil
}

// scanUnit returns the unit of a threshold whose number ends at i: the text right after the
// number, else the next word (not a comment), with where it starts and the index after it.
func scanUnit(s string, i int) (unit string, unitStart, end int) {
	unitStart = i
	for i < len(s) && s[i] != ' ' && s[i] != '\t' {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	unit = s[unitStart:i]
	if unit == "" {
		unitStart = skipSpace(s, i)
		if unitStart < len(s) && !strings.HasPrefix(s[unitStart:], "#") {
			j := unitStart
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			unit, i = s[unitStart:j], j
		}
	}
	return unit, unitStart, i
}

// durationUnits are the time units in nanoseconds.
var durationUnits = map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}

// applyUnit scales a threshold to the metric's base unit and checks that the unit fits.
func applyUnit(v float64, unit string, m metric, a Aggregation) (float64, error) {
	dimensionless := a.Name == "count" || a.Name == "rate"
	if unit == "%" {
		if m.kind == kindTime && !dimensionless {
			return 0, errors.New("a duration cannot be a percentage; give ns, µs, ms or s")
		}
		return v / 100, nil
	}
	if f, ok := durationUnits[unit]; ok {
		if m.kind != kindTime || dimensionless {
			return 0, fmt.Errorf("unit %q is a duration, but %s of this metric is not", unit, a)
		}
		return v * f, nil
	}
	if unit != "" {
		return 0, fmt.Errorf("unknown unit %q; units: ns, µs, ms, s, %%", unit)
	}
	if m.kind == kindTime && !dimensionless && v != 0 {
		return 0, fmt.Errorf("%s of a duration needs a unit: ns, µs, ms or s", a)
	}
	return v, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// suggest returns " (did you mean X?)" for the closest name within two edits.
func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := strsuggest.Distance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// MetricNames lists the metrics a budget can name, sorted.
func MetricNames() []string {
	var out []string
	for n := range metrics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func boolMetrics() []string {
	var out []string
	for _, n := range MetricNames() {
		if metrics[n].kind == kindBool {
			out = append(out, n)
		}
	}
	return out
}
