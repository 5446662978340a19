package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// sameString says whether two strings share their bytes (no copy was made).
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// fxPadded is a picture of exactly n bytes: a real PNG followed by zero bytes.
func fxPadded(t testing.TB, n int) []byte {
	pic := fxPNG(t, 4, 4, false)
	if len(pic) > n {
		t.Fatalf("PNG of %d bytes exceeds %d", len(pic), n)
	}
	return append(pic, make([]byte, n-len(pic))...)
}

func TestLiftLeavesTextWithoutPictures(t *testing.T) {
	noise := fxBase64Noise(5000)
	tests := []struct{ name, text string }{
		{"empty", ""},
		{"prose", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 500)},
		{"json", benchJSONText(50_000)},
		{"non-picture base64", `{"blob":"` + noise + `"}`},
		{"non-picture base64 data URL", "data:image/png;base64," + noise},
		{"MIME lines of a picture", mimeLines(b64(fxPNG(t, 64, 64, true)), 76)},
		{"picture base64 of 1023 characters", b64(fxPadded(t, 768))[:1023]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewLifter(Settings{}).Lift(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !sameString(got.Text, tt.text) {
				t.Errorf("text changed or copied (len %d → %d)", len(tt.text), len(got.Text))
			}
			if len(got.Pictures) != 0 {
				t.Errorf("%d pictures found, want none", len(got.Pictures))
			}
		})
	}
}

func TestLiftPictures(t *testing.T) {
	pngPic := fxPNG(t, 48, 32, true)
	jpgPic := fxJPEG(t, 64, 40)
	gifPic := fxGIF(t, 50, 30)
	bmpPic := fxBMP(t, 30, 20)
	webpPic := testimages.WebP(33, 17, 5, testimages.WithGrain(60))
	pic1024 := fxPadded(t, 768) // exactly 1024 base64 characters
	tests := []struct {
		name         string
		text         string
		wantText     string
		wantType     string
		wantDeclared string
		wantBytes    []byte
		wantW, wantH int
		wantEncoding string
	}{
		{"bare PNG in prose", "before " + b64(pngPic) + " after", "before " + PicturePlaceholder(MIMEPNG, int64(len(pngPic))) + " after",
			MIMEPNG, "", pngPic, 48, 32, "base64"},
		{"run of exactly 1024 characters", "x " + b64(pic1024) + " y", "x " + PicturePlaceholder(MIMEPNG, 768) + " y",
			MIMEPNG, "", pic1024, 4, 4, "base64"},
		{"run at the start", b64(jpgPic) + " tail", PicturePlaceholder(MIMEJPEG, int64(len(jpgPic))) + " tail",
			MIMEJPEG, "", jpgPic, 64, 40, "base64"},
		{"run at the end", "head " + b64(gifPic), "head " + PicturePlaceholder(MIMEGIF, int64(len(gifPic))),
			MIMEGIF, "", gifPic, 50, 30, "base64"},
		{"BMP", "[" + b64(bmpPic) + "]", "[" + PicturePlaceholder(MIMEBMP, int64(len(bmpPic))) + "]",
			MIMEBMP, "", bmpPic, 30, 20, "base64"},
		{"WebP", b64(webpPic), PicturePlaceholder(MIMEWebP, int64(len(webpPic))), MIMEWebP, "", webpPic, 33, 17, "base64"},
		{"padding is taken with the run", `"` + b64(fxPadded(t, 1000)) + `"`, `"` + PicturePlaceholder(MIMEPNG, 1000) + `"`,
			MIMEPNG, "", fxPadded(t, 1000), 4, 4, "base64"},
		{"data URL replaced whole", `<img src="data:image/png;base64,` + b64(pngPic) + `">`,
			`<img src="` + PicturePlaceholder(MIMEPNG, int64(len(pngPic))) + `">`, MIMEPNG, "image/png", pngPic, 48, 32, "data-url"},
		{"data URL whose label lies", "data:image/jpeg;base64," + b64(pngPic), PicturePlaceholder(MIMEPNG, int64(len(pngPic))),
			MIMEPNG, "image/jpeg", pngPic, 48, 32, "data-url"},
		{"escaped slashes in a JSON string", escapeSlashes(jsStringify(t, map[string]string{"image": b64(pngPic)})),
			`{"image":"` + PicturePlaceholder(MIMEPNG, int64(len(pngPic))) + `"}`, MIMEPNG, "", pngPic, 48, 32, "base64"},
		{"escaped data URL in a JSON string", escapeSlashes(jsStringify(t, map[string]string{"url": "data:image/png;base64," + b64(pngPic)})),
			`{"url":"` + PicturePlaceholder(MIMEPNG, int64(len(pngPic))) + `"}`, MIMEPNG, "image/png", pngPic, 48, 32, "data-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewLifter(Settings{}).Lift(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.wantText {
				t.Errorf("text = %.200q\nwant   %.200q", got.Text, tt.wantText)
			}
			imgs := got.Images()
			if len(got.Pictures) != 1 || len(imgs) != 1 {
				t.Fatalf("%d pictures, %d images; want 1 lifted", len(got.Pictures), len(imgs))
			}
			p, img := got.Pictures[0], imgs[0]
			if p.Outcome != OutcomeLifted || p.Type != tt.wantType {
				t.Errorf("outcome %s type %s, want lifted %s", p.Outcome, p.Type, tt.wantType)
			}
			if !bytes.Equal(img.Data, tt.wantBytes) {
				t.Errorf("image data (%d bytes) differs from the picture (%d bytes)", len(img.Data), len(tt.wantBytes))
			}
			if img.DeclaredType != tt.wantDeclared || img.Origin != corpora.OriginTool || img.Encoding != tt.wantEncoding {
				t.Errorf("image declared %q origin %q encoding %q", img.DeclaredType, img.Origin, img.Encoding)
			}
			if img.Width != tt.wantW || img.Height != tt.wantH {
				t.Errorf("size %d×%d, want %d×%d", img.Width, img.Height, tt.wantW, tt.wantH)
			}
			// A lifted text lifted again is unchanged.
			again, _ := NewLifter(Settings{}).Lift(got.Text)
			if !sameString(again.Text, got.Text) || len(again.Pictures) != 0 {
				t.Errorf("lifting the lifted text changed it")
			}
		})
	}
}

