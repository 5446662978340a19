package replay

import (
	"context"
	"encoding/base64"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// hostilePicture is one picture of the hostile corpus and the verdict the check must give.
type hostilePicture struct {
	name string
	data []byte
	// kind is the error the check wraps; nil for a picture that must pass.
	kind error
	// reason is a part of the reason the check must give.
	reason string
}

// hostileCorpus is every kind of hostile picture of issue 10, made by code, plus valid
// pictures near the limits that must pass.
func hostileCorpus() []hostilePicture {
	png := testimages.PNG(120, 90, 11, testimages.WithGrain(40))
	return []hostilePicture{
		{"png claims 100000x100000", testimages.ClaimingPNG(100000, 100000), ErrTooManyPixels, "100,000×100,000 = 10,000,000,000 pixels"},
		{"gif screen 65535x65535", testimages.ClaimingGIF(65535, 65535), ErrTooManyPixels, "65,535×65,535"},
		{"bmp claims 100000x100000", testimages.ClaimingBMP(100000, 100000), ErrTooManyPixels, "100,000×100,000"},
		{"bmp claims 100000x-100000 (top-down)", testimages.ClaimingBMP(100000, -100000), ErrTooManyPixels, "100,000×100,000"},
		{"png bomb 10001x10000", testimages.PNGBomb(10001, 10000), ErrTooManyPixels, "100,010,000 pixels, more than the limit of 100,000,000"},
		{"truncated png", png[:len(png)/2], ErrUndecodable, "PNG"},
		{"png with height 0", testimages.WithPNGSize(png, 120, 0), ErrUndecodable, "120×0"},
		{"png header taller than its data", testimages.WithPNGSize(png, 120, 900), ErrUndecodable, "truncated"},
		{"gif of 5000 frames", testimages.ManyFrameGIF(5000), ErrTooManyFrames, "5,000 frames, more than the limit of 100"},
		{"gif claims 2000x2000 with a few bytes of data", testimages.ClaimingGIF(2000, 2000), ErrUndecodable, "GIF"},
		{"jpeg claims 65500x65500", testimages.ClaimingJPEG(65500, 65500), ErrTooManyPixels, "65,500×65,500"},
		{"jpeg claims 9000x9000 (over the decode memory)", testimages.ClaimingJPEG(9000, 9000), ErrUndecodable, "JPEG"},
		{"jpeg claims 500x500 without data", testimages.ClaimingJPEG(500, 500), ErrUndecodable, "JPEG"},
		{"jpeg signature and garbage", testimages.GarbageJPEG(4000, 3), ErrUndecodable, "JPEG"},
		{"webp claims 100000x100000", testimages.ClaimingWebP(100000, 100000), ErrTooManyPixels, "100,000×100,000"},
		{"webp claims 5000x5000 without an image", testimages.ClaimingWebP(5000, 5000), ErrUndecodable, "no image chunk"},
		{"webp claims 300x200 without an image", testimages.ClaimingWebP(300, 200), ErrUndecodable, "WebP"},
		{"png bomb of exactly 100,000,000 pixels (valid)", testimages.PNGBomb(10000, 10000), nil, ""},
		{"gif of 100 frames (valid)", testimages.ManyFrameGIF(100), nil, ""},
		{"png (valid)", png, nil, ""},
		{"jpeg (valid)", testimages.JPEG(120, 90, 12), nil, ""},
		{"gif (valid)", testimages.GIF(120, 90, 13), nil, ""},
		{"bmp (valid)", testimages.BMP(120, 90, 14), nil, ""},
		{"webp (valid)", testimages.WebP(120, 90, 15), nil, ""},
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestCheckPictureHostileCorpus(t *testing.T) {
	for _, tt := range hostileCorpus() {
		t.Run(tt.name, func(t *testing.T) {
			var info PictureInfo
			var err error
			// No bomb is inflated into memory: the check allocates at most 8 MiB for any of
			// them (a 100,000,000-pixel picture would take 400 MB decoded).
			// (The race detector's instrumentation allocates on its own.)
			if n := allocated(func() { info, err = CheckPicture(tt.data, PictureLimits{}) }); n > 8<<20 && !raceEnabled {
				t.Errorf("the check allocated %d KiB", n>>10)
			}
			if tt.kind == nil {
				if err != nil {
					t.Fatalf("a valid picture failed the check: %v", err)
				}
				if info.Width <= 0 || info.Height <= 0 || info.Frames < 1 || !info.Decoded {
					t.Errorf("info %+v", info)
				}
				return
			}
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("reason %q does not say %q", err, tt.reason)
			}
		})
	}
}

func TestCheckPictureTruncations(t *testing.T) {
	valid := map[string][]byte{
		"png": testimages.PNG(64, 48, 1, testimages.WithGrain(30)), "jpeg": testimages.JPEG(64, 48, 2, testimages.WithGrain(30)),
		"gif": testimages.GIF(64, 48, 3, testimages.WithGrain(30)), "bmp": testimages.BMP(64, 48, 4),
		"webp": testimages.WebP(64, 48, 5, testimages.WithGrain(30)),
	}
	for name, b := range valid {
		for _, cut := range []int{0, 1, 3, 8, 16, 30, len(b) / 3, len(b) / 2, len(b) * 2 / 3} {
			if _, err := CheckPicture(b[:cut], PictureLimits{}); err == nil {
				t.Errorf("%s cut at %d of %d bytes passed the check", name, cut, len(b))
			}
		}
	}
}

// liftedText is a tool text carrying a picture as base64, padded with zero bytes (ignored after
// the picture's end by every decoder) so that the run is long enough to be a candidate.
func liftedText(pic []byte) string {
	if len(pic) < 1200 {
		pic = append(append([]byte(nil), pic...), make([]byte, 1200-len(pic))...)
	}
	return `{"screenshot":"` + base64.StdEncoding.EncodeToString(pic) + `"}`
}

// hostileRequest is a request whose last message is a tool message carrying text.
func hostileRequest(tool corpora.Message) corpora.Request {
	loc := corpora.Location{File: "hostile.json", Line: 1}
	msgs := []corpora.Message{
		{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "look"}}, Loc: loc.Child("messages").Child(0)},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "c1", Name: "mcp__shot__take"}}},
			Loc: loc.Child("messages").Child(1)},
		tool,
	}
	conv := &corpora.Conversation{ID: "c", Format: corpora.FormatOpenAIChat, Source: loc, Messages: msgs}
	return corpora.Request{Conversation: conv, Messages: msgs, Index: 0}
}

