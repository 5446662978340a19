package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

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
	// Problem says the picture is bad input (it failed the picture check, or its base64
	// cannot be decoded): the replay reports a located diagnostic for it.
	Problem bool
	// Image is the image part made of a lifted picture (nil otherwise). Its Data is set by
	// Lift, not by Plan.
	Image *corpora.Image
	// checked is Image.Data as the picture check met it, with its memo key once hashed, so
	// that the picture's record looks its facts up without hashing the bytes again.
	checked memoPicture
}

// TextLift is a tool's text after the lift.
type TextLift struct {
	// Text is the text as the model receives it. When no picture was met it is the input
	// string itself, not a copy.
	Text string
	// Pictures lists every picture met in the text, in order of appearance.
	Pictures []TextPicture
}

// clone returns a copy of t whose pictures and image parts are its own (the images' bytes are
// shared: nothing writes to them).
func (t TextLift) clone() TextLift {
	t.Pictures = slices.Clone(t.Pictures)
	for i := range t.Pictures {
		if p := &t.Pictures[i]; p.Image != nil {
			img := *p.Image
			p.Image = &img
		}
	}
	return t
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
// Outcomes, in order of precedence: a run whose length cannot be base64 is no picture and stays
// text, byte for byte (recorded as a problem); no vision encoder → omitted; over 32 MiB →
// capped (the legacy note, computed from the run's length without decoding it); failing the
// picture check (Lift only: CheckPicture) → omitted, without taking a slot; past 8 lifted
// pictures → capped; otherwise lifted.
type Lifter struct {
	liftSettings
	memo       *PictureMemo
	lifted     int
	checkNanos int64
	// scanNanos is the time of the scans whose runs the memo answered (measured when they
	// were made), since the last takeScanNanos.
	scanNanos int64
}

// liftSettings are what a lift depends on besides its text and the pictures lifted before it.
type liftSettings struct {
	minRun      int
	maxPictures int
	maxBytes    int64
	noVision    bool
	limits      PictureLimits
}

// NewLifter returns a Lifter for one message under the arm's settings (zero values are the
// defaults: min_run 1024, 8 pictures, 32 MiB each).
func NewLifter(s Settings) *Lifter {
	l := &Lifter{liftSettings: liftSettings{minRun: s.MinRun, maxPictures: s.MaxPictures, maxBytes: s.MaxPictureBytes, noVision: s.NoVisionEncoder}}
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

// WithPictureMemo makes the Lifter answer the picture check from m for pictures checked before
// (nil: check every picture); it returns l.
func (l *Lifter) WithPictureMemo(m *PictureMemo) *Lifter {
	l.memo = m
	return l
}

// Lifted is the number of pictures this Lifter has lifted so far.
func (l *Lifter) Lifted() int { return l.lifted }

// Plan scans the text, decides the fate of every picture in it (lift, cap, omit) from the
// runs' lengths and signatures, and writes the text the model receives. It decodes only the
// first bytes of each run and does not run the picture check; the image parts' Data is left
// nil (Decode fills it). A run that is not a picture is left byte for byte.
func (l *Lifter) Plan(text string) TextLift { return l.plan(text, false) }

// Lift is the lift as the server does it: Plan, with every picture that would be lifted
// decoded and put through CheckPicture first; a picture that fails is omitted
// ("[image omitted: <why>]") and does not take one of the message's slots. The image parts
// carry their bytes and the size their header declares.
func (l *Lifter) Lift(text string) (TextLift, error) { return l.plan(text, true), nil }

// CheckNanos returns the time Lift spent in the picture check (decoding the pictures' pixel
// data) since the last call, and resets it; the scan timing leaves it out.
func (l *Lifter) CheckNanos() int64 {
	n := l.checkNanos
	l.checkNanos = 0
	return n
}

// liftTimed is Lift with its scan time: the time the scan and the lift took, the picture
// check left out and the scan of runs the memo answered put in (the time measured when they
// were scanned, by whichever arm scanned them first). A text this Lifter's memo lifted before
// (the same string, under the same settings, after as many lifted pictures) is answered from
// memory with the scan time measured then: what the scan of that text costs, not what
// looking it up costs (docs/decisions.md).
func (l *Lifter) liftTimed(text string) (TextLift, int64) {
	key := liftKey{settings: l.liftSettings, lifted: l.lifted}
	if e, ok := l.memo.lift(text, key); ok {
		l.lifted += e.lifted
		return e.lift.clone(), e.nanos
	}
	l.CheckNanos()
	l.takeScanNanos()
	start := time.Now()
	lifted := l.lifted
	t := l.plan(text, true)
	nanos := time.Since(start).Nanoseconds() - l.CheckNanos() + l.takeScanNanos()
	l.memo.rememberLift(text, key, t, l.lifted-lifted, nanos)
	return t, nanos
}

// takeScanNanos returns scanNanos and resets it.
func (l *Lifter) takeScanNanos() int64 {
	n := l.scanNanos
	l.scanNanos = 0
	return n
}

func (l *Lifter) plan(text string, check bool) TextLift {
	var pics []TextPicture
	runs, remembered := l.memo.scan(text, l.minRun)
	l.scanNanos += remembered
	for _, r := range runs {
		typ := SniffRun(text, r)
		if typ == "" {
			continue
		}
		p := TextPicture{Run: r, Type: typ, Bytes: r.DecodedLen()}
		switch {
		case !r.Decodable():
			p.Outcome, p.Problem = OutcomeText, true
			p.Reason = notBase64Reason(typ, int64(r.Chars))
		case l.noVision:
			p.Outcome, p.Reason = OutcomeOmitted, ReasonNoVisionEncoder
		case p.Bytes > l.maxBytes:
			p.Outcome = OutcomeCapped
			p.Reason = capReason(l.maxBytes)
		case check && !l.checkRun(text, &p):
			p.Outcome, p.Problem = OutcomeOmitted, true
		case l.lifted >= l.maxPictures:
			p.Outcome, p.Image = OutcomeCapped, nil
			p.Reason = fmt.Sprintf("more than %d pictures in one message", l.maxPictures)
		default:
			p.Outcome = OutcomeLifted
			l.lifted++
			enc := "base64"
			if r.URLStart >= 0 {
				enc = "data-url"
			}
			if p.Image == nil {
				p.Image = &corpora.Image{}
			}
			p.Image.DeclaredType, p.Image.Origin, p.Image.Encoding = r.Label, corpora.OriginTool, enc
		}
		pics = append(pics, p)
	}
	if len(pics) == 0 {
		return TextLift{Text: text}
	}
	return TextLift{Text: rewriteTextPictures(text, pics), Pictures: pics}
}

// checkRun decodes a run and puts it through the picture check. On success p.Image holds the
// bytes and the declared size; on failure p.Reason says why.
func (l *Lifter) checkRun(text string, p *TextPicture) bool {
	start := time.Now()
	defer func() { l.checkNanos += time.Since(start).Nanoseconds() }()
	data, err := DecodeRun(text, p.Run)
	if err != nil {
		p.Reason = fmt.Sprintf("the %s picture's base64 cannot be decoded: %v", p.Type, err)
		return false
	}
	pic := l.memo.picture(data)
	info, err := pic.check(l.limits)
	if err != nil {
		p.Reason = err.Error()
		return false
	}
	p.Image = &corpora.Image{Data: data, Width: info.Width, Height: info.Height}
	p.checked = pic
	return true
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
// stand-in; a run left as text (OutcomeText) keeps its bytes.
func rewriteTextPictures(text string, pics []TextPicture) string {
	standIns := make([]string, len(pics))
	size := len(text)
	changed := false
	for i, p := range pics {
		if p.Outcome == OutcomeText {
			standIns[i] = text[p.Run.SpanStart():p.Run.End]
			continue
		}
		changed = true
		standIns[i] = pictureStandIn(p)
		size += len(standIns[i]) - (p.Run.End - p.Run.SpanStart())
	}
	if !changed {
		return text
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

// Decode decodes the lifted pictures of a plan made from text into their image parts.
func (t TextLift) Decode(text string) error {
	_, err := t.DecodeInto(text, nil)
	return err
}

// DecodeInto is Decode with the pictures' bytes in buf, grown when it is short (nil: one
// allocation for all the pictures of the plan), so that a caller decoding message after
// message allocates nothing once buf has grown to its largest. It returns the buffer; its
// bytes are the image parts' Data until it is handed to the next DecodeInto.
func (t TextLift) DecodeInto(text string, buf []byte) ([]byte, error) {
	need := int64(0)
	for i := range t.Pictures {
		if p := &t.Pictures[i]; p.Image != nil && p.Image.Data == nil && p.Run.Decodable() {
			need += p.Run.DecodedLen()
		}
	}
	if int64(cap(buf)) < need {
		buf = make([]byte, need)
	}
	buf = buf[:cap(buf)]
	used := 0
	for i := range t.Pictures {
		p := &t.Pictures[i]
		if p.Image == nil || p.Image.Data != nil {
			continue
		}
		n := int(p.Run.DecodedLen())
		if !p.Run.Decodable() {
			n = 0
		}
		data, err := decodeRunTo(buf[used:used+n:used+n], text, p.Run)
		if err != nil {
			return buf, fmt.Errorf("lift picture at byte %d: %w", p.Run.Start, err)
		}
		used += n
		p.Image.Data = data
		if w, h, err := ImageHeaderSize(data); err == nil {
			p.Image.Width, p.Image.Height = w, h
		}
	}
	return buf, nil
}

// FindTextPictures lists the pictures in a tool's text without changing it (the before arm:
// every picture stays text, docs/pipeline.md §3).
func FindTextPictures(text string, minRun int) []TextPicture {
	return (*PictureMemo)(nil).findTextPictures(text, minRun)
}

// findTextPictures is FindTextPictures with the text's runs from m (see PictureMemo.runs).
func (m *PictureMemo) findTextPictures(text string, minRun int) []TextPicture {
	if minRun <= 0 {
		minRun = DefaultMinRun
	}
	var pics []TextPicture
	for _, r := range m.runs(text, minRun) {
		if typ := SniffRun(text, r); typ != "" {
			pics = append(pics, TextPicture{Run: r, Type: typ, Bytes: r.DecodedLen(), Outcome: OutcomeText,
				Reason: textPictureReason})
		}
	}
	return pics
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
		n, err := rawStdDecoder.Decode(out[:], src)
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

// textPictureRecord makes the record of a picture met in a tool's text (its sha256 and size
// remembered in memo, when not nil).
func textPictureRecord(text string, p TextPicture, msgIndex int, loc corpora.Location, memo *PictureMemo) PictureRecord {
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
		Problem:      p.Problem,
		SeenByModel:  p.Outcome == OutcomeLifted,
		Source:       corpora.OriginTool,
	}
	var f pictureFacts
	ok := false
	switch {
	case p.Image != nil && p.checked.holds(p.Image.Data):
		f, ok = p.checked.describe(), true
	case p.Image != nil && p.Image.Data != nil:
		f, ok = memo.describeBytes(p.Image.Data), true
	default:
		f, ok = memo.describeRun(text, p.Run)
	}
	if ok {
		rec.SHA256, rec.Width, rec.Height = f.sha256, f.width, f.height
	}
	if p.Image != nil {
		rec.Data = p.Image.Data
	}
	return rec
}
