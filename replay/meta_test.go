package replay

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReservedMetaKeys is the table of docs/pipeline.md §8.2: the source's rule, the
// 2025-11-25/2026 rule, and their union.
func TestReservedMetaKeys(t *testing.T) {
	tests := []struct {
		key                      string
		hermes, secondLabel, all bool
	}{
		{"modelcontextprotocol.io/x", true, false, true},
		{"mcp.dev/x", true, false, true},
		{"tools.mcp.com/x", true, true, true},
		{"api.modelcontextprotocol.org/x", true, true, true},
		{"io.modelcontextprotocol/serverInfo", false, true, true},
		{"dev.mcp/x", false, true, true},
		{"org.modelcontextprotocol.api/x", true, true, true},
		{"com.mcp.tools/x", true, true, true},
		{"a.b.mcp.c/x", true, false, true},
		{"com.example.mcp/x", false, false, false},
		{"mcp/x", false, false, false},
		{"com.example/x", false, false, false},
		{"plain-key", false, false, false},
		{"/leading-slash", false, false, false},
		{"MCP.dev/x", false, false, false},
		{"progressToken", false, false, false},
	}
	for _, tt := range tests {
		if got := IsReservedMetaKey20250618(tt.key); got != tt.hermes {
			t.Errorf("2025-06-18 rule(%q) = %v", tt.key, got)
		}
		if got := IsReservedMetaKeySecondLabel(tt.key); got != tt.secondLabel {
			t.Errorf("second-label rule(%q) = %v", tt.key, got)
		}
		if got := IsReservedMetaKey(tt.key); got != tt.all {
			t.Errorf("union(%q) = %v", tt.key, got)
		}
	}
}

func TestMCPEnvelope(t *testing.T) {
	tests := []struct {
		name string
		in   MCPEnvelopeInput
		want string
	}{
		{"plain text", MCPEnvelopeInput{Text: "just text", TextBlocks: []string{"just text"}, Usable: true},
			`{"result": "just text"}`},
		{"vendor meta passes", MCPEnvelopeInput{Text: "done", Usable: true, Meta: json.RawMessage(`{"com.example/handoff": {"id": 7}}`)},
			`{"result": "done", "_meta": {"com.example/handoff": {"id": 7}}}`},
		{"reserved keys dropped", MCPEnvelopeInput{Text: "done", Usable: true,
			Meta: json.RawMessage(`{"modelcontextprotocol.io/progress":1, "tools.mcp.com/trace":"x", "com.example.mcp/vendor":"keep", "unprefixed":"keep", "io.modelcontextprotocol/serverInfo": {"name": "s"}}`)},
			`{"result": "done", "_meta": {"com.example.mcp/vendor": "keep", "unprefixed": "keep"}}`},
		{"nothing left: field omitted", MCPEnvelopeInput{Text: "done", Usable: true, Meta: json.RawMessage(`{"mcp.io/internal": true}`)},
			`{"result": "done"}`},
		{"non-dict meta ignored", MCPEnvelopeInput{Text: "done", Usable: true, Meta: json.RawMessage(`[1, 2]`)},
			`{"result": "done"}`},
		{"structured next to a summary", MCPEnvelopeInput{Text: "txt", TextBlocks: []string{"txt"}, Usable: true,
			Structured: json.RawMessage(`{"ok":true}`), Meta: json.RawMessage(`{"com.example/k":"v"}`)},
			`{"result": "txt", "structuredContent": {"ok": true}, "_meta": {"com.example/k": "v"}}`},
		{"structured only", MCPEnvelopeInput{Structured: json.RawMessage(`{"only":"structured"}`)},
			`{"result": {"only": "structured"}}`},
		{"meta only", MCPEnvelopeInput{Meta: json.RawMessage(`{"com.example/k": 1}`)},
			`{"_meta": {"com.example/k": 1}, "result": ""}`},
		{"whitespace text keeps structured", MCPEnvelopeInput{Text: "   \n", TextBlocks: []string{"   \n"}, Usable: false,
			Structured: json.RawMessage(`{"status":"ok"}`)},
			`{"result": "   \n", "structuredContent": {"status": "ok"}}`},
		{"dual emit dedupe", MCPEnvelopeInput{Text: "{\n  \"b\": [1, 2.0],\n  \"a\": \"x\"\n}\ndone",
			TextBlocks: []string{"{\n  \"b\": [1, 2.0],\n  \"a\": \"x\"\n}", "done"}, Usable: true,
			Structured: json.RawMessage(`{"a":"x","b":[1,2]}`)},
			`{"result": "{\n  \"b\": [1, 2.0],\n  \"a\": \"x\"\n}\ndone"}`},
		{"python formatting", MCPEnvelopeInput{Text: "<a & b>\u2028é\t\x01", Usable: true,
			Meta: json.RawMessage(`{"k": [1.0, 1e-6, 1E20, 12345678901234567890, -0, 0.5, 100000.0, "\u00e9"]}`)},
			`{"result": "<a & b>` + "\u2028" + `é\t\u0001", "_meta": {"k": [1.0, 1e-06, 1e+20, 12345678901234567890, 0, 0.5, 100000.0, "é"]}}`},
		{"duplicate keys: last value, first position", MCPEnvelopeInput{Text: "t", Usable: true, Meta: json.RawMessage(`{"a":1,"b":2,"a":3}`)},
			`{"result": "t", "_meta": {"a": 3, "b": 2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MCPEnvelope(tt.in); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTruncateMCPText(t *testing.T) {
	s := strings.Repeat("é", MCPHardResultCapChars+10)
	got := TruncateMCPText(s)
	if !strings.Contains(got, "[MCP RESULT TRUNCATED - 10 chars omitted out of 2,000,010 total]") {
		t.Errorf("notice missing: %q", got[800000-5:800000+100])
	}
	if !strings.HasPrefix(got, strings.Repeat("é", 800000)+"\n\n...") {
		t.Error("head is not 40% of the cap")
	}
	if TruncateMCPText("short") != "short" {
		t.Error("short text changed")
	}
}

func TestPyFloat(t *testing.T) {
	for in, want := range map[float64]string{1: "1.0", 0.1: "0.1", 1e-6: "1e-06", 1e16: "1e+16", 1e15: "1000000000000000.0",
		123.456: "123.456", -2.5e-5: "-2.5e-05", 0.0001: "0.0001", 1.5e300: "1.5e+300"} {
		if got := pyFloat(in); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", in, got, want)
		}
	}
}
