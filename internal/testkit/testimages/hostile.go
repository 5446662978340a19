package testimages

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"

	"github.com/strata-eval/strata-eval/internal/synthimage"
)

// Hostile pictures: files whose headers lie, bombs, truncations and garbage behind a real
// signature, made by code for the tests of the picture check. None of them is valid for a
// careful decoder, except PNGBomb and ManyFrameGIF, which are valid but over the limits.

// PNGChunk writes one PNG chunk with its CRC.
func PNGChunk(kind string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, kind...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// pngIHDR is an IHDR payload: size, bit depth and colour type, no interlace.
func pngIHDR(w, h uint32, depth, colour byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, w)
	b = binary.BigEndian.AppendUint32(b, h)
	return append(b, depth, colour, 0, 0, 0)
}

// ClaimingPNG is a PNG whose IHDR claims w×h RGBA pixels but whose IDAT is an empty zlib
// stream: the header lies about the data.
func ClaimingPNG(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, PNGChunk("IHDR", pngIHDR(w, h, 8, 6))...)
	b = append(b, PNGChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(b, PNGChunk("IEND", nil)...)
}

// PNGBomb is a valid 1-bit grey PNG of w×h black pixels: a few kilobytes that inflate to
// h×(1+⌈w/8⌉) bytes (10,001×10,000 is 12.5 MB of rows and 100,010,000 pixels).
func PNGBomb(w, h int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+(w+7)/8) // filter 0, all pixels 0
	for range h {
		zw.Write(row)
	}
	zw.Close()
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, PNGChunk("IHDR", pngIHDR(uint32(w), uint32(h), 1, 0))...)
	b = append(b, PNGChunk("IDAT", z.Bytes())...)
	return append(b, PNGChunk("IEND", nil)...)
}

// WithPNGSize returns a copy of a PNG with the size in its IHDR replaced (the CRC fixed), so
// that the header no longer matches the data: height 0, or more rows than the data holds.
func WithPNGSize(png []byte, w, h uint32) []byte {
	out := append([]byte(nil), png...)
	if len(out) < 33 {
		return out
	}
	binary.BigEndian.PutUint32(out[16:20], w)
	binary.BigEndian.PutUint32(out[20:24], h)
	binary.BigEndian.PutUint32(out[29:33], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// ClaimingJPEG is a JPEG of only SOI, a start-of-frame declaring w×h and EOI.
func ClaimingJPEG(w, h uint16) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1}
	binary.BigEndian.PutUint16(b[7:], h)
	binary.BigEndian.PutUint16(b[9:], w)
	return append(b, 0xFF, 0xD9)
}

// GarbageJPEG is the JPEG signature FF D8 FF followed by n bytes of seeded noise.
func GarbageJPEG(n int, seed int64) []byte {
	b := []byte{0xFF, 0xD8, 0xFF}
	r := synthimage.NewRNG(seed)
	for range n {
		b = append(b, byte(r.Next()))
	}
	return b
}

// ClaimingGIF is a GIF whose screen and only frame are w×h but whose LZW data is a few bytes.
func ClaimingGIF(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	b = append(b, 0x00, 0, 0)       // no global colour table
	b = append(b, 0x2C, 0, 0, 0, 0) // image descriptor at 0,0
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	b = append(b, 0x80, 0, 0, 0, 0, 0, 0, 2, 2, 0x4C, 0x01, 0) // local table of 2, 2 bytes of LZW data
	return append(b, 0x3B)
}

// ManyFrameGIF is a valid animated GIF of the given number of 2×2 frames.
func ManyFrameGIF(frames int) []byte {
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	for i := range frames {
		m := image.NewPaletted(image.Rect(0, 0, 2, 2), pal)
		m.Pix[i%4] = 1
		g.Image = append(g.Image, m)
		g.Delay = append(g.Delay, 1)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		return nil
	}
	return buf.Bytes()
}

// ClaimingBMP is a 24-bit BMP whose header declares w×h (a negative h: top-down) followed by
// 16 bytes of pixels.
func ClaimingBMP(w, h int32) []byte {
	b := make([]byte, 54)
	copy(b, "BM")
	binary.LittleEndian.PutUint32(b[2:], 54+16)
	binary.LittleEndian.PutUint32(b[10:], 54)
	binary.LittleEndian.PutUint32(b[14:], 40)
	binary.LittleEndian.PutUint32(b[18:], uint32(w))
	binary.LittleEndian.PutUint32(b[22:], uint32(h))
	binary.LittleEndian.PutUint16(b[26:], 1)
	binary.LittleEndian.PutUint16(b[28:], 24)
	return append(b, make([]byte, 16)...)
}

// ClaimingWebP is an extended (VP8X) WebP whose canvas is w×h and which carries no image.
func ClaimingWebP(w, h int) []byte {
	vp8x := make([]byte, 10)
	put24 := func(b []byte, v int) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }
	put24(vp8x[4:], w-1)
	put24(vp8x[7:], h-1)
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, uint32(4+8+len(vp8x)))
	b = append(b, "WEBPVP8X"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vp8x)))
	return append(b, vp8x...)
}
