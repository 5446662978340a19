package replay

import "github.com/strata-eval/strata-eval/internal/thousands"

// The texts a server leaves in a message where a picture was: placeholders and notes, and the
// reasons they give.

// Reasons given in "[image omitted: …]" notes.
const (
	ReasonNoVisionEncoder = "the model has no vision encoder"
)

// FormatCount writes n in decimal with a comma between each group of three digits, as the
// server's notes do ("1,528,438").
func FormatCount(n int64) string { return thousands.Format(n) }

// PicturePlaceholder is the text left where a picture was lifted out of a tool's text
// (docs/pipeline.md §4.4): "[image (image/png, 1,528,438 bytes)]". mime is the type the
// signature says and n the decoded byte count.
func PicturePlaceholder(mime string, n int64) string {
	b := make([]byte, 0, len(mime)+40)
	b = append(b, "[image ("...)
	b = append(b, mime...)
	b = append(b, ", "...)
	b = thousands.Append(b, n)
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
	b = thousands.Append(b, n)
	b = append(b, " bytes): not shown to the model]"...)
	return string(b)
}

// OmittedNote is the text that stands where a picture is omitted: "[image omitted: <reason>]".
func OmittedNote(reason string) string {
	return "[image omitted: " + reason + "]"
}