func TestLiftCaps(t *testing.T) {
	pic := fxPNG(t, 40, 40, true)
	n := int64(len(pic))
	var sb strings.Builder
	for i := range 9 {
		fmt.Fprintf(&sb, "picture %d: %s\n", i+1, b64(pic))
	}
	got, err := NewLifter(Settings{}).Lift(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Images()) != 8 {
		t.Fatalf("%d images lifted, want 8", len(got.Images()))
	}
	if p := got.Pictures[7]; p.Outcome != OutcomeLifted {
		t.Errorf("8th picture: %s, want lifted", p.Outcome)
	}
	if p := got.Pictures[8]; p.Outcome != OutcomeCapped {
		t.Errorf("9th picture: %s, want capped", p.Outcome)
	}
	wantTail := "picture 8: " + PicturePlaceholder(MIMEPNG, n) + "\npicture 9: " + LegacyPictureNote(MIMEPNG, n) + "\n"
	if !strings.HasSuffix(got.Text, wantTail) {
		t.Errorf("text ends %q, want %q", got.Text[len(got.Text)-len(wantTail):], wantTail)
	}

	// The cap counts the message, across its text parts.
	l := NewLifter(Settings{MaxPictures: 2})
	a, _ := l.Lift(b64(pic) + " " + b64(pic))
	b, _ := l.Lift(b64(pic))
	if len(a.Images()) != 2 || len(b.Images()) != 0 || b.Pictures[0].Outcome != OutcomeCapped {
		t.Errorf("caps across parts: %d then %d images", len(a.Images()), len(b.Images()))
	}

	// A picture over the byte cap is named, and its base64 never reaches the text.
	small := NewLifter(Settings{MaxPictureBytes: n - 1})
	c, _ := small.Lift("x " + b64(pic))
	if c.Text != "x "+LegacyPictureNote(MIMEPNG, n) || c.Pictures[0].Outcome != OutcomeCapped {
		t.Errorf("byte cap: %q %v", c.Text, c.Pictures[0].Outcome)
	}
}

func TestLiftCaps33MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 44 MB text")
	}
	const size = 33 << 20
	pic := make([]byte, size)
	copy(pic, fxPNG(t, 2, 2, false))
	text := `{"data":"` + b64(pic) + `"}`
	got, err := NewLifter(Settings{}).Lift(text)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":"` + LegacyPictureNote(MIMEPNG, size) + `"}`
	if got.Text != want {
		t.Errorf("text = %q, want %q", got.Text, want)
	}
	if len(got.Pictures) != 1 || got.Pictures[0].Outcome != OutcomeCapped || got.Pictures[0].Image != nil {
		t.Errorf("pictures = %+v", got.Pictures)
	}
	if want := "[image (image/png, 34,603,008 bytes): not shown to the model]"; !strings.Contains(got.Text, want) {
		t.Errorf("note %q missing", want)
	}
}

