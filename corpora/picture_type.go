package corpora

// The picture types the pipeline recognises by their signature (docs/pipeline.md §4.3).
const (
	MIMEPNG  = "image/png"
	MIMEJPEG = "image/jpeg"
	MIMEGIF  = "image/gif"
	MIMEBMP  = "image/bmp"
	MIMEWebP = "image/webp"
)

// SniffPrefixLen is how many leading bytes SniffImage needs to recognise every signature.
const SniffPrefixLen = 12

// SniffImage returns the MIME type of the picture whose bytes start b, or "" when b does not
// start with a known image signature: PNG (89 50 4E 47 0D 0A 1A 0A), JPEG (FF D8 FF),
// GIF87a/GIF89a, BMP ("BM") or WebP ("RIFF" size "WEBP"). A label is never consulted.
func SniffImage(b []byte) string {
	switch {
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return MIMEPNG
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return MIMEJPEG
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return MIMEGIF
	case len(b) >= 2 && b[0] == 'B' && b[1] == 'M':
		return MIMEBMP
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return MIMEWebP
	}
	return ""
}
