package corpora

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// AI SDK eras of the string an OpenAI-compatible Vercel-AI-SDK client sends for an MCP result.
const (
	// AISDKEraContent is @ai-sdk/mcp 1.0.16 and later (Chatbox 1.19/1.20): the result becomes a
	// `content` tool output, rendered as a JSON array of text and image-data parts.
	AISDKEraContent = "content"
	// AISDKEraJSON is the AI SDK 4/5 MCP client (Chatbox 1.14–1.18): the result becomes a `json`
	// tool output, rendered as JSON.stringify of the whole CallToolResult.
	AISDKEraJSON = "json"
)

// StringifyAISDK returns the exact string an OpenAI-compatible Vercel-AI-SDK client puts into
// the `content` of the tool message for res (docs/pipeline.md §11.3).
//
// Era "content" (AISDKEraContent, the default for any other value but "json"): a compact JSON
// array with one element per block: a text block becomes {"type":"text","text":…}, an image
// block {"type":"image-data","data":…,"mediaType":…}, any other block
// {"type":"text","text":JSON.stringify(block)} with the block's recorded bytes re-serialised as
// JSON.stringify would (recorded key order). A result without a content array renders as the
// `json` output: JSON.stringify of the result.
//
// Era "json" (AISDKEraJSON): JSON.stringify of the whole recorded result, key order kept.
//
// Strings are escaped as JavaScript's JSON.stringify escapes them, not as encoding/json does.
func StringifyAISDK(res *CallToolResult, era string) string {
	if res == nil {
		return ""
	}
	if era == AISDKEraJSON || (res.Content == nil && len(res.Raw) > 0) {
		out, err := jsAppendStringified(nil, res.Raw)
		if err != nil {
			return string(res.Raw)
		}
		return string(out)
	}
	var b []byte
	b = append(b, '[')
	for i := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAISDKBlock(b, &res.Content[i])
	}
	b = append(b, ']')
	return string(b)
}

// appendAISDKBlock appends the @ai-sdk/mcp 1.0.16+ model-output element of one MCP block.
func appendAISDKBlock(b []byte, blk *Block) []byte {
	switch blk.Type {
	case "text":
		b = append(b, `{"type":"text","text":`...)
		// A lone surrogate escape decodes to U+FFFD in Text; only then re-read the raw text.
		if !strings.Contains(blk.Text, "\uFFFD") {
			b = jsAppendString(b, blk.Text)
			return append(b, '}')
		}
		if v, ok := jsRawMember(blk.Raw, "text"); ok && len(v) > 0 && v[0] == '"' {
			if out, err := jsAppendStringified(b, v); err == nil {
				return append(out, '}')
			}
		}
		b = jsAppendString(b, blk.Text)
		return append(b, '}')
	case "image":
		b = append(b, `{"type":"image-data","data":`...)
		b = jsAppendString(b, blk.Data)
		if blk.MimeType != "" || jsHasMember(blk.Raw, "mimeType") {
			b = append(b, `,"mediaType":`...)
			b = jsAppendString(b, blk.MimeType)
		}
		return append(b, '}')
	}
	var inner []byte
	var err error
	if len(blk.Raw) > 0 {
		inner, err = jsAppendStringified(nil, blk.Raw)
	}
	if len(blk.Raw) == 0 || err != nil {
		inner = []byte(`{"type":` + string(jsAppendString(nil, blk.Type)) + `}`)
	}
	b = append(b, `{"type":"text","text":`...)
	b = jsAppendString(b, string(inner))
	return append(b, '}')
}

// jsAppendString appends s as JavaScript's JSON.stringify writes a string: only `"`, `\`,
// \b \f \n \r \t and other control characters (as lowercase \u00xx) are escaped, and lone
// surrogates (carried as their 3-byte WTF-8 form) become \udxxx; everything else is verbatim
// UTF-8. Bytes that are not UTF-8 become U+FFFD, as a browser's decoder would make them.
func jsAppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = jsAppendStringBody(b, s)
	return append(b, '"')
}

