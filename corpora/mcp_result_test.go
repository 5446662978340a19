package corpora

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCallToolResultRevisions(t *testing.T) {
	type wantBlock struct {
		typ, text, data, mime, uri, name string
		size                             int64
		resText, resBlob                 string
	}
	tests := []struct {
		name       string
		raw        string
		blocks     []wantBlock
		isError    bool
		structured string
		meta       string
	}{
		{
			name: "2024-11-05 text, image, text resource; isError missing",
			raw:  `{"content":[{"type":"text","text":"hi"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"audience":["user"]}},{"type":"resource","resource":{"uri":"test://r/1","mimeType":"text/plain","text":"body"}}]}`,
			blocks: []wantBlock{{typ: "text", text: "hi"}, {typ: "image", data: "iVBORw0KGgo=", mime: "image/png"},
				{typ: "resource", resText: "body"}},
		},
		{
			name:   "2025-03-26 audio and blob resource",
			raw:    `{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"file:///s.png","mimeType":"image/png","blob":"iVBOR\nw0K"}}],"isError":false}`,
			blocks: []wantBlock{{typ: "audio", data: "UklGRg==", mime: "audio/wav"}, {typ: "resource", resBlob: "iVBOR\nw0K"}},
		},
		{
			name:       "2025-06-18 Python order: _meta first, type last in resource_link, structuredContent",
			raw:        `{"_meta": {"b": 1, "a": [2]},"content":[{"uri":"https://e/x.png","name":"x.png","title":"X","description":"d","mimeType":"image/png","size":2337795,"type":"resource_link"}],"structuredContent":{"temperature":22.5},"isError":false}`,
			blocks:     []wantBlock{{typ: "resource_link", uri: "https://e/x.png", name: "x.png", mime: "image/png", size: 2337795}},
			structured: `{"temperature":22.5}`,
			meta:       `{"b": 1, "a": [2]}`,
		},
		{
			name:    "2025-11-25 isError true, resource_link with icons",
			raw:     `{"content":[{"type":"text","text":"Invalid arguments: x must be > 0"},{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"i.png"}]}],"isError":true}`,
			blocks:  []wantBlock{{typ: "text", text: "Invalid arguments: x must be > 0"}, {typ: "resource_link", uri: "u", name: "n"}},
			isError: true,
		},
		{
			name:       "2026-07-28 structuredContent array, resultType, unknown block kept",
			raw:        `{"content":[{"type":"widget","html":"<b/>"}],"structuredContent":[1,{"a":2}],"_meta":{"io.modelcontextprotocol/resultType":"complete"},"resultType":"complete","isError":null}`,
			blocks:     []wantBlock{{typ: "widget"}},
			structured: `[1,{"a":2}]`,
			meta:       `{"io.modelcontextprotocol/resultType":"complete"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := Location{File: "t.jsonl", Line: 7, Pointer: "/result"}
			res, err := parseCallToolResult(json.RawMessage(tt.raw), loc, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Raw) != tt.raw {
				t.Errorf("Raw not kept")
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
			if string(res.StructuredContent) != tt.structured {
				t.Errorf("StructuredContent = %s, want %s", res.StructuredContent, tt.structured)
			}
			if string(res.Meta) != tt.meta {
				t.Errorf("Meta = %s, want %s (bytes exactly)", res.Meta, tt.meta)
			}
			if len(res.Content) != len(tt.blocks) {
				t.Fatalf("%d blocks, want %d", len(res.Content), len(tt.blocks))
			}
			for i, w := range tt.blocks {
				b := res.Content[i]
				if b.Type != w.typ || b.Text != w.text || b.Data != w.data || b.MimeType != w.mime || b.URI != w.uri || b.Name != w.name {
					t.Errorf("block %d = %+v, want %+v", i, b, w)
				}
				if w.size != 0 && (b.Size == nil || *b.Size != w.size) {
					t.Errorf("block %d size = %v, want %d", i, b.Size, w.size)
				}
				if w.resText != "" && (b.Resource == nil || b.Resource.Text == nil || *b.Resource.Text != w.resText) {
					t.Errorf("block %d resource text = %+v", i, b.Resource)
				}
				if w.resBlob != "" && (b.Resource == nil || b.Resource.Blob == nil || *b.Resource.Blob != w.resBlob || b.Resource.MimeType != "image/png") {
					t.Errorf("block %d resource blob = %+v", i, b.Resource)
				}
				wantLoc := Location{File: "t.jsonl", Line: 7, Pointer: "/result/content/" + string(rune('0'+i))}
				if b.Loc != wantLoc {
					t.Errorf("block %d Loc = %+v, want %+v", i, b.Loc, wantLoc)
				}
				if !json.Valid(b.Raw) || !strings.Contains(tt.raw, string(b.Raw)) {
					t.Errorf("block %d Raw = %s is not the recorded bytes", i, b.Raw)
				}
			}
		})
	}
}

func TestParseCallToolResultErrorsAreLocated(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		pointer string
		noArray bool
	}{
		{"not an object", `[1,2]`, "/result", false},
		{"no content", `{"task":{"taskId":"t"}}`, "/result", true},
		{"content not an array", `{"content":"text"}`, "/result/content", false},
		{"block not an object", `{"content":[{"type":"text","text":"a"},"b"]}`, "/result/content/1", false},
		{"text not a string", `{"content":[{"type":"text","text":5}]}`, "/result/content/0/text", false},
		{"mimeType not a string", `{"content":[{"type":"image","data":"AA==","mimeType":{}}]}`, "/result/content/0/mimeType", false},
		{"isError not a boolean", `{"content":[],"isError":"yes"}`, "/result/isError", false},
		{"resource without resource", `{"content":[{"type":"resource"}]}`, "/result/content/0", false},
		{"blob not a string", `{"content":[{"type":"resource","resource":{"uri":"u","blob":1}}]}`, "/result/content/0/resource/blob", false},
		{"size not a number", `{"content":[{"type":"resource_link","uri":"u","name":"n","size":"big"}]}`, "/result/content/0/size", false},
		{"truncated", `{"content":[{"type":"text","text":"abc`, "/result", false},
		{"nested too deeply", `{"content":[` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `]}`, "/result", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCallToolResult(json.RawMessage(tt.raw), Location{File: "f", Line: 3, Pointer: "/result"}, false)
			if err == nil {
				t.Fatal("want an error")
			}
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *ReadError", err)
			}
			if re.Loc.Pointer != tt.pointer || re.Loc.File != "f" || re.Loc.Line != 3 {
				t.Errorf("error at %+v, want pointer %s", re.Loc, tt.pointer)
			}
			if errors.Is(err, errNoContentArray) != tt.noArray {
				t.Errorf("errors.Is(errNoContentArray) = %v, want %v", !tt.noArray, tt.noArray)
			}
		})
	}
}

// TestStringMemberMessages pins the messages of string members that are not strings or do not
// decode, in MCP blocks, embedded resources and Chatbox content parts.
func TestStringMemberMessages(t *testing.T) {
	loc := Location{File: "f", Pointer: "/p"}
	mcp := func(raw string) error {
		_, err := parseCallToolResult(json.RawMessage(raw), loc, false)
		return err
	}
	chatbox := func(raw string) error {
		if _, rerr := chatboxDecodePart([]byte(raw), loc); rerr != nil {
			return rerr
		}
		return nil
	}
	tests := []struct {
		name  string
		parse func(string) error
		raw   string
		want  string
	}{
		{"block text not a string", mcp, `{"content":[{"type":"text","text":5}]}`, "f at /p/content/0/text: text is not a string"},
		{"block text bad escape", mcp, `{"content":[{"type":"text","text":"a\qb"}]}`, "f at /p/content/0/text: text: invalid character 'q' in string escape code"},
		{"resource blob not a string", mcp, `{"content":[{"type":"resource","resource":{"uri":"u","blob":[]}}]}`, "f at /p/content/0/resource/blob: blob is not a string"},
		{"resource uri bad escape", mcp, `{"content":[{"type":"resource","resource":{"uri":"\x"}}]}`, "f at /p/content/0/resource/uri: uri: invalid character 'x' in string escape code"},
		{"part type not a string", chatbox, `{"type":7}`, "f at /p/type: content part: type is not a string"},
		{"part text bad escape", chatbox, `{"type":"text","text":"\z"}`, "f at /p/text: content part text: invalid character 'z' in string escape code"},
		{"null is absent", chatbox, `{"type":null,"args":5}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse(tt.raw)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzParseCallToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"Echo: Hello, world!"}]}`,
		`{"content":[{"type":"text","text":"{\"temperature\":22.5}"}],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}}`,
		`{"content":[{"type":"text","text":"Notification sent: sdadsd"}],"resultType":"complete"}`,
		`{"_meta":{},"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"resource","resource":{"uri":"u","blob":"AA=="}}],"isError":true}`,
		`{"content":[{"type":"text","text":"\ud800"}]}`,
	} {
		f.Add([]byte(s))
	}
	if seeds, err := filepath.Glob("testdata/mcp/*.txt"); err == nil {
		for _, p := range seeds {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := parseCallToolResult(json.RawMessage(raw), Location{File: "fuzz"}, false)
		if err != nil {
			return
		}
		for _, era := range []string{AISDKEraContent, AISDKEraJSON} {
			if out := StringifyAISDK(res, era); !json.Valid([]byte(out)) && json.Valid(raw) {
				t.Errorf("StringifyAISDK(%s) produced invalid JSON %.200s", era, out)
			}
		}
		// With exact offsets, each block is located at its first byte and each payload at its
		// value's (a string's opening quote, or null).
		exact, err := parseCallToolResult(json.RawMessage(raw), Location{File: "fuzz", Line: 1}, true)
		if err != nil {
			t.Fatalf("exact offsets changed the verdict: %v", err)
		}
		for i, b := range exact.Content {
			if off := b.Loc.Offset; off > 0 && (off >= int64(len(raw)) || raw[off] != b.Raw[0]) {
				t.Errorf("block %d located at byte %d, not at its first byte", i, off)
			}
			if off := b.PayloadLoc.Offset; off > 0 && (off >= int64(len(raw)) || raw[off] != '"' && raw[off] != 'n') {
				t.Errorf("payload of block %d located at byte %d, not at its value", i, off)
			}
		}
	})
}
