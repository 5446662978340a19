package corpora

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// The expected strings below are written by hand from the JSON.stringify rules (ECMA-262
// QuoteJSONString, Number::toString, OrdinaryOwnPropertyKeys), not produced by Go.

func TestJSAppendStringEscapesLikeJSONStringify(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "hello", `"hello"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other controls lowercase hex", "\x00\x01\x1f\x0b", `"\u0000\u0001\u001f\u000b"`},
		{"html characters verbatim", "<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`},
		{"line and paragraph separators verbatim", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"DEL verbatim", "\x7f", "\"\x7f\""},
		{"non-ASCII verbatim", "°C ☀️ – 😀", `"°C ☀️ – 😀"`},
		{"slash not escaped", "a/b", `"a/b"`},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", "\"a\uFFFDb\""},
		{"lone high surrogate (WTF-8)", "x\xed\xa0\x80y", `"x\ud800y"`},
		{"lone low surrogate (WTF-8)", "\xed\xbf\xbf", `"\udfff"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(jsAppendString(nil, tt.in)); got != tt.want {
				t.Errorf("jsAppendString(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSAppendStringifiedMatchesJSONStringifyOfJSONParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"whitespace removed, key order kept", "{ \"b\" : 1,\n \"a\" : [ true, false, null ] }", `{"b":1,"a":[true,false,null]}`},
		{"numbers as JavaScript prints them", `[1.0, 2.50, -0, 0.1, 100, 1e20, 1e21, 1e-7, 0.000001, 123e-2, -1.5e-10, 5E+3]`,
			`[1,2.5,0,0.1,100,100000000000000000000,1e+21,1e-7,0.000001,1.23,-1.5e-10,5000]`},
		{"big integer loses precision", `123456789012345678901234`, `1.2345678901234569e+23`},
		{"out of range number is null", `[1e400,-1e400]`, `[null,null]`},
		{"escapes decoded and re-escaped", `"\u0041\/\u00e9\ud83d\ude00\u2028"`, "\"A/é😀\u2028\""},
		{"lone surrogate escapes survive", `"\ud800x\uDC00"`, `"\ud800x\udc00"`},
		{"control escapes normalised", `"\u000A\u001F\u0008"`, `"\n\u001f\b"`},
		{"duplicate key: last value, first position", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"integer-like keys first, ascending", `{"b":1,"2":2,"1":3,"01":4,"-1":5,"4294967295":6,"4294967294":7}`,
			`{"1":3,"2":2,"4294967294":7,"b":1,"01":4,"-1":5,"4294967295":6}`},
		{"empty containers", `{"a":{},"b":[]}`, `{"a":{},"b":[]}`},
		{"html not escaped", `"<b>&</b>"`, `"<b>&</b>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsAppendStringified(nil, []byte(tt.in))
			if err != nil {
				t.Fatalf("jsAppendStringified(%s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("jsAppendStringified(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSAppendStringifiedRejectsBadJSON(t *testing.T) {
	for _, in := range []string{``, `{"a":}`, `[1,]`, `"abc`, `{"a" 1}`, `tru`, `01x`, `[1] 2`, `"\x"`, `"\u12"`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000)} {
		if out, err := jsAppendStringified(nil, []byte(in)); err == nil {
			t.Errorf("jsAppendStringified(%.30q) = %.30s, want an error", in, out)
		}
	}
}

func TestStringifyAISDKGolden(t *testing.T) {
	raw := `{"content":[` +
		`{"type":"text","text":"Captured <page> & \"q\"\n"},` +
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
		`{"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"iVBOR"}},` +
		`{"type":"resource_link","uri":"https://x/y.png","name":"y","size":1.0},` +
		`{"mimeType":"audio/wav","data":"UklGRg==","type":"audio"},` +
		`{"type":"widget","x":[1, 2]}` +
		`],"structuredContent":{"ok":true},"isError":false,"_meta":{"k":"v"}}`
	res, err := parseCallToolResult(json.RawMessage(raw), Location{File: "f"}, false)
	if err != nil {
		t.Fatal(err)
	}
	wantContent := `[{"type":"text","text":"Captured <page> & \"q\"\n"},` +
		`{"type":"image-data","data":"iVBORw0KGgo=","mediaType":"image/png"},` +
		`{"type":"text","text":"{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a.png\",\"mimeType\":\"image/png\",\"blob\":\"iVBOR\"}}"},` +
		`{"type":"text","text":"{\"type\":\"resource_link\",\"uri\":\"https://x/y.png\",\"name\":\"y\",\"size\":1}"},` +
		`{"type":"text","text":"{\"mimeType\":\"audio/wav\",\"data\":\"UklGRg==\",\"type\":\"audio\"}"},` +
		`{"type":"text","text":"{\"type\":\"widget\",\"x\":[1,2]}"}]`
	wantJSON := `{"content":[{"type":"text","text":"Captured <page> & \"q\"\n"},` +
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
		`{"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"iVBOR"}},` +
		`{"type":"resource_link","uri":"https://x/y.png","name":"y","size":1},` +
		`{"mimeType":"audio/wav","data":"UklGRg==","type":"audio"},` +
		`{"type":"widget","x":[1,2]}],"structuredContent":{"ok":true},"isError":false,"_meta":{"k":"v"}}`
	tests := []struct {
		name string
		res  *CallToolResult
		era  string
		want string
	}{
		{"content era", res, AISDKEraContent, wantContent},
		{"unknown era is content", res, "", wantContent},
		{"json era", res, AISDKEraJSON, wantJSON},
		{"nil result", nil, AISDKEraContent, ""},
		{"empty content", &CallToolResult{Content: []Block{}, Raw: json.RawMessage(`{"content":[]}`)}, AISDKEraContent, `[]`},
		{"no content array renders as json output", &CallToolResult{Raw: json.RawMessage(`{"task":{"id":"t1"}}`)}, AISDKEraContent, `{"task":{"id":"t1"}}`},
		{"image without mimeType omits mediaType", &CallToolResult{Content: []Block{{Type: "image", Data: "AAAA", Raw: json.RawMessage(`{"type":"image","data":"AAAA"}`)}}}, AISDKEraContent,
			`[{"type":"image-data","data":"AAAA"}]`},
		{"text with lone surrogate escape", mustParseCTR(t, `{"content":[{"type":"text","text":"a\ud83d"}]}`), AISDKEraContent, `[{"type":"text","text":"a\ud83d"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StringifyAISDK(tt.res, tt.era); got != tt.want {
				t.Errorf("StringifyAISDK =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func mustParseCTR(t *testing.T, raw string) *CallToolResult {
	t.Helper()
	res, err := parseCallToolResult(json.RawMessage(raw), Location{File: "t"}, false)
	if err != nil {
		t.Fatalf("parseCallToolResult(%s): %v", raw, err)
	}
	return res
}

func TestJSStringRoundTripsThroughGoDecoder(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tand\nnewline", "\x00\x1f\x7f", "<>&\u2028", "😀 ünïcode", `"\`} {
		var back string
		if err := json.Unmarshal(jsAppendString(nil, s), &back); err != nil || back != s {
			t.Errorf("round trip of %q: got %q, %v", s, back, err)
		}
	}
}

func BenchmarkStringifyAISDKImage(b *testing.B) {
	data := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 1<<16) // 1.5 MB of base64
	raw := `{"content":[{"type":"text","text":"shot"},{"type":"image","data":"` + data + `","mimeType":"image/png"}],"isError":false}`
	res, err := parseCallToolResult(json.RawMessage(raw), Location{}, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		_ = StringifyAISDK(res, AISDKEraContent)
	}
}

// TestJSStringifiedAgainstNode compares with real JavaScript when node is installed.
func TestJSStringifiedAgainstNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	inputs := []string{
		`{"z":1,"10":2,"9":3,"a":{"\u0000":"\u001f\u2028\u2029<>&\\\"\/"}}`,
		`[0.1,0.2,0.30000000000000004,1e-6,1e-7,123456789012345678901234,-0.0,5e-324,1.7976931348623157e308,9007199254740993]`,
		`{"s":"\ud800\udbff\udfff\ud83d\ude00 tail","k":"é\u00e9"}`,
		`{"dup":1,"x":[],"dup":{"y":null}}`,
	}
	for _, in := range inputs {
		cmd := exec.Command(node, "-e", `process.stdout.write(JSON.stringify(JSON.parse(process.argv[1])))`, in)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		got, err := jsAppendStringified(nil, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("input %s:\n got %s\nnode %s", in, got, want)
		}
	}
}