// applyArms runs the built-in arms on a request: none may fail.
func applyArms(t *testing.T, req corpora.Request) map[string]*Result {
	t.Helper()
	out := map[string]*Result{}
	ap := Applier{ClientSide: AgentClientSide}
	for _, arm := range BuiltinArms() {
		if arm.Name == "agent" {
			arm.Settings.Provider, arm.Settings.Model, arm.Settings.SupportsVision = "anthropic", "claude-opus-4-5", true
		}
		res, err := ap.Apply(context.Background(), arm, req)
		if err != nil {
			t.Fatalf("arm %s: %v", arm.Name, err)
		}
		out[arm.Name] = res
	}
	return out
}

// checkOmitted says the arm's tool message carries the reason as "[image omitted: …]" and no
// picture, and the arm reports a located diagnostic for the picture.
func checkOmitted(t *testing.T, res *Result, reason string, wantPointer string) {
	t.Helper()
	last := res.Messages[len(res.Messages)-1]
	var text strings.Builder
	for _, p := range last.Parts {
		switch p.Kind {
		case corpora.PartImage:
			t.Errorf("arm %s: a hostile picture reached the model", res.Arm)
		case corpora.PartText:
			text.WriteString(p.Text)
		}
	}
	if !strings.Contains(text.String(), "[image omitted: ") || !strings.Contains(text.String(), reason) {
		t.Errorf("arm %s: tool text %.300q does not omit the picture saying %q", res.Arm, text.String(), reason)
	}
	checkDiagnostic(t, res, wantPointer)
}

// checkDiagnostic says the arm reports a located diagnostic at the pointer.
func checkDiagnostic(t *testing.T, res *Result, wantPointer string) {
	t.Helper()
	ds := res.Diagnostics()
	if len(ds) == 0 {
		t.Fatalf("arm %s: no diagnostic", res.Arm)
	}
	d := ds[0]
	if d.Loc.File != "hostile.json" || d.Loc.Line != 1 || !strings.HasPrefix(d.Loc.Pointer, wantPointer) {
		t.Errorf("arm %s: diagnostic at %s, want hostile.json:1 at %s", res.Arm, d.Loc, wantPointer)
	}
	if !strings.Contains(d.Message, "arm "+res.Arm) {
		t.Errorf("diagnostic %q does not name the arm", d.Message)
	}
}