const jsHexDigits = "0123456789abcdef"

func jsAppendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', jsHexDigits[c>>4], jsHexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		if sur, ok := jsWTF8Surrogate(s[i:]); ok {
			b = append(b, '\\', 'u', jsHexDigits[sur>>12], jsHexDigits[(sur>>8)&0xf], jsHexDigits[(sur>>4)&0xf], jsHexDigits[sur&0xf])
			i += 3
		} else {
			b = append(b, "\uFFFD"...)
			i++
		}
		start = i
	}
	return append(b, s[start:]...)
}

// jsWTF8Surrogate decodes a surrogate code point written as three generalized-UTF-8 bytes.
func jsWTF8Surrogate(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2] < 0x80 || s[2] > 0xBF {
		return 0, false
	}
	return rune(s[0]&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}

// jsAppendWTF8Surrogate appends a lone surrogate in its 3-byte generalized-UTF-8 form.
func jsAppendWTF8Surrogate(b []byte, r rune) []byte {
	return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
}

// jsAppendStringified appends JSON.stringify(JSON.parse(raw)): compact, strings escaped the
// JavaScript way, numbers as JavaScript prints them, duplicate keys resolved as JSON.parse does
// (last value, first position) and integer-like keys first in ascending order, as a JavaScript
// object orders them.
func jsAppendStringified(b []byte, raw []byte) ([]byte, error) {
	s := jsScan{b: raw}
	out, err := s.stringify(b)
	if err != nil {
		return b, err
	}
	s.skipSpace()
	if s.i != len(s.b) {
		return b, s.errorf("unexpected data after the JSON value")
	}
	return out, nil
}

// jsMaxDepth bounds the nesting the hand-written scanners follow (encoding/json's limit).
const jsMaxDepth = 10000

// jsScan walks raw JSON bytes. It never panics; malformed input gives an error naming the
// byte offset.
type jsScan struct {
	b     []byte
	i     int
	depth int
}

func (s *jsScan) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *jsScan) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// skipValue moves past one JSON value and returns its bytes.
func (s *jsScan) skipValue() ([]byte, error) {
	s.skipSpace()
	start := s.i
	if s.i >= len(s.b) {
		return nil, s.errorf("unexpected end of JSON")
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		if s.depth++; s.depth > jsMaxDepth {
			return nil, s.errorf("nested too deeply")
		}
		defer func() { s.depth-- }()
		err := s.container("", nil, func() error {
			_, err := s.skipValue()
			return err
		})
		if err != nil {
			return nil, err
		}
		return s.b[start:s.i], nil
	case c == '"':
		return s.rawString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	default:
		return nil, s.errorf("unexpected %q", c)
	}
}

// container moves through the array or object that opens at s.i, up to and past its closing
// bracket. For an object member, key (when not nil) gets the key's raw string token, then
// value is called after the ':'; for an array element value is called at once. value must
// move past the value. in ends the message about an unexpected byte between values
// (" in array"; "" for none).
func (s *jsScan) container(in string, key func(raw []byte) error, value func() error) error {
	isObject := s.b[s.i] == '{'
	closer := byte(']')
	if isObject {
		closer = '}'
	}
	s.i++
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == closer {
		s.i++
		return nil
	}
	for {
		if isObject {
			s.skipSpace()
			raw, err := s.rawString()
			if err != nil {
				return err
			}
			if key != nil {
				if err := key(raw); err != nil {
					return err
				}
			}
			s.skipSpace()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return s.errorf("missing ':' after object key")
			}
			s.i++
		}
		if err := value(); err != nil {
			return err
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.errorf("unexpected end of JSON")
		}
		if s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.b[s.i] == closer {
			s.i++
			return nil
		}
		return s.errorf("unexpected %q%s", s.b[s.i], in)
	}
}

// decodeKey decodes an object key's raw string token, naming the offset on error.
func (s *jsScan) decodeKey(raw []byte) (string, error) {
	key, err := jsDecodeString(raw)
	if err != nil {
		return "", s.errorf("%v", err)
	}
	return key, nil
}