func TestLiftNoVisionEncoder(t *testing.T) {
	pic := fxPNG(t, 40, 40, true)
	text := `{"url":"data:image/png;base64,` + b64(pic) + `","also":"` + b64(pic) + `"}`
	got, err := NewLifter(Settings{NoVisionEncoder: true}).Lift(text)
	if err != nil {
		t.Fatal(err)
	}
	note := OmittedNote(ReasonNoVisionEncoder)
	if want := `{"url":"` + note + `","also":"` + note + `"}`; got.Text != want {
		t.Errorf("text = %q, want %q", got.Text, want)
	}
	if note != "[image omitted: the model has no vision encoder]" {
		t.Errorf("note = %q", note)
	}
	if len(got.Images()) != 0 || got.Pictures[0].Outcome != OutcomeOmitted {
		t.Errorf("images %d, outcome %s", len(got.Images()), got.Pictures[0].Outcome)
	}
}

// TestLiftHeadline reproduces the shape of the source document's case: a Chatbox (AI SDK 6)
// tool message carrying a ~1.5 MB PNG as JSON-stringified "image-data".
func TestLiftHeadline(t *testing.T) {
	pic := fxBigPNG()
	text := jsStringify(t, []aiSDKPart{
		{Type: "text", Text: "Captured the chat window"},
		{Type: "image-data", Data: b64(pic), MediaType: "image/png"},
	})
	got, err := NewLifter(Settings{}).Lift(text)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"Captured the chat window"},{"type":"image-data","data":"` +
		PicturePlaceholder(MIMEPNG, int64(len(pic))) + `","mediaType":"image/png"}]`
	if got.Text != want {
		t.Errorf("text = %q\nwant   %q", got.Text, want)
	}
	imgs := got.Images()
	if len(imgs) != 1 || !bytes.Equal(imgs[0].Data, pic) || imgs[0].Width != 620 || imgs[0].Height != 620 {
		t.Fatalf("lifted %d images", len(imgs))
	}
	if len(text) < 2_000_000 || len(got.Text) > 200 {
		t.Errorf("the tool message went from %d to %d characters", len(text), len(got.Text))
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1528438, "1,528,438"}, {2337795, "2,337,795"}, {-1234, "-1,234"},
		{34603008, "34,603,008"}}
	for _, tt := range tests {
		if got := FormatCount(tt.n); got != tt.want {
			t.Errorf("FormatCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := PicturePlaceholder(MIMEPNG, 1528438); got != "[image (image/png, 1,528,438 bytes)]" {
		t.Errorf("placeholder %q", got)
	}
	if got := LegacyPictureNote(MIMEPNG, 2337795); got != "[image (image/png, 2,337,795 bytes): not shown to the model]" {
		t.Errorf("note %q", got)
	}
}

func FuzzLift(f *testing.F) {
	pic := b64(fxPNG(f, 3, 3, false))
	f.Add("see "+pic+" ok", 32, 2, false)
	f.Add(`{"u":"data:image/jpeg;base64,`+escapeSlashes(pic)+`"}`, 16, 1, false)
	f.Add(pic+pic, 8, 1, true)
	f.Add(fxBase64Noise(300), 64, 8, false)
	f.Fuzz(func(t *testing.T, text string, minRun, maxPictures int, noVision bool) {
		s := Settings{MinRun: 1 + abs(minRun)%128, MaxPictures: abs(maxPictures) % 10, NoVisionEncoder: noVision}
		got, err := NewLifter(s).Lift(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Pictures) == 0 {
			if !sameString(got.Text, text) {
				t.Fatal("text without pictures changed")
			}
			return
		}
		// Every removed span was a valid picture, and everything else is kept in order.
		var rebuilt strings.Builder
		last := 0
		for _, p := range got.Pictures {
			r := p.Run
			if r.SpanStart() < last || r.End > len(text) {
				t.Fatalf("span %d–%d out of order", r.SpanStart(), r.End)
			}
			if r.Chars < s.MinRun {
				t.Fatalf("a run of %d characters under the minimum %d", r.Chars, s.MinRun)
			}
			if r.Decodable() {
				data, err := DecodeRun(text, r)
				if err != nil || SniffImage(data) == "" || SniffImage(data) != p.Type {
					t.Fatalf("removed span %d–%d is not a %s picture (%v)", r.Start, r.End, p.Type, err)
				}
				if p.Image != nil && !bytes.Equal(p.Image.Data, data) {
					t.Fatal("image data differs from the span's bytes")
				}
			}
			rebuilt.WriteString(text[last:r.SpanStart()])
			if p.Outcome == OutcomeText {
				// §4.1: a run that does not decode to a picture stays byte for byte.
				rebuilt.WriteString(text[r.SpanStart():r.End])
			} else {
				rebuilt.WriteString(pictureStandIn(p))
			}
			last = r.End
		}
		rebuilt.WriteString(text[last:])
		if rebuilt.String() != got.Text {
			t.Fatal("text outside the pictures changed")
		}
		again, _ := NewLifter(s).Lift(got.Text)
		if again.Text != got.Text {
			t.Fatal("lifting the lifted text changed it")
		}
		// Plan then DecodeInto a used buffer gives every lifted picture the bytes of its span.
		plan := NewLifter(s).Plan(text)
		if _, err := plan.DecodeInto(text, bytes.Repeat([]byte{0xAA}, len(text)/2)); err != nil {
			t.Fatal(err)
		}
		for _, p := range plan.Pictures {
			if p.Image == nil {
				continue
			}
			if data, err := DecodeRun(text, p.Run); err != nil || !bytes.Equal(p.Image.Data, data) {
				t.Fatalf("DecodeInto: picture at %d differs from its span's bytes (%v)", p.Run.Start, err)
			}
		}
	})
}

// TestDecodeInto: the pictures of a plan decode into one buffer, each to its own bytes and
// declared size; a buffer handed back serves the next message without allocating.
func TestDecodeInto(t *testing.T) {
	pics := [][]byte{fxPNG(t, 48, 32, true), fxJPEG(t, 64, 40), fxGIF(t, 50, 30)}
	sizes := [][2]int{{48, 32}, {64, 40}, {50, 30}}
	// The JPEG in a data URL as JSON with "\/" escapes (the chunked decode), the others bare.
	jpeg := escapeSlashes(b64(pics[1]))
	if !strings.Contains(jpeg, `\/`) {
		t.Fatal("the JPEG's base64 has no '/': the escaped decode is not exercised")
	}
	text := `{"a":"` + b64(pics[0]) + `","b":"data:image\/jpeg;base64,` + jpeg + `","c":"see ` + b64(pics[2]) + `"}`
	var buf []byte
	for round := 0; round < 2; round++ {
		plan := NewLifter(Settings{}).Plan(text)
		if len(plan.Pictures) != 3 {
			t.Fatalf("%d pictures", len(plan.Pictures))
		}
		var err error
		if buf, err = plan.DecodeInto(text, buf); err != nil {
			t.Fatal(err)
		}
		for i, p := range plan.Pictures {
			if !bytes.Equal(p.Image.Data, pics[i]) || p.Image.Width != sizes[i][0] || p.Image.Height != sizes[i][1] {
				t.Errorf("round %d picture %d: %d bytes %d×%d, want %d bytes %v", round, i, len(p.Image.Data), p.Image.Width, p.Image.Height, len(pics[i]), sizes[i])
			}
			if cap(p.Image.Data) != len(p.Image.Data) {
				t.Errorf("picture %d: cap %d past its %d bytes (an append would write over the next)", i, cap(p.Image.Data), len(p.Image.Data))
			}
		}
	}
	// The bare runs decode in place; a run with escapes goes through a chunk buffer of 4 KiB.
	bare := `{"a":"` + b64(pics[0]) + `","c":"see ` + b64(pics[2]) + `"}`
	plan := NewLifter(Settings{}).Plan(bare)
	buf, _ = plan.DecodeInto(bare, buf)
	if n := testing.AllocsPerRun(5, func() {
		for i := range plan.Pictures {
			plan.Pictures[i].Image.Data = nil
		}
		buf, _ = plan.DecodeInto(bare, buf)
	}); n != 0 {
		t.Errorf("%v allocations per DecodeInto into a buffer that fits", n)
	}
	// Decode, on its own, gives the same bytes.
	plan = NewLifter(Settings{}).Plan(text)
	if err := plan.Decode(text); err != nil {
		t.Fatal(err)
	}
	for i, p := range plan.Pictures {
		if !bytes.Equal(p.Image.Data, pics[i]) {
			t.Errorf("Decode: picture %d differs", i)
		}
	}
}

func TestLiftDataURLPrefixInsideEarlierRun(t *testing.T) {
	pic := b64(fxPadded(t, 999)) // no padding: the first run goes on into "data"
	text := pic + "data:image/png;base64," + pic
	got, err := NewLifter(Settings{}).Lift(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pictures) != 2 {
		t.Fatalf("%d pictures", len(got.Pictures))
	}
	if got.Pictures[1].Run.URLStart != -1 {
		t.Errorf("the second run claims a data URL that the first run holds")
	}
	if strings.Count(got.Text, "[image (image/png") != 2 {
		t.Errorf("text = %q", got.Text)
	}
}
