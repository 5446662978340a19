package replay

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
)

// pngThumbnail makes MakeThumbnail's w×h pixels of a PNG of 8-bit RGB or RGBA, not
// interlaced, as it inflates it: a source row is unfiltered and kept only while a destination
// row needs it, so the whole picture is never held, converted or copied. The pixels are those
// the full decode, flattenForJPEG and downscaleArea give (TestPNGThumbnailMatchesDecode). ok
// is false for any other PNG and at any doubt (a chunk out of place or with a bad CRC, a
// transparent colour, a filter that is no PNG filter, too little or too much data, a bad
// checksum), which the full decode then judges.
func pngThumbnail(data []byte, w, h int) (*image.RGBA, bool) {
	sw, sh, bpp, idatBytes, ok := pngPlainRGB(data)
	if !ok || w > sw || h > sh {
		return nil, false
	}
	idat := &pngIDATReader{data: data, off: 8}
	zr, err := zlib.NewReader(idat)
	if err != nil {
		return nil, false
	}
	a := newAreaScaler(sw, sh, w, h, 4)
	// Destination row y needs source rows a.vy[y][0] to its last; a row is kept until the last
	// destination row that needs it is made.
	span := 0
	for _, cys := range a.vy {
		span = max(span, cys[len(cys)-1].index-cys[0].index+1)
	}
	rowBytes := sw * bpp
	kept := make([]byte, (span+1)*rowBytes) // the rows kept, by index modulo span+1
	rowOf := func(i int) []byte { return kept[i%(span+1)*rowBytes:][:rowBytes] }
	filtered := make([]byte, 1+rowBytes)
	zero := make([]byte, rowBytes)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	y := 0
	for i := range sh {
		if _, err := io.ReadFull(zr, filtered); err != nil {
			return nil, false
		}
		prev := zero
		if i > 0 {
			prev = rowOf(i - 1)
		}
		if !unfilterPNGRow(rowOf(i), filtered[0], filtered[1:], prev, bpp) {
			return nil, false
		}
		for y < h && a.vy[y][len(a.vy[y])-1].index == i {
			a.row(out.Pix[y*out.Stride:], y, rowOf, bpp)
			y++
		}
	}
	// The stream ends here, its checksum right, and every byte of the IDAT chunks read.
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != io.EOF || idat.read != idatBytes || y != h {
		return nil, false
	}
	return out, true
}

// pngPlainRGB reads the chunks of a PNG that pngThumbnail takes: 8-bit RGB or RGBA (bpp 3 or
// 4), not interlaced, every chunk's CRC right, IHDR first, IDAT chunks in one run, IEND last,
// no PLTE after the pixels and no tRNS; idatBytes is the length of the IDAT payloads.
func pngPlainRGB(data []byte) (w, h, bpp, idatBytes int, ok bool) {
	const signature = "\x89PNG\r\n\x1a\n"
	if !bytes.HasPrefix(data, []byte(signature)) {
		return 0, 0, 0, 0, false
	}
	const (
		beforePixels = iota
		inPixels
		afterPixels
	)
	stage := beforePixels
	for off, first := len(signature), true; ; first = false {
		if len(data)-off < 12 {
			return 0, 0, 0, 0, false
		}
		n := int(binary.BigEndian.Uint32(data[off:]))
		if n > len(data)-off-12 {
			return 0, 0, 0, 0, false
		}
		kind, payload := string(data[off+4:off+8]), data[off+8:off+8+n]
		if crc32.ChecksumIEEE(data[off+4:off+8+n]) != binary.BigEndian.Uint32(data[off+8+n:]) {
			return 0, 0, 0, 0, false
		}
		off += 12 + n
		if first != (kind == "IHDR") {
			return 0, 0, 0, 0, false
		}
		switch kind {
		case "IHDR":
			if n != 13 || payload[8] != 8 || payload[10] != 0 || payload[11] != 0 || payload[12] != 0 {
				return 0, 0, 0, 0, false
			}
			switch payload[9] {
			case 2:
				bpp = 3
			case 6:
				bpp = 4
			default:
				return 0, 0, 0, 0, false
			}
			w, h = int(binary.BigEndian.Uint32(payload[0:])), int(binary.BigEndian.Uint32(payload[4:]))
			if w <= 0 || h <= 0 || w > 1<<24 || h > 1<<24 {
				return 0, 0, 0, 0, false
			}
		case "IDAT":
			if stage == afterPixels {
				return 0, 0, 0, 0, false
			}
			stage = inPixels
			idatBytes += n
		case "IEND":
			return w, h, bpp, idatBytes, stage != beforePixels
		case "PLTE": // a suggested palette, which the decoder leaves aside for RGB
			if stage != beforePixels {
				return 0, 0, 0, 0, false
			}
		case "tRNS":
			return 0, 0, 0, 0, false
		default:
			if kind[0]&0x20 == 0 { // a critical chunk the decoder does not know
				return 0, 0, 0, 0, false
			}
		}
		if stage == inPixels && kind != "IDAT" {
			stage = afterPixels
		}
	}
}

// unfilterPNGRow writes to row the bytes of a row filtered with filter (PNG filters 0 to 4)
// from the row before, prev; false for a filter that is none of them.
func unfilterPNGRow(row []byte, filter byte, cur, prev []byte, bpp int) bool {
	switch filter {
	case 0:
		copy(row, cur)
	case 1: // Sub
		copy(row[:bpp], cur[:bpp])
		for i := bpp; i < len(row); i++ {
			row[i] = cur[i] + row[i-bpp]
		}
	case 2: // Up
		for i := range row {
			row[i] = cur[i] + prev[i]
		}
	case 3: // Average
		for i := range bpp {
			row[i] = cur[i] + prev[i]/2
		}
		for i := bpp; i < len(row); i++ {
			row[i] = cur[i] + byte((int(row[i-bpp])+int(prev[i]))/2)
		}
	case 4: // Paeth
		for i := range bpp {
			row[i] = cur[i] + prev[i] // the predictor of a first pixel is the byte above
		}
		for i := bpp; i < len(row); i++ {
			row[i] = cur[i] + paethPredictor(row[i-bpp], prev[i], prev[i-bpp])
		}
	default:
		return false
	}
	return true
}

// paethPredictor is the PNG Paeth predictor of a byte from the bytes to its left (a), above
// (b) and above-left (c).
func paethPredictor(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := absInt(p-int(a)), absInt(p-int(b)), absInt(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