func TestHostilePicturesInToolText(t *testing.T) {
	for _, tt := range hostileCorpus() {
		if tt.kind == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			text := liftedText(tt.data)
			loc := corpora.Location{File: "hostile.json", Line: 1, Pointer: "/messages/2/content"}
			tool := corpora.Message{Role: corpora.RoleTool, ToolCallID: "c1", Loc: corpora.Location{File: "hostile.json", Line: 1, Pointer: "/messages/2"},
				Parts: []corpora.Part{{Kind: corpora.PartText, Text: text, Loc: loc}}}
			arms := applyArms(t, hostileRequest(tool))
			// before: the picture is text, as recorded; it is measured and nothing is decoded.
			if got := arms["before"].Messages[2].Parts[0].Text; got != text {
				t.Error("the before arm changed the tool text")
			}
			for _, name := range []string{"after", "agent"} {
				res := arms[name]
				checkOmitted(t, res, tt.reason, "/messages/2/content")
				rec := res.Pictures[0]
				if rec.Outcome != OutcomeOmitted || rec.SeenByModel || !rec.Problem || rec.Offset != len(`{"screenshot":"`) {
					t.Errorf("arm %s: record %+v", name, rec)
				}
				if d := res.Diagnostics()[0].Message; !strings.Contains(d, "base64 run at byte 15 of the tool text") {
					t.Errorf("diagnostic %q does not give the run's offset", d)
				}
			}
		})
	}
}

func TestHostilePicturesInMCPBlocks(t *testing.T) {
	for _, tt := range hostileCorpus() {
		if tt.kind == nil {
			continue
		}
		for _, blockType := range []string{"image", "resource"} {
			t.Run(tt.name+"/"+blockType, func(t *testing.T) {
				data := base64.StdEncoding.EncodeToString(tt.data)
				rloc := corpora.Location{File: "hostile.json", Line: 1, Pointer: "/messages/2/content"}
				blocks := []corpora.Block{{Type: "text", Text: "here is the screen"}}
				if blockType == "image" {
					blocks = append(blocks, corpora.Block{Type: "image", Data: data, MimeType: "image/png", Loc: rloc.Child(1)})
				} else {
					blocks = append(blocks, corpora.Block{Type: "resource", Loc: rloc.Child(1),
						Resource: &corpora.EmbeddedResource{URI: "file:///shot.png", MimeType: "image/png", Blob: &data}})
				}
				mcp := &corpora.CallToolResult{Content: blocks, Loc: rloc}
				tool := corpora.Message{Role: corpora.RoleTool, ToolCallID: "c1", Loc: rloc,
					Parts: []corpora.Part{{Kind: corpora.PartToolResult, Loc: rloc,
						ToolResult: &corpora.ToolResult{CallID: "c1", Name: "mcp__shot__take", MCP: mcp}}}}
				arms := applyArms(t, hostileRequest(tool))
				if !strings.Contains(textOf(arms["before"].Messages[2]), "not shown to the model") {
					t.Error("the before arm does not name the picture in its note")
				}
				checkOmitted(t, arms["after"], tt.reason, "/messages/2/content/1")
				if blockType == "image" {
					// The agent caches the picture and tries to attach it: preparation refuses it.
					res := arms["agent"]
					if hasImagePart(res.Messages[2]) {
						t.Error("the agent attached a hostile picture")
					}
					checkDiagnostic(t, res, "/messages/2/content/1")
				}
			})
		}
	}
}

func TestHostilePicturesAsImageParts(t *testing.T) {
	for _, tt := range hostileCorpus() {
		if tt.kind == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			loc := corpora.Location{File: "hostile.json", Line: 1, Pointer: "/messages/2/content/0"}
			tool := corpora.Message{Role: corpora.RoleTool, ToolCallID: "c1", Loc: corpora.Location{File: "hostile.json", Line: 1, Pointer: "/messages/2"},
				Parts: []corpora.Part{{Kind: corpora.PartImage, Loc: loc,
					Image: &corpora.Image{Data: tt.data, DeclaredType: "image/png", Origin: corpora.OriginTool, Encoding: "base64"}}}}
			arms := applyArms(t, hostileRequest(tool))
			for _, name := range []string{"before", "after", "agent"} {
				checkOmitted(t, arms[name], tt.reason, "/messages/2/content/0")
			}
		})
	}
}

func textOf(m corpora.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == corpora.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func hasImagePart(m corpora.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == corpora.PartImage {
			return true
		}
	}
	return false
}

// TestBadBase64RunStaysText: a run that starts like a picture but whose length cannot be
// base64 (4k+1 characters) is no picture: the text keeps it byte for byte, and the record says
// it is bad input.
func TestBadBase64RunStaysText(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(testimages.PNG(64, 48, 1, testimages.WithGrain(50)))
	run := strings.TrimRight(b64, "=")
	run = run[:len(run)/4*4+1]
	text := "shot: " + run + " end"
	got, err := NewLifter(Settings{}).Lift(text)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != text {
		t.Errorf("the text changed: %.120q", got.Text)
	}
	if len(got.Pictures) != 1 || got.Pictures[0].Outcome != OutcomeText || !got.Pictures[0].Problem || len(got.Images()) != 0 {
		t.Fatalf("pictures %+v", got.Pictures)
	}
	if !strings.Contains(got.Pictures[0].Reason, "starts like an image/png picture but is not valid base64") {
		t.Errorf("reason %q", got.Pictures[0].Reason)
	}
}

