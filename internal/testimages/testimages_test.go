package testimages

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"
)

func TestEncodersMakeDecodablePicturesOfTheRightSize(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		wantType string
		w, h     int
	}{
		{"png pattern", PNG(64, 48, 1), "image/png", 64, 48},
		{"png solid", PNG(16, 16, 1, WithSolid(Blue)), "image/png", 16, 16},
		{"jpeg", JPEG(320, 200, 2, WithSquare(Green)), "image/jpeg", 320, 200},
		{"gif", GIF(40, 30, 3, WithText("42")), "image/gif", 40, 30},
		{"animated gif", AnimatedGIF(60, 40, 4, []string{"1", "2", "3"}), "image/gif", 60, 40},
		{"bmp", BMP(64, 48, 5, WithSolid(Yellow)), "image/bmp", 64, 48},
		{"webp", WebP(96, 64, 6, WithText("7B")), "image/webp", 96, 64},
		{"clamped sides", PNG(0, -5, 1), "image/png", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.data) == 0 {
				t.Fatal("no bytes")
			}
			info, err := Inspect(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if info != (Info{Type: tt.wantType, Width: tt.w, Height: tt.h}) {
				t.Fatalf("Inspect = %+v, want %s %dx%d", info, tt.wantType, tt.w, tt.h)
			}
			m, _, err := image.Decode(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if m.Bounds().Dx() != tt.w || m.Bounds().Dy() != tt.h {
				t.Fatalf("decoded size %v", m.Bounds())
			}
		})
	}
}

func TestPicturesAreDeterministic(t *testing.T) {
	makers := map[string]func() []byte{
		"png":  func() []byte { return PNG(50, 40, 9, WithText("AB12")) },
		"jpeg": func() []byte { return JPEG(50, 40, 9) },
		"gif":  func() []byte { return AnimatedGIF(30, 20, 9, []string{"X", "Y"}) },
		"bmp":  func() []byte { return BMP(50, 40, 9) },
		"webp": func() []byte { return WebP(50, 40, 9) },
	}
	for name, make := range makers {
		a, b := make(), make()
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two calls gave different bytes", name)
		}
	}
	if bytes.Equal(PNG(50, 40, 1), PNG(50, 40, 2)) {
		t.Error("different seeds gave the same picture")
	}
}

func TestSolidAndSquareColours(t *testing.T) {
	tests := []struct {
		name string
		img  *image.RGBA
		at   image.Point
		want color.RGBA
	}{
		{"solid red corner", Picture(20, 10, 1, WithSolid(Red)), image.Pt(0, 0), Red},
		{"solid red far corner", Picture(20, 10, 1, WithSolid(Red)), image.Pt(19, 9), Red},
		{"square centre", Picture(100, 80, 1, WithSquare(Green)), image.Pt(50, 40), Green},
		{"square leaves the border light", Picture(100, 80, 1, WithSquare(Green)), image.Pt(2, 2), color.RGBA{R: 0xF4, G: 0xF4, B: 0xF0, A: 0xFF}},
		{"screenshot square", Screenshot(1280, 800, 1, 0), image.Pt(350, 220), Red},
		{"screenshot square colour option", Screenshot(1280, 800, 1, 0, WithSquare(Blue)), image.Pt(350, 220), Blue},
	}
	for _, tt := range tests {
		if got := tt.img.RGBAAt(tt.at.X, tt.at.Y); got != tt.want {
			t.Errorf("%s: pixel %v = %v, want %v", tt.name, tt.at, got, tt.want)
		}
	}
}

