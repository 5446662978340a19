package replay

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/strata-eval/strata-eval/corpora"
)

// The picture types the lift recognises by their signature (docs/pipeline.md §4.3); the signature
// rule itself lives with the canonical model (corpora.SniffImage).
const (
	MIMEPNG  = corpora.MIMEPNG
	MIMEJPEG = corpora.MIMEJPEG
	MIMEGIF  = corpora.MIMEGIF
	MIMEBMP  = corpora.MIMEBMP
	MIMEWebP = corpora.MIMEWebP
)

// SniffPrefixLen is how many leading bytes SniffImage needs to recognise every signature.
const SniffPrefixLen = corpora.SniffPrefixLen

// SniffImage returns the MIME type the picture's signature says, or "" (corpora.SniffImage).
func SniffImage(b []byte) string { return corpora.SniffImage(b) }

// errShortHeader is returned when a picture ends before its size is declared.
var errShortHeader = errors.New("the picture ends before its header gives its size")

// ImageHeaderSize reads the width and height a picture's header declares, without decoding
// any pixels. It knows the types SniffImage recognises. Sizes are returned as declared (a
// header may claim a gigantic size); a zero or negative size is an error.
func ImageHeaderSize(b []byte) (width, height int, err error) {
	switch SniffImage(b) {
	case MIMEPNG:
		width, height, err = pngHeaderSize(b)
	case MIMEJPEG:
		width, height, err = jpegHeaderSize(b)
	case MIMEGIF:
		if len(b) < 10 {
			return 0, 0, fmt.Errorf("gif: %w", errShortHeader)
		}
		width = int(binary.LittleEndian.Uint16(b[6:8]))
		height = int(binary.LittleEndian.Uint16(b[8:10]))
	case MIMEBMP:
		width, height, err = bmpHeaderSize(b)
	case MIMEWebP:
		width, height, err = webpHeaderSize(b)
	default:
		return 0, 0, errors.New("not a PNG, JPEG, GIF, BMP or WebP picture")
	}
	if err != nil {
		return 0, 0, err
	}
	if width <= 0 || height <= 0 {
		return 0, 0, fmt.Errorf("%s header declares an empty picture (%d×%d)", SniffImage(b), width, height)
	}
	return width, height, nil
}

func pngHeaderSize(b []byte) (int, int, error) {
	if len(b) < 24 {
		return 0, 0, fmt.Errorf("png: %w", errShortHeader)
	}
	if string(b[12:16]) != "IHDR" {
		return 0, 0, fmt.Errorf("png: first chunk is %q, not IHDR", b[12:16])
	}
	w := binary.BigEndian.Uint32(b[16:20])
	h := binary.BigEndian.Uint32(b[20:24])
	if w > 1<<31-1 || h > 1<<31-1 {
		return 0, 0, fmt.Errorf("png: IHDR declares %d×%d, beyond the PNG limit", w, h)
	}
	return int(w), int(h), nil
}

// jpegHeaderSize walks the marker segments up to the first start-of-frame marker.
func jpegHeaderSize(b []byte) (int, int, error) {
	i := 2
	for {
		// Markers may be preceded by any number of 0xFF fill bytes.
		if i >= len(b) || b[i] != 0xFF {
			if i >= len(b) {
				return 0, 0, fmt.Errorf("jpeg: %w", errShortHeader)
			}
			return 0, 0, fmt.Errorf("jpeg: byte %d is 0x%02X where a marker was expected", i, b[i])
		}
		for i < len(b) && b[i] == 0xFF {
			i++
		}
		if i >= len(b) {
			return 0, 0, fmt.Errorf("jpeg: %w", errShortHeader)
		}
		marker := b[i]
		i++
		switch {
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			continue // markers without a segment
		case marker == 0xD9 || marker == 0xDA:
			return 0, 0, fmt.Errorf("jpeg: marker 0x%02X at byte %d comes before any frame header", marker, i-1)
		}
		if i+2 > len(b) {
			return 0, 0, fmt.Errorf("jpeg: %w", errShortHeader)
		}
		length := int(binary.BigEndian.Uint16(b[i : i+2]))
		if length < 2 {
			return 0, 0, fmt.Errorf("jpeg: segment 0x%02X at byte %d has length %d", marker, i-2, length)
		}
		isFrame := marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
		if isFrame {
			if i+7 > len(b) {
				return 0, 0, fmt.Errorf("jpeg: %w", errShortHeader)
			}
			h := int(binary.BigEndian.Uint16(b[i+3 : i+5]))
			w := int(binary.BigEndian.Uint16(b[i+5 : i+7]))
			return w, h, nil
		}
		i += length
	}
}

func bmpHeaderSize(b []byte) (int, int, error) {
	if len(b) < 18 {
		return 0, 0, fmt.Errorf("bmp: %w", errShortHeader)
	}
	dib := binary.LittleEndian.Uint32(b[14:18])
	if dib == 12 { // BITMAPCOREHEADER: 16-bit unsigned sizes
		if len(b) < 22 {
			return 0, 0, fmt.Errorf("bmp: %w", errShortHeader)
		}
		return int(binary.LittleEndian.Uint16(b[18:20])), int(binary.LittleEndian.Uint16(b[20:22])), nil
	}
	if dib < 16 {
		return 0, 0, fmt.Errorf("bmp: DIB header size %d is not a known header", dib)
	}
	if len(b) < 26 {
		return 0, 0, fmt.Errorf("bmp: %w", errShortHeader)
	}
	w := int64(int32(binary.LittleEndian.Uint32(b[18:22])))
	h := int64(int32(binary.LittleEndian.Uint32(b[22:26])))
	if h < 0 { // a negative height means rows are stored top-down
		h = -h
	}
	return int(w), int(h), nil
}

func webpHeaderSize(b []byte) (int, int, error) {
	if len(b) < 20 {
		return 0, 0, fmt.Errorf("webp: %w", errShortHeader)
	}
	switch string(b[12:16]) {
	case "VP8 ": // lossy: a key frame's start code, then 14-bit sizes
		if len(b) < 30 {
			return 0, 0, fmt.Errorf("webp: %w", errShortHeader)
		}
		if b[23] != 0x9D || b[24] != 0x01 || b[25] != 0x2A {
			return 0, 0, errors.New("webp: VP8 frame lacks its start code")
		}
		w := int(binary.LittleEndian.Uint16(b[26:28]) & 0x3FFF)
		h := int(binary.LittleEndian.Uint16(b[28:30]) & 0x3FFF)
		return w, h, nil
	case "VP8L": // lossless: signature 0x2F, then 14-bit width-1 and height-1
		if len(b) < 25 {
			return 0, 0, fmt.Errorf("webp: %w", errShortHeader)
		}
		if b[20] != 0x2F {
			return 0, 0, errors.New("webp: VP8L chunk lacks its signature byte")
		}
		bits := binary.LittleEndian.Uint32(b[21:25])
		return int(bits&0x3FFF) + 1, int((bits>>14)&0x3FFF) + 1, nil
	case "VP8X": // extended: 24-bit canvas width-1 and height-1
		if len(b) < 30 {
			return 0, 0, fmt.Errorf("webp: %w", errShortHeader)
		}
		w := int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w + 1, h + 1, nil
	}
	return 0, 0, fmt.Errorf("webp: first chunk %q is not VP8, VP8L or VP8X", b[12:16])
}
