package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/jsonquote"
)

// MCPHardResultCapChars is the source agent's hard cap on an MCP result's text, in code points
// (docs/pipeline.md §5.4).
const MCPHardResultCapChars = 2_000_000

// IsReservedMetaKey reports whether a `_meta` key has a protocol-reserved prefix under either
// rule of the MCP specification (docs/pipeline.md §8.2): the 2025-06-18 rule (a label
// `modelcontextprotocol` or `mcp` that is not the last label of the prefix, which is what the
// source agent implements) or the 2025-11-25/2026-07-28 rule (the second label is
// `modelcontextprotocol` or `mcp`). Matching is case-sensitive.
func IsReservedMetaKey(key string) bool {
	return IsReservedMetaKey20250618(key) || IsReservedMetaKeySecondLabel(key)
}

// metaPrefixLabels returns the labels of a key's prefix (the part before the first '/'), or
// nil when the key has no prefix or starts with '/'.
func metaPrefixLabels(key string) []string {
	slash := strings.IndexByte(key, '/')
	if slash <= 0 {
		return nil
	}
	return strings.Split(key[:slash], ".")
}

func isReservedLabel(label string) bool { return label == "modelcontextprotocol" || label == "mcp" }

// IsReservedMetaKey20250618 is the source agent's predicate: some prefix label equals
// `modelcontextprotocol` or `mcp` and is not the last label.
func IsReservedMetaKey20250618(key string) bool {
	labels := metaPrefixLabels(key)
	for i := 0; i+1 < len(labels); i++ {
		if isReservedLabel(labels[i]) {
			return true
		}
	}
	return false
}

// IsReservedMetaKeySecondLabel is the 2025-11-25/2026-07-28 rule: the prefix's second label is
// `modelcontextprotocol` or `mcp`.
func IsReservedMetaKeySecondLabel(key string) bool {
	labels := metaPrefixLabels(key)
	return len(labels) >= 2 && isReservedLabel(labels[1])
}

// FilterMeta keeps the `_meta` entries the model may see: raw must be a JSON object (anything
// else is ignored, as the source agent does), reserved keys are dropped, key order is kept.
// It returns nil when nothing remains.
func FilterMeta(raw json.RawMessage) *OrderedObject {
	v, err := ParseOrderedJSON(raw)
	if err != nil {
		return nil
	}
	obj, ok := v.(*OrderedObject)
	if !ok {
		return nil
	}
	out := &OrderedObject{}
	for i, k := range obj.Keys {
		if !IsReservedMetaKey(k) {
			out.Set(k, obj.Values[i])
		}
	}
	if len(out.Keys) == 0 {
		return nil
	}
	return out
}

// OrderedObject is a JSON object that keeps its keys in insertion order, as a Python dict does.
type OrderedObject struct {
	Keys   []string
	Values []any
}

// Set sets key to v; an existing key keeps its position (Python dict semantics).
func (o *OrderedObject) Set(key string, v any) {
	for i, k := range o.Keys {
		if k == key {
			o.Values[i] = v
			return
		}
	}
	o.Keys = append(o.Keys, key)
	o.Values = append(o.Values, v)
}

// Get returns the value of key.
func (o *OrderedObject) Get(key string) (any, bool) {
	for i, k := range o.Keys {
		if k == key {
			return o.Values[i], true
		}
	}
	return nil, false
}

// pyNumberLit is a JSON number kept as its literal, so that integers of any size survive.
type pyNumberLit string

// ParseOrderedJSON decodes one JSON value into nil, bool, string, pyNumberLit, []any and
// *OrderedObject, keeping object key order. Trailing data is an error.
func ParseOrderedJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseOrderedValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value at byte %d", dec.InputOffset())
	}
	return v, nil
}

const metaMaxJSONDepth = 10000

func parseOrderedValue(dec *json.Decoder, depth int) (any, error) {
	if depth > metaMaxJSONDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d at byte %d", metaMaxJSONDepth, dec.InputOffset())
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("JSON at byte %d: %w", dec.InputOffset(), err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &OrderedObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("JSON at byte %d: %w", dec.InputOffset(), err)
				}
				key, _ := kt.(string)
				v, err := parseOrderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("JSON at byte %d: %w", dec.InputOffset(), err)
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseOrderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("JSON at byte %d: %w", dec.InputOffset(), err)
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %q at byte %d", t, dec.InputOffset())
	case json.Number:
		return pyNumberLit(t), nil
	default:
		return t, nil // nil, bool, string
	}
}

// PyJSON writes v as Python's json.dumps(v, ensure_ascii=False) would: separators ", " and
// ": ", insertion key order, no HTML escaping, short escapes for \b \f \n \r \t, other
// control characters as \u00xx, floats in Python repr form (docs/pipeline.md §8.3).
func PyJSON(v any) string {
	var b strings.Builder
	writePyJSON(&b, v)
	return b.String()
}

