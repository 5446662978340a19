package replay

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
)

// TextPicture is one picture met in a tool's text, and what the lift did with it.
type TextPicture struct {
	// Run is the base64 run in the original text (with its data URL, if any).
	Run Run
	// Type is the MIME type the signature says.
	Type string
	// Bytes is the decoded size.
	Bytes int64
	// Outcome is lifted, capped or omitted in the after arm, text in the before arm.
	Outcome Outcome
	// Reason explains a capped or omitted picture.
	Reason string
	// Image is the image part made of a lifted picture (nil otherwise). Its Data is set by
	// Lift, not by Plan.
	Image *corpora.Image
}

// TextLift is a tool's text after the lift.
type TextLift struct {
	// Text is the text as the model receives it. When no picture was met it is the input
	// string itself, not a copy.
	Text string
	// Pictures lists every picture met in the text, in order of appearance.
	Pictures []TextPicture
}

// Images returns the image parts of the lifted pictures, in order of appearance.
func (t TextLift) Images() []*corpora.Image {
	var out []*corpora.Image
	for _, p := range t.Pictures {
		if p.Image != nil {
			out = append(out, p.Image)
		}
	}
	return out
}

// Lifter lifts pictures out of the texts of one tool message (docs/pipeline.md §4). It counts
// the message's pictures against the caps, so use one Lifter per message (or MCP result) and
// pass it every text part of that message in order.
//
// Order of parts (the source server's: the text keeps a placeholder where each picture was and
// the pictures go to the encoder as image parts): a tool string becomes its text part followed
// by the lifted image parts in order of appearance; in a content array each text part is
// followed by the pictures lifted from it, so the client's own image parts keep their place.
// Outcomes, in order of precedence: no vision encoder → omitted; a run whose length cannot be
// base64 → omitted; past 8 lifted pictures or over 32 MiB → capped (the legacy note, computed
// from the run's length without decoding it); otherwise lifted.
type Lifter struct {
	minRun      int
	maxPictures int
	maxBytes    int64
	noVision    bool
	lifted      int
}

// NewLifter returns a Lifter for one message under the arm's settings (zero values are the
// defaults: min_run 1024, 8 pictures, 32 MiB each).
func NewLifter(s Settings) *Lifter {
	l := &Lifter{minRun: s.MinRun, maxPictures: s.MaxPictures, maxBytes: s.MaxPictureBytes, noVision: s.NoVisionEncoder}
	if l.minRun <= 0 {
		l.minRun = DefaultMinRun
	}
	if l.maxPictures <= 0 {
		l.maxPictures = DefaultMaxPictures
	}
	if l.maxBytes <= 0 {
		l.maxBytes = DefaultMaxPictureBytes
	}
	return l
}

// Lifted is the number of pictures this Lifter has lifted so far.
func (l *Lifter) Lifted() int { return l.lifted }

// Plan scans the text, decides the fate of every picture in it (lift, cap, omit) and writes
// the text the model receives. It decodes only the first bytes of each run; the image parts'
// Data is left nil (Lift fills it). A run that is not a picture is left byte for byte.
func (l *Lifter) Plan(text string) TextLift {
	var pics []TextPicture
	for from := 0; ; {
		r, ok := NextRun(text, from, l.minRun)
		if !ok {
			break
		}
		from = r.End
		typ := SniffRun(text, r)
		if typ == "" {
			continue
		}
		p := TextPicture{Run: r, Type: typ, Bytes: r.DecodedLen()}
		switch {
		case l.noVision:
			p.Outcome, p.Reason = OutcomeOmitted, ReasonNoVisionEncoder
		case !r.Decodable():
			p.Outcome = OutcomeOmitted
			p.Reason = fmt.Sprintf("the %s picture's base64 cannot be decoded (%d characters)", typ, r.Chars)
		case l.lifted >= l.maxPictures:
			p.Outcome = OutcomeCapped
			p.Reason = fmt.Sprintf("more than %d pictures in one message", l.maxPictures)
		case p.Bytes > l.maxBytes:
			p.Outcome = OutcomeCapped
			p.Reason = fmt.Sprintf("larger than %s bytes", FormatCount(l.maxBytes))
		default:
			p.Outcome = OutcomeLifted
			l.lifted++
			enc := "base64"
			if r.URLStart >= 0 {
				enc = "data-url"
			}
			p.Image = &corpora.Image{DeclaredType: r.Label, Origin: corpora.OriginTool, Encoding: enc}
		}
		pics = append(pics, p)
	}
	if len(pics) == 0 {
		return TextLift{Text: text}
	}
	return TextLift{Text: rewriteTextPictures(text, pics), Pictures: pics}
}

