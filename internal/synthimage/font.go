package synthimage

import (
	"image"
	"image/color"
	"strings"
)

// glyphWidth and glyphHeight are the size of a glyph of the built-in font, in font pixels.
const (
	glyphWidth  = 5
	glyphHeight = 7
	// cellWidth and cellHeight add one column and one row of spacing around a glyph.
	cellWidth  = glyphWidth + 1
	cellHeight = glyphHeight + 1
)

// glyphs is a tiny 5×7 bitmap font: upper-case letters, digits and a little punctuation.
// Each glyph is seven rows of five columns; '#' is ink.
var glyphs = map[rune][glyphHeight]string{
	'0': {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	'1': {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'2': {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	'3': {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
	'4': {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	'5': {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	'6': {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	'7': {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	'8': {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	'9': {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
	'A': {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'B': {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."},
	'C': {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."},
	'D': {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."},
	'E': {"#####", "#....", "#....", "####.", "#....", "#....", "#####"},
	'F': {"#####", "#....", "#....", "####.", "#....", "#....", "#...."},
	'G': {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"},
	'H': {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'I': {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'J': {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."},
	'K': {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"},
	'L': {"#....", "#....", "#....", "#....", "#....", "#....", "#####"},
	'M': {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"},
	'N': {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"},
	'O': {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'P': {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."},
	'Q': {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"},
	'R': {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"},
	'S': {".####", "#....", "#....", ".###.", "....#", "....#", "####."},
	'T': {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."},
	'U': {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'V': {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."},
	'W': {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."},
	'X': {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"},
	'Y': {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."},
	'Z': {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"},
	' ': {".....", ".....", ".....", ".....", ".....", ".....", "....."},
	'-': {".....", ".....", ".....", "#####", ".....", ".....", "....."},
	'.': {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."},
	',': {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."},
	':': {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."},
	'!': {"..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."},
	'?': {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."},
	'#': {".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#."},
	'/': {"....#", "....#", "...#.", "..#..", ".#...", "#....", "#...."},
	'+': {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."},
	'=': {".....", ".....", "#####", ".....", "#####", ".....", "....."},
	'%': {"##..#", "##..#", "...#.", "..#..", ".#...", "#..##", "#..##"},
	'(': {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."},
	')': {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."},
}

// unknownGlyph is drawn for a character the font does not have: a hollow box.
var unknownGlyph = [glyphHeight]string{"#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####"}

// glyphFor returns the glyph of r; lower-case letters are drawn as upper-case ones.
func glyphFor(r rune) [glyphHeight]string {
	if r >= 'a' && r <= 'z' {
		r -= 'a' - 'A'
	}
	if g, ok := glyphs[r]; ok {
		return g
	}
	return unknownGlyph
}

// TextSize returns the size in pixels of text drawn at the given scale (one line per '\n').
func TextSize(text string, scale int) (width, height int) {
	if scale < 1 {
		scale = 1
	}
	lines := strings.Split(text, "\n")
	longest := 0
	for _, l := range lines {
		if n := len([]rune(l)); n > longest {
			longest = n
		}
	}
	if longest == 0 {
		return 0, 0
	}
	return (longest*cellWidth - 1) * scale, (len(lines)*cellHeight - 1) * scale
}

// DrawText draws text with the built-in 5×7 font onto dst, top-left corner at (x, y), each font
// pixel a scale×scale square of colour ink. Pixels outside dst are clipped.
func DrawText(dst *image.RGBA, x, y, scale int, text string, ink color.RGBA) {
	if scale < 1 {
		scale = 1
	}
	for lineIndex, line := range strings.Split(text, "\n") {
		top := y + lineIndex*cellHeight*scale
		for i, r := range []rune(line) {
			left := x + i*cellWidth*scale
			g := glyphFor(r)
			for row := 0; row < glyphHeight; row++ {
				for col := 0; col < glyphWidth; col++ {
					if g[row][col] == '#' {
						FillRect(dst, image.Rect(left+col*scale, top+row*scale, left+(col+1)*scale, top+(row+1)*scale), ink)
					}
				}
			}
		}
	}
}

// FillRect fills r (clipped to dst) with c.
func FillRect(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(dst.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := dst.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x++ {
			dst.Pix[i+0] = c.R
			dst.Pix[i+1] = c.G
			dst.Pix[i+2] = c.B
			dst.Pix[i+3] = c.A
			i += 4
		}
	}
}
