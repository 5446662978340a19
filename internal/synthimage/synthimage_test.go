package synthimage

import (
	"bytes"
	"image"
	_ "image/png"
	"testing"
)

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

func TestScreenshotPNGHitsTheExactSize(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes a 1.5 MB PNG several times")
	}
	const target = 1_528_438 // the headline picture of docs/pipeline.md §1
	data, err := ScreenshotPNG(1280, 800, 1, target, Look{})
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
	if _, err := ScreenshotPNG(600, 400, 1, 50_000_000, Look{}); err == nil {
		t.Error("a 50 MB target for 600×400 should fail")
	}
	if _, err := ScreenshotPNG(600, 400, 1, 100, Look{}); err == nil {
		t.Error("a 100-byte target should fail")
	}
}

func TestPadPNG(t *testing.T) {
	src, err := EncodePNG(image.NewRGBA(image.Rect(0, 0, 10, 10)))
	if err != nil {
		t.Fatal(err)
	}
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
