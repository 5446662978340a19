package replay

import (
	"strconv"
)

// Reasons given in "[image omitted: …]" notes.
const (
	ReasonNoVisionEncoder = "the model has no vision encoder"
)

// FormatCount writes n in decimal with a comma between each group of three digits, as the
// server's notes do ("1,528,438").
func FormatCount(n int64) string {
	var buf [32]byte
	return string(appendCount(buf[:0], n))
}

// appendCount appends n with thousands separators to dst.
func appendCount(dst []byte, n int64) []byte {
	if n < 0 {
		dst = append(dst, '-')
		if n == -n { // math.MinInt64 has no positive counterpart
			return append(dst, "9,223,372,036,854,775,808"...)
		}
		n = -n
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}

// PicturePlaceholder is the text left where a picture was lifted out of a tool's text
// (docs/pipeline.md §4.4): "[image (image/png, 1,528,438 bytes)]". mime is the type the
// signature says and n the decoded byte count.
func PicturePlaceholder(mime string, n int64) string {
	b := make([]byte, 0, len(mime)+40)
	b = append(b, "[image ("...)
	b = append(b, mime...)
	b = append(b, ", "...)
	b = appendCount(b, n)
	b = append(b, " bytes)]"...)
	return string(b)
}

// LegacyPictureNote is the line that names a picture the model is not shown (docs/pipeline.md §3):
// "[image (image/png, 2,337,795 bytes): not shown to the model]".
func LegacyPictureNote(mime string, n int64) string {
	return legacyNote("image", mime, n)
}

// legacyNote renders "[<kind> (<mime>, <n> bytes): not shown to the model]".
func legacyNote(kind, mime string, n int64) string {
	b := make([]byte, 0, len(kind)+len(mime)+60)
	b = append(b, '[')
	b = append(b, kind...)
	b = append(b, " ("...)
	b = append(b, mime...)
	b = append(b, ", "...)
	b = appendCount(b, n)
	b = append(b, " bytes): not shown to the model]"...)
	return string(b)
}

// OmittedNote is the text that stands where a picture is omitted: "[image omitted: <reason>]".
func OmittedNote(reason string) string {
	return "[image omitted: " + reason + "]"
}