// pictureStandIn is the text that stands where a picture was.
func pictureStandIn(p TextPicture) string {
	switch p.Outcome {
	case OutcomeLifted:
		return PicturePlaceholder(p.Type, p.Bytes)
	case OutcomeCapped:
		return LegacyPictureNote(p.Type, p.Bytes)
	case OutcomeOmitted:
		return OmittedNote(p.Reason)
	}
	return ""
}

// rewriteTextPictures replaces each picture's span (the whole data URL for a data URL) by its
// stand-in.
func rewriteTextPictures(text string, pics []TextPicture) string {
	standIns := make([]string, len(pics))
	size := len(text)
	for i, p := range pics {
		standIns[i] = pictureStandIn(p)
		size += len(standIns[i]) - (p.Run.End - p.Run.SpanStart())
	}
	var b strings.Builder
	b.Grow(size)
	last := 0
	for i, p := range pics {
		b.WriteString(text[last:p.Run.SpanStart()])
		b.WriteString(standIns[i])
		last = p.Run.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// Lift is Plan followed by the decoding of every lifted picture into its image part (with
// the width and height its header declares).
func (l *Lifter) Lift(text string) (TextLift, error) {
	t := l.Plan(text)
	if err := t.Decode(text); err != nil {
		return t, err
	}
	return t, nil
}

// Decode decodes the lifted pictures of a plan made from text into their image parts.
func (t TextLift) Decode(text string) error {
	for i := range t.Pictures {
		p := &t.Pictures[i]
		if p.Image == nil || p.Image.Data != nil {
			continue
		}
		data, err := DecodeRun(text, p.Run)
		if err != nil {
			return fmt.Errorf("lift picture at byte %d: %w", p.Run.Start, err)
		}
		p.Image.Data = data
		if w, h, err := ImageHeaderSize(data); err == nil {
			p.Image.Width, p.Image.Height = w, h
		}
	}
	return nil
}

// FindTextPictures lists the pictures in a tool's text without changing it (the before arm:
// every picture stays text, docs/pipeline.md §3).
func FindTextPictures(text string, minRun int) []TextPicture {
	if minRun <= 0 {
		minRun = DefaultMinRun
	}
	var pics []TextPicture
	for from := 0; ; {
		r, ok := NextRun(text, from, minRun)
		if !ok {
			return pics
		}
		from = r.End
		if typ := SniffRun(text, r); typ != "" {
			pics = append(pics, TextPicture{Run: r, Type: typ, Bytes: r.DecodedLen(), Outcome: OutcomeText,
				Reason: "the picture reached the server as tool text"})
		}
	}
}

// pictureFacts are the figures recorded for a picture's bytes.
type pictureFacts struct {
	sha256        string
	width, height int
}

// describePictureBytes hashes a picture and reads its declared size.
func describePictureBytes(data []byte) pictureFacts {
	sum := sha256.Sum256(data)
	f := pictureFacts{sha256: hex.EncodeToString(sum[:])}
	f.width, f.height, _ = ImageHeaderSize(data)
	return f
}

// headerKeep is how much of a picture's start is kept to read its header while hashing.
const headerKeep = 64 << 10

// describeRun hashes a run's decoded bytes and reads the picture's declared size, decoding
// through a small buffer so that a picture of any size costs little memory.
func describeRun(text string, r Run) (pictureFacts, bool) {
	if !r.Decodable() {
		return pictureFacts{}, false
	}
	h := sha256.New()
	head := make([]byte, 0, min(int(r.DecodedLen()), headerKeep))
	var out [3072]byte
	err := runChunks(text, r, func(src []byte) error {
		n, err := base64.RawStdEncoding.Decode(out[:], src)
		h.Write(out[:n])
		if len(head) < cap(head) {
			head = append(head, out[:min(n, cap(head)-len(head))]...)
		}
		return err
	})
	if err != nil {
		return pictureFacts{}, false
	}
	f := pictureFacts{sha256: hex.EncodeToString(h.Sum(nil))}
	f.width, f.height, _ = ImageHeaderSize(head)
	return f, true
}

// textPictureRecord makes the record of a picture met in a tool's text.
func textPictureRecord(text string, p TextPicture, msgIndex int, loc corpora.Location) PictureRecord {
	rec := PictureRecord{
		Loc:          loc,
		MessageIndex: msgIndex,
		Offset:       p.Run.Start,
		Length:       p.Run.End - p.Run.Start,
		Type:         p.Type,
		DeclaredType: p.Run.Label,
		Bytes:        int(p.Bytes),
		Outcome:      p.Outcome,
		Reason:       p.Reason,
		SeenByModel:  p.Outcome == OutcomeLifted,
		Source:       corpora.OriginTool,
	}
	var f pictureFacts
	ok := false
	if p.Image != nil && p.Image.Data != nil {
		f, ok = describePictureBytes(p.Image.Data), true
	} else {
		f, ok = describeRun(text, p.Run)
	}
	if ok {
		rec.SHA256, rec.Width, rec.Height = f.sha256, f.width, f.height
	}
	return rec
}
