package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

func strPtr(s string) *string { return &s }

func mcpImage(data []byte, mime string) corpora.Block {
	return corpora.Block{Type: "image", Data: b64(data), MimeType: mime}
}

func mcpText(s string) corpora.Block { return corpora.Block{Type: "text", Text: s} }

func mcpBlob(uri, mime string, data []byte) corpora.Block {
	return corpora.Block{Type: "resource", Resource: &corpora.EmbeddedResource{URI: uri, MimeType: mime, Blob: strPtr(b64(data))}}
}

// partShape summarises parts as "text:<text>" and "image:<type>:<bytes>".
func partShape(parts []corpora.Part) []string {
	var out []string
	for _, p := range parts {
		switch p.Kind {
		case corpora.PartText:
			out = append(out, "text:"+p.Text)
		case corpora.PartImage:
			out = append(out, "image:"+SniffImage(p.Image.Data)+":"+FormatCount(int64(len(p.Image.Data))))
		default:
			out = append(out, string(p.Kind))
		}
	}
	return out
}

func TestRenderMCP(t *testing.T) {
	pic := fxPNG(t, 30, 20, true)
	jpg := fxJPEG(t, 16, 16)
	n := FormatCount(int64(len(pic)))
	pdf := []byte("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n")
	size := int64(42)
	tests := []struct {
		name       string
		res        corpora.CallToolResult
		opt        MCPRenderOptions
		wantLegacy string
		wantLift   []string
		wantOut    []Outcome
	}{
		{
			name:       "text only",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpText("a"), mcpText(""), mcpText("b")}},
			wantLegacy: "a\nb",
			wantLift:   []string{"text:a\nb"},
		},
		{
			name:       "image between texts",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpText("Captured"), mcpImage(pic, "image/png"), mcpText("done")}},
			wantLegacy: "Captured\n[image (image/png, " + n + " bytes): not shown to the model]\ndone",
			wantLift:   []string{"text:Captured\n", "image:image/png:" + n, "text:\ndone"},
			wantOut:    []Outcome{OutcomeTaken},
		},
		{
			name:       "read_image shape: text, text, image",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpText("a.jpg"), mcpText("640x360"), mcpImage(jpg, "image/jpeg")}},
			wantLegacy: "a.jpg\n640x360\n" + LegacyPictureNote("image/jpeg", int64(len(jpg))),
			wantLift:   []string{"text:a.jpg\n", "text:640x360\n", "image:image/jpeg:" + FormatCount(int64(len(jpg)))},
			wantOut:    []Outcome{OutcomeTaken},
		},
		{
			name:       "resource blob image/png is a picture",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpBlob("file:///shot.png", "image/png", pic)}},
			wantLegacy: LegacyPictureNote("image/png", int64(len(pic))),
			wantLift:   []string{"image:image/png:" + n},
			wantOut:    []Outcome{OutcomeTaken},
		},
		{
			name:       "resource blob application/pdf stays text",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpText("report"), mcpBlob("file:///r.pdf", "application/pdf", pdf)}},
			wantLegacy: "report\n[MCP resource file:///r.pdf (application/pdf, 39 bytes): not shown to the model]",
			wantLift:   []string{"text:report\n[MCP resource file:///r.pdf (application/pdf, 39 bytes): not shown to the model]"},
		},
		{
			name:       "resource blob labelled pdf but holding a PNG is not a picture",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpBlob("file:///x", "application/pdf", pic)}},
			wantLegacy: "[MCP resource file:///x (application/pdf, " + n + " bytes): not shown to the model]",
			wantLift:   []string{"text:[MCP resource file:///x (application/pdf, " + n + " bytes): not shown to the model]"},
		},
		{
			name:       "resource text",
			res:        corpora.CallToolResult{Content: []corpora.Block{{Type: "resource", Resource: &corpora.EmbeddedResource{URI: "file:///a.txt", Text: strPtr("hello")}}}},
			wantLegacy: "hello",
			wantLift:   []string{"text:hello"},
		},
		{
			name:       "audio stays text",
			res:        corpora.CallToolResult{Content: []corpora.Block{{Type: "audio", Data: b64([]byte("RIFF\x00\x00\x00\x00WAVEfmt ")), MimeType: "audio/wav"}}},
			wantLegacy: "[audio (audio/wav, 16 bytes): not shown to the model]",
			wantLift:   []string{"text:[audio (audio/wav, 16 bytes): not shown to the model]"},
		},
		{
			name: "resource link is never opened",
			res: corpora.CallToolResult{Content: []corpora.Block{{Type: "resource_link", URI: "file:///tmp/shot.png", Name: "shot",
				MimeType: "image/png"}}},
			opt:        MCPRenderOptions{ToolName: "mcp__screen__capture"},
			wantLegacy: "[MCP resource link: uri=file:///tmp/shot.png, name=shot, mimeType=image/png — fetch it with mcp__screen__read_resource]",
			wantLift:   []string{"text:[MCP resource link: uri=file:///tmp/shot.png, name=shot, mimeType=image/png — fetch it with mcp__screen__read_resource]"},
		},
		{
			name:       "unknown block",
			res:        corpora.CallToolResult{Content: []corpora.Block{{Type: "hologram", MimeType: "model/gltf", Size: &size, Name: "cube"}}},
			wantLegacy: "[MCP content dropped: unsupported block (type=hologram, mimeType=model/gltf, size=42, name=cube)]",
			wantLift:   []string{"text:[MCP content dropped: unsupported block (type=hologram, mimeType=model/gltf, size=42, name=cube)]"},
		},
		{
			name:       "error result with an image stays text",
			res:        corpora.CallToolResult{IsError: true, Content: []corpora.Block{mcpText("failed"), mcpImage(pic, "image/png")}},
			wantLegacy: "failed\n" + LegacyPictureNote("image/png", int64(len(pic))),
			wantLift:   []string{"text:failed\n" + LegacyPictureNote("image/png", int64(len(pic)))},
			wantOut:    []Outcome{OutcomeNoted},
		},
		{
			name:       "image whose bytes are not a picture",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpImage([]byte("<!DOCTYPE html><html></html>"), "image/png")}},
			wantLegacy: LegacyPictureNote("image/png", 28),
			wantLift:   []string{"text:[image omitted: the image/png block is not a PNG, JPEG, GIF, BMP or WebP picture]"},
			wantOut:    []Outcome{OutcomeOmitted},
		},
		{
			name:       "image that cannot be decoded",
			res:        corpora.CallToolResult{Content: []corpora.Block{{Type: "image", Data: "abc", MimeType: "image/png"}}},
			wantLegacy: LegacyPictureNote("image/png", 2),
			wantLift:   []string{"text:[image omitted: the image/png block could not be decoded: incorrect base64 padding]"},
			wantOut:    []Outcome{OutcomeOmitted},
		},
		{
			name:       "label lies: image/jpeg block holding a PNG",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpImage(pic, "image/jpeg")}},
			wantLegacy: LegacyPictureNote("image/jpeg", int64(len(pic))),
			wantLift:   []string{"image:image/png:" + n},
			wantOut:    []Outcome{OutcomeTaken},
		},
		{
			name: "structuredContent repeating the text is dropped",
			res: corpora.CallToolResult{Content: []corpora.Block{mcpText(`{"temp": 21, "unit": "C"}`)},
				StructuredContent: json.RawMessage(`{"unit":"C","temp":21}`)},
			wantLegacy: `{"temp": 21, "unit": "C"}`,
			wantLift:   []string{`text:{"temp": 21, "unit": "C"}`},
		},
		{
			name: "structuredContent next to a summary is kept",
			res: corpora.CallToolResult{Content: []corpora.Block{mcpText("done")},
				StructuredContent: json.RawMessage("{\n  \"ok\": true\n}")},
			wantLegacy: "done\n{\"ok\":true}",
			wantLift:   []string{"text:done\n{\"ok\":true}"},
		},
		{
			name: "structuredContent repeating the picture stays text",
			res: corpora.CallToolResult{Content: []corpora.Block{mcpImage(jpg, "image/jpeg")},
				StructuredContent: json.RawMessage(`{"image":"` + b64(jpg) + `"}`)},
			wantLegacy: LegacyPictureNote("image/jpeg", int64(len(jpg))) + "\n" + `{"image":"` + b64(jpg) + `"}`,
			wantLift:   []string{"image:image/jpeg:" + FormatCount(int64(len(jpg))), "text:\n" + `{"image":"` + b64(jpg) + `"}`},
			wantOut:    []Outcome{OutcomeTaken},
		},
		{
			name:       "_meta is not shown",
			res:        corpora.CallToolResult{Content: []corpora.Block{mcpText("ok")}, Meta: json.RawMessage(`{"com.example/k":"v"}`)},
			wantLegacy: "ok",
			wantLift:   []string{"text:ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			legacy := RenderMCPLegacy(&tt.res, Settings{}, tt.opt)
			if got := legacy.Text(); got != tt.wantLegacy {
				t.Errorf("legacy text = %.300q\nwant          %.300q", got, tt.wantLegacy)
			}
			if len(legacy.Parts) != 1 {
				t.Errorf("legacy has %d parts, want one text", len(legacy.Parts))
			}
			for _, p := range legacy.Pictures {
				if p.Outcome != OutcomeNoted {
					t.Errorf("legacy picture outcome %s", p.Outcome)
				}
			}
			lifted := RenderMCPLift(&tt.res, Settings{}, tt.opt)
			got := partShape(lifted.Parts)
			if strings.Join(got, "|") != strings.Join(tt.wantLift, "|") {
				t.Errorf("lift parts = %.300q\nwant        %.300q", got, tt.wantLift)
			}
			var outs []Outcome
			for _, p := range lifted.Pictures {
				outs = append(outs, p.Outcome)
			}
			if len(outs) != len(tt.wantOut) {
				t.Fatalf("outcomes %v, want %v", outs, tt.wantOut)
			}
			for i := range outs {
				if outs[i] != tt.wantOut[i] {
					t.Errorf("outcomes %v, want %v", outs, tt.wantOut)
				}
			}
			// Without pictures the text is the legacy text.
			if !HasPictureBlocks(&tt.res) && lifted.Text() != legacy.Text() {
				t.Errorf("a result without pictures changed: %q vs %q", lifted.Text(), legacy.Text())
			}
		})
	}
}

