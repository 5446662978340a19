package testimages

import (
	"image"

	"github.com/strata-eval/strata-eval/internal/synthimage"
)

// Screenshot is synthimage.Screenshot with this package's options: WithSquare sets the
// square's colour and WithText the line under it.
func Screenshot(w, h int, seed int64, noisyPixels int, opts ...Option) *image.RGBA {
	return synthimage.Screenshot(w, h, seed, noisyPixels, look(opts))
}

// ScreenshotPNG is synthimage.ScreenshotPNG (a Screenshot PNG of exactly targetBytes bytes)
// with this package's options.
func ScreenshotPNG(w, h int, seed int64, targetBytes int, opts ...Option) ([]byte, error) {
	return synthimage.ScreenshotPNG(w, h, seed, targetBytes, look(opts))
}

// ScreenshotCapacity is synthimage.ScreenshotCapacity: the most noisy pixels a w×h
// Screenshot can have.
func ScreenshotCapacity(w, h int) int { return synthimage.ScreenshotCapacity(w, h) }

// PadPNG is synthimage.PadPNG: png grown to exactly size bytes by a comment chunk.
func PadPNG(png []byte, size int) ([]byte, error) { return synthimage.PadPNG(png, size) }

// look is the screenshot look the options ask for.
func look(opts []Option) synthimage.Look {
	s := collect(opts)
	var l synthimage.Look
	if s.square != nil {
		l.Square = *s.square
	}
	l.Text = s.text
	return l
}