func (s *jsScan) literal(word string) ([]byte, error) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return nil, s.errorf("invalid literal")
	}
	s.i += len(word)
	return s.b[s.i-len(word) : s.i], nil
}

func (s *jsScan) number() ([]byte, error) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return nil, s.errorf("invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, s.errorf("invalid number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.errorf("invalid number")
		}
	}
	return s.b[start:s.i], nil
}

// rawString moves past one JSON string and returns its bytes, quotes included.
func (s *jsScan) rawString() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.errorf("expected a string")
	}
	start := s.i
	s.i++
	// Fast path: jump to the next quote; if no backslash lies before it, the string ends
	// there. (Control characters are not checked here; decoding the value checks them.)
	if q := bytes.IndexByte(s.b[s.i:], '"'); q >= 0 && bytes.IndexByte(s.b[s.i:s.i+q], '\\') < 0 {
		s.i += q + 1
		return s.b[start:s.i], nil
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start:s.i], nil
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return nil, s.errorf("control character in string")
		default:
			s.i++
		}
	}
	s.i = len(s.b)
	return nil, s.errorf("unterminated string")
}

// jsDecodeString decodes a raw JSON string token the way JSON.parse does. Lone surrogates
// written as \uXXXX escapes are kept in their 3-byte WTF-8 form (jsAppendString writes them
// back as escapes); raw bytes that are not UTF-8 become U+FFFD.
func jsDecodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New("not a JSON string")
	}
	body := raw[1 : len(raw)-1]
	simple := true
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			simple = false
			break
		}
	}
	if simple {
		return string(body), nil
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
			continue
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", errors.New("bad escape at end of string")
		}
		e := body[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := jsHex4(body[i:])
			if !ok {
				return "", errors.New("bad \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2, ok := jsHex4(body[i+2:]); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				out = jsAppendWTF8Surrogate(out, r)
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", fmt.Errorf("bad escape \\%c", e)
		}
	}
	return string(out), nil
}

func jsHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// stringify appends the JSON.stringify form of the next value.
func (s *jsScan) stringify(b []byte) ([]byte, error) {
	s.skipSpace()
	if s.i >= len(s.b) {
		return b, s.errorf("unexpected end of JSON")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.stringifyObject(b)
	case c == '[':
		if s.depth++; s.depth > jsMaxDepth {
			return b, s.errorf("nested too deeply")
		}
		defer func() { s.depth-- }()
		b = append(b, '[')
		n := 0
		err := s.container(" in array", nil, func() error {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			var err error
			b, err = s.stringify(b)
			return err
		})
		if err != nil {
			return b, err
		}
		return append(b, ']'), nil
	case c == '"':
		raw, err := s.rawString()
		if err != nil {
			return b, err
		}
		str, err := jsDecodeString(raw)
		if err != nil {
			return b, s.errorf("%v", err)
		}
		return jsAppendString(b, str), nil
	case c == 't' || c == 'f' || c == 'n':
		lit, err := s.skipValue()
		if err != nil {
			return b, err
		}
		return append(b, lit...), nil
	default:
		num, err := s.number()
		if err != nil {
			return b, err
		}
		return jsAppendNumber(b, num), nil
	}
}

type jsMember struct {
	key   string
	value []byte // JSON.stringify form
}