func TestRenderMCPCaps(t *testing.T) {
	pic := fxPNG(t, 10, 10, true)
	n := int64(len(pic))
	var blocks []corpora.Block
	for range 9 {
		blocks = append(blocks, mcpImage(pic, "image/png"))
	}
	blocks = append(blocks, mcpBlob("file:///big.png", "image/png", pic))
	res := corpora.CallToolResult{Content: blocks}
	r := RenderMCPLift(&res, Settings{}, MCPRenderOptions{})
	taken := 0
	for i, p := range r.Pictures {
		switch {
		case i < 8 && p.Outcome != OutcomeTaken, i >= 8 && p.Outcome != OutcomeCapped:
			t.Errorf("picture %d: %s", i, p.Outcome)
		}
		if p.Outcome == OutcomeTaken {
			taken++
		}
	}
	if taken != 8 {
		t.Errorf("%d taken, want 8", taken)
	}
	note := LegacyPictureNote(MIMEPNG, n)
	if got := r.Parts[len(r.Parts)-1]; got.Kind != corpora.PartText || got.Text != note {
		t.Errorf("last part %q, want the note %q", got.Text, note)
	}

	byBytes := RenderMCPLift(&corpora.CallToolResult{Content: blocks[:1]}, Settings{MaxPictureBytes: n - 1}, MCPRenderOptions{})
	if byBytes.Pictures[0].Outcome != OutcomeCapped || byBytes.Text() != note {
		t.Errorf("byte cap: %s %q", byBytes.Pictures[0].Outcome, byBytes.Text())
	}

	noVision := RenderMCPLift(&corpora.CallToolResult{Content: blocks[:2]}, Settings{NoVisionEncoder: true}, MCPRenderOptions{})
	want := OmittedNote(ReasonNoVisionEncoder) + "\n" + OmittedNote(ReasonNoVisionEncoder)
	if noVision.Text() != want || len(noVision.Parts) != 1 {
		t.Errorf("no vision encoder: %q", noVision.Text())
	}
}