// TestFailedPictureLeavesItsSlot: a picture that fails the check does not count against the
// 8 pictures of a message.
func TestFailedPictureLeavesItsSlot(t *testing.T) {
	good := liftedText(testimages.PNG(40, 30, 1, testimages.WithGrain(60)))
	bad := liftedText(testimages.ClaimingPNG(100000, 100000))
	text := bad + strings.Repeat(" "+good, 8)
	got, _ := NewLifter(Settings{}).Lift(text)
	if n := len(got.Images()); n != 8 {
		t.Errorf("%d pictures lifted, want 8", n)
	}
	if got.Pictures[0].Outcome != OutcomeOmitted {
		t.Errorf("first picture %s", got.Pictures[0].Outcome)
	}
}

// TestOverCapMCPPictureIsNotDecoded: a picture over the byte cap is counted from its base64
// and only its header is decoded.
func TestOverCapMCPPictureIsNotDecoded(t *testing.T) {
	pic, err := testimages.PadPNG(testimages.PNG(300, 200, 9), 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(pic)
	res := &corpora.CallToolResult{Content: []corpora.Block{{Type: "image", Data: data, MimeType: "image/png"}}}
	s := Settings{MaxPictureBytes: 1 << 20}
	var r MCPRendering
	if n := allocated(func() { r = RenderMCPLift(res, s, MCPRenderOptions{}) }); n > 1<<20 {
		t.Errorf("rendering a capped 4 MiB picture allocated %d KiB", n>>10)
	}
	p := r.Pictures[0]
	if p.Outcome != OutcomeCapped || p.Bytes != int64(len(pic)) || p.Data != nil || p.Type != MIMEPNG {
		t.Fatalf("picture %+v", p)
	}
	if w, h, err := ImageHeaderSize(p.Head); err != nil || w != 300 || h != 200 {
		t.Errorf("header %d×%d %v", w, h, err)
	}
	if want := LegacyPictureNote(MIMEPNG, int64(len(pic))); r.Text() != want {
		t.Errorf("text %q, want %q", r.Text(), want)
	}
}

func TestLenientBase64Len(t *testing.T) {
	for _, s := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDRA", "QUJDR", "Q", "QU JD\nRA==", "QQ==QUJD", "QU=JD", "!!!", "QUJD=", "Q===="} {
		d, derr := decodeLenientBase64(s)
		n, nerr := lenientBase64Len(s)
		if (derr == nil) != (nerr == nil) || (derr == nil && n != int64(len(d))) {
			t.Errorf("%q: length %d (%v), decoder %d (%v)", s, n, nerr, len(d), derr)
		}
	}
}

func FuzzLenientBase64Len(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QUI=", "QUJDRA", "QU JD\nRA==", "QQ==QUJD", "QU=JD", "Q===="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, derr := decodeLenientBase64(s)
		n, nerr := lenientBase64Len(s)
		if (derr == nil) != (nerr == nil) || (derr == nil && n != int64(len(d))) {
			t.Errorf("%q: length %d (%v), decoder %d (%v)", s, n, nerr, len(d), derr)
		}
		if head := lenientBase64Head(s, 9); derr == nil && !strings.HasPrefix(string(d), string(head)) {
			t.Errorf("%q: head % x is not a prefix of % x", s, head, d)
		}
	})
}

// FuzzCheckPicture: the check never panics, and a picture it passes is within the limits.
func FuzzCheckPicture(f *testing.F) {
	for _, p := range hostileCorpus() {
		if len(p.data) < 64<<10 {
			f.Add(p.data)
		}
	}
	f.Add(testimages.AnimatedGIF(8, 8, 1, []string{"a", "b", "c"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := PictureLimits{MaxFrames: 10, MaxPixels: 1 << 18, DecodeMemory: 256 << 10}
		info, err := CheckPicture(data, lim)
		if err != nil {
			return
		}
		if info.Type == "" || info.Width <= 0 || info.Height <= 0 || info.Frames < 1 || info.Frames > lim.MaxFrames ||
			int64(info.Width)*int64(info.Height)*int64(info.Frames) > lim.MaxPixels {
			t.Errorf("passed out of limits: %+v", info)
		}
	})
}
