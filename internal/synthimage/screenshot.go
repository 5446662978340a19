package synthimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
)

// Look says what a Screenshot shows; the zero value is the default look.
type Look struct {
	// Square is the colour of the large square (Red when its alpha is zero).
	Square color.RGBA
	// Text is the line under the square ("ORDER 4711" when empty).
	Text string
}

// Screenshot draws a w×h picture shaped like a desktop screenshot: a title bar and a side
// bar with text, a heading, a large square of the look's colour (red by default) with a
// caption, a line of the look's text (default "ORDER 4711"), and a photo panel on the right of
// which the first noisyPixels pixels (row by row) are camera-noise, the rest a smooth
// gradient. The noise is what makes the PNG large: about 2.4 bytes a noisy pixel.
func Screenshot(w, h int, seed int64, noisyPixels int, look Look) *image.RGBA {
	w, h = ClampSide(w), ClampSide(h)
	square := Red
	if look.Square.A != 0 {
		square = look.Square
	}
	text := "ORDER 4711"
	if look.Text != "" {
		text = look.Text
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	FillRect(img, img.Bounds(), color.RGBA{R: 0xF3, G: 0xF4, B: 0xF6, A: 0xFF})
	titleBar := color.RGBA{R: 0x1F, G: 0x29, B: 0x37, A: 0xFF}
	FillRect(img, image.Rect(0, 0, w, 36), titleBar)
	DrawText(img, 16, 11, 2, "SHOP ADMIN - ORDERS", White)
	FillRect(img, image.Rect(0, 36, 200, h), color.RGBA{R: 0xE5, G: 0xE7, B: 0xEB, A: 0xFF})
	for i, item := range []string{"DASHBOARD", "ORDERS", "CUSTOMERS", "PRODUCTS", "SETTINGS"} {
		DrawText(img, 20, 60+i*36, 2, item, color.RGBA{R: 0x37, G: 0x41, B: 0x51, A: 0xFF})
	}
	DrawText(img, 230, 60, 3, "STATUS", Black)
	FillRect(img, image.Rect(230, 100, 470, 340), square)
	DrawText(img, 230, 360, 3, text, Black)

	panel := photoPanel(w, h)
	r := NewRNG(seed)
	from := color.RGBA{R: uint8(60 + r.Intn(60)), G: uint8(80 + r.Intn(60)), B: uint8(100 + r.Intn(60)), A: 0xFF}
	to := color.RGBA{R: uint8(150 + r.Intn(60)), G: uint8(130 + r.Intn(60)), B: uint8(110 + r.Intn(60)), A: 0xFF}
	noiseSeed := r.Next()
	n := 0
	for y := panel.Min.Y; y < panel.Max.Y; y++ {
		base := Lerp(from, to, y-panel.Min.Y, panel.Dy())
		for x := panel.Min.X; x < panel.Max.X; x++ {
			c := base
			if n < noisyPixels {
				z := Mix64(noiseSeed ^ uint64(y)<<32 ^ uint64(x))
				c.R = noisy(c.R, z)
				c.G = noisy(c.G, z>>16)
				c.B = noisy(c.B, z>>32)
			}
			img.SetRGBA(x, y, c)
			n++
		}
	}
	return img
}

// noisy adds camera-like noise of ±96 to v.
func noisy(v uint8, z uint64) uint8 {
	x := int(v) + int(z%193) - 96
	return uint8(max(0, min(255, x)))
}

// photoPanel is where Screenshot puts its photo: right of the square, below the title bar.
func photoPanel(w, h int) image.Rectangle {
	return image.Rect(500, 60, w-20, h-20).Intersect(image.Rect(0, 0, w, h))
}

// ScreenshotCapacity is the number of pixels of Screenshot's photo panel at size w×h, the
// most noisyPixels can usefully be.
func ScreenshotCapacity(w, h int) int {
	p := photoPanel(ClampSide(w), ClampSide(h))
	if p.Empty() {
		return 0
	}
	return p.Dx() * p.Dy()
}

// minPad is the smallest padding chunk: length, type and CRC, plus "Comment\x00".
const minPad = 12 + 8

// ScreenshotPNG returns a w×h Screenshot PNG of exactly targetBytes bytes: the amount of noise
// is searched so that the encoded picture comes within 0.5% under the target, and a tEXt
// "Comment" chunk before IEND makes up the rest. It fails when the size cannot be reached
// within 3% by noise (choose a larger picture) or is below the noiseless encoding.
func ScreenshotPNG(w, h int, seed int64, targetBytes int, look Look) ([]byte, error) {
	encode := func(noisy int) ([]byte, error) { return EncodePNG(Screenshot(w, h, seed, noisy, look)) }
	capacity := ScreenshotCapacity(w, h)
	lo, err := encode(0)
	if err != nil {
		return nil, err
	}
	if len(lo) > targetBytes {
		return nil, fmt.Errorf("screenshot png: %dx%d without noise is already %d bytes, over the target %d", w, h, len(lo), targetBytes)
	}
	loN, hiN := 0, capacity
	hi, err := encode(capacity)
	if err != nil {
		return nil, err
	}
	if len(hi) < targetBytes*97/100 {
		return nil, fmt.Errorf("screenshot png: %dx%d reaches only %d bytes, under 97%% of the target %d; use a larger picture", w, h, len(hi), targetBytes)
	}
	goal := targetBytes - minPad - targetBytes/400 // aim a little under, then pad
	best := lo
	if len(hi) <= targetBytes-minPad {
		best = hi
	}
	loSize, hiSize := len(lo), len(hi)
	for i := 0; i < 12 && hiN-loN > 1; i++ {
		// Interpolate: size is close to linear in the number of noisy pixels.
		n := loN + int(float64(hiN-loN)*float64(goal-loSize)/float64(max(1, hiSize-loSize)))
		n = max(loN+1, min(hiN-1, n))
		b, err := encode(n)
		if err != nil {
			return nil, err
		}
		if len(b) <= targetBytes-minPad {
			loN, loSize = n, len(b)
			if len(b) > len(best) {
				best = b
			}
			if len(b) >= targetBytes-targetBytes/200 {
				break
			}
		} else {
			hiN, hiSize = n, len(b)
		}
	}
	if len(best) < targetBytes*97/100 {
		return nil, fmt.Errorf("screenshot png: could not come within 3%% of %d bytes (best %d)", targetBytes, len(best))
	}
	return PadPNG(best, targetBytes)
}

// PadPNG returns png grown to exactly size bytes by a tEXt "Comment" chunk inserted before
// IEND. The padding must be 0 or at least 20 bytes.
func PadPNG(png []byte, size int) ([]byte, error) {
	pad := size - len(png)
	if pad == 0 {
		return png, nil
	}
	iend := []byte{0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82}
	if pad < minPad || !bytes.HasSuffix(png, iend) {
		return nil, errors.New("pad png: not a PNG ending in IEND, or padding under 20 bytes")
	}
	data := make([]byte, 0, pad-12)
	data = append(data, "Comment\x00"...)
	const filler = "strata-eval test screenshot; padding to a fixed size. "
	for len(data) < pad-12 {
		data = append(data, filler[(len(data)-8)%len(filler)])
	}
	out := make([]byte, 0, size)
	out = append(out, png[:len(png)-len(iend)]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, "tEXt"...)
	out = append(out, data...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	out = append(out, iend...)
	return out, nil
}