func writePyJSON(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writePyString(b, t)
	case pyNumberLit:
		b.WriteString(pyNumber(string(t)))
	case int:
		b.WriteString(strconv.Itoa(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case float64:
		b.WriteString(pyFloat(t))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, e)
		}
		b.WriteByte(']')
	case *OrderedObject:
		b.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			writePyJSON(b, t.Values[i])
		}
		b.WriteByte('}')
	default:
		writePyString(b, fmt.Sprint(t))
	}
}

// writePyString writes s as Python's json.dumps(ensure_ascii=False) quotes a string; a byte
// that is not UTF-8 becomes U+FFFD.
func writePyString(b *strings.Builder, s string) {
	jsonquote.Write(b, s, jsonquote.InvalidAsRune)
}

// pyNumber re-renders a JSON number literal as Python's json.loads then json.dumps would:
// integers stay exact, anything with a fraction or exponent becomes a float in repr form.
func pyNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if lit == "-0" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return lit
	}
	return pyFloat(f)
}

// pyFloat formats f as Python's float repr: the shortest round-trip digits, fixed notation
// for exponents -4 ≤ e < 16 (with ".0" when integral), else d.ddde±XX.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±dd
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		out += fmt.Sprintf("e%s%02d", sign, exp)
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if len(digits) <= exp+1 {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// MCPEnvelopeInput is what the source agent's MCP handler folds into the JSON string the
// model reads (docs/pipeline.md §8.3).
type MCPEnvelopeInput struct {
	// Text is the rendered content (blocks joined by newlines, TAG-stripped).
	Text string
	// TextBlocks are the rendered text blocks, for the dual-emit dedupe of structuredContent.
	TextBlocks []string
	// Usable says whether at least one block rendered to non-whitespace text.
	Usable bool
	// Structured is the result's structuredContent as recorded (nil when absent).
	Structured json.RawMessage
	// Meta is the result's _meta as recorded (nil when absent).
	Meta json.RawMessage
}

// MCPEnvelope renders the handler's JSON string the source agent puts in the tool message:
// {"result": text}, plus structuredContent (unless it duplicates a text block or was
// truncated next to usable text) and the filtered `_meta` (omitted when empty), in the key
// order of docs/pipeline.md §8.3, formatted as Python's json.dumps(ensure_ascii=False).
func MCPEnvelope(in MCPEnvelopeInput) string {
	var structured any
	hasStructured := false
	truncatedStandIn := false
	if len(bytes.TrimSpace(in.Structured)) > 0 {
		if v, err := ParseOrderedJSON(in.Structured); err == nil && v != nil {
			structured, hasStructured = v, true
			if s := PyJSON(v); utf8.RuneCountInString(s) > MCPHardResultCapChars {
				structured, truncatedStandIn = TruncateMCPText(s), true
			}
		}
	}
	if hasStructured && in.Usable {
		if truncatedStandIn {
			hasStructured = false
		} else {
			canonical := PyJSON(structured)
			for _, block := range in.TextBlocks {
				if v, err := ParseOrderedJSON([]byte(block)); err == nil && pyJSONEqual(v, structured, canonical) {
					hasStructured = false
					break
				}
			}
		}
	}
	meta := FilterMeta(in.Meta)
	out := &OrderedObject{}
	if !hasStructured && meta == nil {
		out.Set("result", in.Text)
		return PyJSON(out)
	}
	resultSet := false
	if in.Text != "" {
		out.Set("result", in.Text)
		resultSet = true
	}
	if hasStructured {
		if in.Text != "" {
			out.Set("structuredContent", structured)
		} else {
			out.Set("result", structured)
			resultSet = true
		}
	}
	if meta != nil {
		out.Set("_meta", meta)
	}
	if !resultSet {
		out.Set("result", "")
	}
	return PyJSON(out)
}

// pyJSONEqual compares two decoded JSON values as Python's == on json.loads results would:
// objects regardless of key order, numbers by value.
func pyJSONEqual(a, b any, _ string) bool {
	switch x := a.(type) {
	case *OrderedObject:
		y, ok := b.(*OrderedObject)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for i, k := range x.Keys {
			w, ok := y.Get(k)
			if !ok || !pyJSONEqual(x.Values[i], w, "") {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyJSONEqual(x[i], y[i], "") {
				return false
			}
		}
		return true
	case pyNumberLit:
		y, ok := b.(pyNumberLit)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, err1 := strconv.ParseFloat(string(x), 64)
		fy, err2 := strconv.ParseFloat(string(y), 64)
		return err1 == nil && err2 == nil && fx == fy
	default:
		return a == b
	}
}

// TruncateMCPText applies the source agent's MCP hard cap (docs/pipeline.md §5.4): text
// over MCPHardResultCapChars code points keeps 40% head and 60% tail around a notice.
func TruncateMCPText(s string) string {
	if utf8.RuneCountInString(s) <= MCPHardResultCapChars {
		return s
	}
	// Over the cap, bytes that are not UTF-8 become U+FFFD (one per byte), as the cut counts
	// them.
	parts := []corpora.Part{{Kind: corpora.PartText, Text: string([]rune(s))}}
	capMCPText(parts, MCPHardResultCapChars)
	return parts[0].Text
}