func (s *jsScan) stringifyObject(b []byte) ([]byte, error) {
	if s.depth++; s.depth > jsMaxDepth {
		return b, s.errorf("nested too deeply")
	}
	defer func() { s.depth-- }()
	var members []jsMember
	var index map[string]int
	var key string
	err := s.container(" in object", func(raw []byte) (err error) {
		key, err = s.decodeKey(raw)
		return err
	}, func() error {
		val, err := s.stringify(nil)
		if err != nil {
			return err
		}
		if index == nil && len(members) >= 8 {
			index = make(map[string]int, 16)
			for j, m := range members {
				index[m.key] = j
			}
		}
		dup := -1
		if index != nil {
			if j, ok := index[key]; ok {
				dup = j
			}
		} else {
			for j := range members {
				if members[j].key == key {
					dup = j
					break
				}
			}
		}
		if dup >= 0 {
			members[dup].value = val
		} else {
			if index != nil {
				index[key] = len(members)
			}
			members = append(members, jsMember{key: key, value: val})
		}
		return nil
	})
	if err != nil {
		return b, err
	}
	jsOrderKeys(members)
	b = append(b, '{')
	for j, m := range members {
		if j > 0 {
			b = append(b, ',')
		}
		b = jsAppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}'), nil
}

// jsOrderKeys puts array-index keys ("0", "17"; below 2³²−1) first in ascending numeric
// order, as JavaScript orders an object's own keys; other keys keep insertion order.
func jsOrderKeys(members []jsMember) {
	hasIndex := false
	for _, m := range members {
		if _, ok := jsArrayIndex(m.key); ok {
			hasIndex = true
			break
		}
	}
	if !hasIndex {
		return
	}
	sort.SliceStable(members, func(a, b int) bool {
		ia, oka := jsArrayIndex(members[a].key)
		ib, okb := jsArrayIndex(members[b].key)
		switch {
		case oka && okb:
			return ia < ib
		case oka:
			return true
		default:
			return false
		}
	})
}

func jsArrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// jsAppendNumber appends a JSON number as JavaScript's Number.prototype.toString prints the
// double JSON.parse makes of it (1.0 → 1, 1e21 → 1e+21, 1e400 → null).
func jsAppendNumber(b []byte, raw []byte) []byte {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return append(b, raw...)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	return jsAppendFloat(b, f)
}

// jsAppendFloat formats f following ECMAScript Number::toString(10).
func jsAppendFloat(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expPart, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expPart)
	k := len(digits)
	n := exp + 1
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for j := 0; j < n-k; j++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for j := 0; j < -n; j++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// jsRawMember returns the raw value of key in the JSON object raw (the last one when the key
// repeats, as JSON.parse keeps it).
func jsRawMember(raw []byte, key string) ([]byte, bool) {
	members, err := jsObjectMembers(raw)
	if err != nil {
		return nil, false
	}
	return jsMemberValue(members, key)
}

// jsMemberValue returns the raw value of key among an object's members (the last one when
// the key repeats, as JSON.parse keeps it).
func jsMemberValue(members []jsObjectMember, key string) ([]byte, bool) {
	var found []byte
	ok := false
	for _, m := range members {
		if m.Key == key {
			found, ok = m.Value, true
		}
	}
	return found, ok
}

// jsHasMember reports whether the JSON object raw has a member named key.
func jsHasMember(raw []byte, key string) bool {
	_, ok := jsRawMember(raw, key)
	return ok
}

// jsObjectMember is one member of a JSON object: its decoded key and raw value bytes.
type jsObjectMember struct {
	Key   string
	Value []byte
	// Offset is the byte offset of the value within the object's bytes.
	Offset int
}

// jsObjectMembers lists the members of the JSON object raw in recorded order.
func jsObjectMembers(raw []byte) ([]jsObjectMember, error) {
	s := jsScan{b: raw}
	s.skipSpace()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []jsObjectMember
	var key string
	err := s.container(" in object", func(raw []byte) (err error) {
		key, err = s.decodeKey(raw)
		return err
	}, func() error {
		s.skipSpace()
		off := s.i
		v, err := s.skipValue()
		if err != nil {
			return err
		}
		out = append(out, jsObjectMember{Key: key, Value: v, Offset: off})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// jsArrayElements lists the elements of the JSON array raw.
func jsArrayElements(raw []byte) ([][]byte, error) {
	s := jsScan{b: raw}
	s.skipSpace()
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	var out [][]byte
	err := s.container(" in array", nil, func() error {
		v, err := s.skipValue()
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