func TestRenderMCPMaxResultChars(t *testing.T) {
	pic := fxPNG(t, 10, 10, true)
	long := strings.Repeat("0123456789", 100) // 1,000 characters
	res := corpora.CallToolResult{Content: []corpora.Block{mcpText(long), mcpImage(pic, "image/png"), mcpText(long)}}
	r := RenderMCPLift(&res, Settings{MaxResultChars: 500}, MCPRenderOptions{})
	if len(r.Parts) != 3 || r.Parts[1].Kind != corpora.PartImage || !bytes.Equal(r.Parts[1].Image.Data, pic) {
		t.Fatalf("parts %v: the picture must survive the character cap", partShape(r.Parts))
	}
	marker := "\n\n... [MCP RESULT TRUNCATED - 1,502 chars omitted out of 2,002 total] ...\n\n"
	want := long[:200] + marker + long[700:]
	if got := r.Text(); got != want {
		t.Errorf("capped text = %q\nwant %q", got, want)
	}
	if r.Parts[0].Text != long[:200]+marker {
		t.Errorf("first part %q", r.Parts[0].Text)
	}
}

func TestDecodeLenientBase64(t *testing.T) {
	pic := fxPNG(t, 5, 5, false)
	enc := b64(pic)
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"plain", enc, false},
		{"MIME lines", mimeLines(enc, 76), false},
		{"stray characters", "*" + enc[:10] + "!" + enc[10:], false},
		{"missing padding", strings.TrimRight(enc, "="), len(enc) != len(strings.TrimRight(enc, "="))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeLenientBase64(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && !bytes.Equal(got, pic) {
				t.Errorf("decoded bytes differ")
			}
		})
	}
}