func TestDrawTextInksTheGlyphs(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	DrawText(img, 1, 1, 2, "1", Black)
	// The stem of '1' is column 2 of the glyph, rows 0..6; scale 2 from (1,1).
	for row := 1; row < 6; row++ {
		if got := img.RGBAAt(1+2*2, 1+row*2); got != Black {
			t.Fatalf("stem row %d not inked: %v", row, got)
		}
	}
	if got := img.RGBAAt(1, 1); got == Black {
		t.Fatal("top-left of '1' should be empty")
	}
	w, h := TextSize("AB\nC", 3)
	if w != (2*cellWidth-1)*3 || h != (2*cellHeight-1)*3 {
		t.Fatalf("TextSize = %d×%d", w, h)
	}
	// Clipping: drawing off the picture must not panic.
	DrawText(img, -30, -30, 5, "HELLO WORLD", Black)
	DrawText(img, 35, 15, 9, "??", Black)
}

func TestAnimatedGIFHasOneFramePerLabel(t *testing.T) {
	data := AnimatedGIF(32, 24, 1, []string{"A", "B", "C", "D"})
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 4 || g.Delay[0] != 50 {
		t.Fatalf("frames %d delay %v", len(g.Image), g.Delay)
	}
}

func TestScreenshotPNGHitsTheExactSize(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes a 1.5 MB PNG several times")
	}
	const target = 1_528_438 // the headline picture of docs/pipeline.md §1
	data, err := ScreenshotPNG(1280, 800, 1, target)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != target {
		t.Fatalf("size %d, want %d", len(data), target)
	}
	m, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode padded png: %v", err)
	}
	if got := m.(*image.RGBA).RGBAAt(300, 200); got != Red {
		t.Fatalf("square pixel %v", got)
	}
}

func TestScreenshotPNGRefusesUnreachableSizes(t *testing.T) {
	if _, err := ScreenshotPNG(600, 400, 1, 50_000_000); err == nil {
		t.Error("a 50 MB target for 600×400 should fail")
	}
	if _, err := ScreenshotPNG(600, 400, 1, 100); err == nil {
		t.Error("a 100-byte target should fail")
	}
}

func TestPadPNG(t *testing.T) {
	src := PNG(10, 10, 1)
	for _, pad := range []int{0, 20, 21, 1000} {
		out, err := PadPNG(src, len(src)+pad)
		if err != nil {
			t.Fatalf("pad %d: %v", pad, err)
		}
		if len(out) != len(src)+pad {
			t.Fatalf("pad %d: size %d", pad, len(out))
		}
		if _, _, err := image.Decode(bytes.NewReader(out)); err != nil {
			t.Fatalf("pad %d: decode: %v", pad, err)
		}
	}
	if _, err := PadPNG(src, len(src)+5); err == nil {
		t.Error("5 bytes of padding cannot be a chunk")
	}
	if _, err := PadPNG([]byte("not a png"), 100); err == nil {
		t.Error("non-PNG accepted")
	}
}

func BenchmarkEncodeWebP(b *testing.B) {
	img := Picture(256, 256, 1, WithText("BENCH"))
	b.ReportAllocs()
	b.SetBytes(256 * 256 * 4)
	for b.Loop() {
		if _, err := EncodeWebP(img); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWithGrainKeepsSquareCleanAndGrowsThePicture(t *testing.T) {
	plain := PNG(96, 96, 1, WithSquare(Purple))
	grainy := PNG(96, 96, 1, WithSquare(Purple), WithGrain(8))
	if len(grainy) <= 2*len(plain) {
		t.Fatalf("grain did not grow the PNG: %d vs %d bytes", len(grainy), len(plain))
	}
	img := Picture(96, 96, 1, WithSquare(Purple), WithGrain(8))
	if got := img.RGBAAt(48, 48); got != Purple {
		t.Fatalf("square pixel %v, want %v", got, Purple)
	}
	if got := img.RGBAAt(2, 2); got == (color.RGBA{R: 0xF4, G: 0xF4, B: 0xF0, A: 0xFF}) {
		t.Log("corner pixel happens to equal the background; checking another")
		if img.RGBAAt(3, 2) == img.RGBAAt(2, 2) && img.RGBAAt(4, 2) == img.RGBAAt(2, 2) {
			t.Fatal("background has no grain")
		}
	}
}