func FuzzRenderMCP(f *testing.F) {
	pic := fxPNG(f, 3, 3, false)
	f.Add("text", "hello", b64(pic), "image/png", false, 0)
	f.Add("image", "", b64(pic), "image/jpeg", false, 10)
	f.Add("resource", "x", "abc", "image/png", true, 3)
	f.Add("audio", "", "////", "audio/wav", false, 1)
	f.Add("resource_link", "n", "", "", false, 0)
	f.Fuzz(func(t *testing.T, typ, text, data, mime string, isError bool, maxChars int) {
		if maxChars < 0 || maxChars > 1<<20 {
			maxChars = 0
		}
		blocks := []corpora.Block{
			{Type: typ, Text: text, Data: data, MimeType: mime, URI: text, Name: text},
			{Type: "resource", Resource: &corpora.EmbeddedResource{URI: text, MimeType: mime, Blob: &data}},
			mcpText(text),
			{Type: "image", Data: data, MimeType: mime},
		}
		res := corpora.CallToolResult{Content: blocks, IsError: isError, StructuredContent: json.RawMessage(text)}
		s := Settings{MaxResultChars: maxChars, MaxPictures: 1}
		legacy := RenderMCPLegacy(&res, s, MCPRenderOptions{ToolName: text})
		lifted := RenderMCPLift(&res, s, MCPRenderOptions{ToolName: text})
		if len(legacy.Parts) != 1 {
			t.Fatalf("legacy has %d parts", len(legacy.Parts))
		}
		taken := 0
		for _, p := range lifted.Pictures {
			if p.Outcome == OutcomeTaken {
				taken++
				if SniffImage(p.Data) == "" {
					t.Error("a taken picture fails the signature check")
				}
			}
		}
		if taken > 1 || (isError && taken > 0) {
			t.Errorf("%d pictures taken (error %v)", taken, isError)
		}
		images := 0
		for _, p := range lifted.Parts {
			if p.Kind == corpora.PartImage {
				images++
			}
		}
		if images != taken {
			t.Errorf("%d image parts for %d taken pictures", images, taken)
		}
	})
}

// TestDecodeLenientBase64LikeCPython pins the decoder to CPython's binascii.a2b_base64 with
// strict_mode off (what base64.b64decode does by default).
func TestDecodeLenientBase64LikeCPython(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"YWJj", "abc", false},
		{"YWJj=ZGVm", "abcdef", false}, // a '=' at a group boundary is ignored
		{"YQ==YWJj", "a", false},       // completed padding ends the decoding
		{"YQ=YWJj", "", true},          // an incomplete pad is dropped: 6 data characters, "Incorrect padding"
		{"YW Jj\n", "abc", false},      // characters outside the alphabet are skipped
		{"YWJ", "", true},              // Incorrect padding
		{"Y", "", true},                // one more than a multiple of 4
		{"=YWJj", "abc", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := decodeLenientBase64(tt.in)
		if (err != nil) != tt.err || (!tt.err && string(got) != tt.want) {
			t.Errorf("decodeLenientBase64(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}
