package replay

import (
	"fmt"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
)

// A base64 run of a tool's text over corpora.LargeBase64Bytes decoded is streamed past while
// reading: the text holds a marker in its place (corpora.LargeRuns) with the run's length, first
// bytes, digest and token count. The replay judges such a run from these as the lift judges a
// run it holds: a picture over the cap is capped from its length, as the server caps it
// without decoding; under a raised cap its pixel data cannot be checked, and it is omitted with
// a located problem (largeImageVerdict). The before arm keeps the marker, which the counter
// counts as the run's text.

// toolTextRuns is toolText for a text holding runs streamed past: the text between them is
// rendered as any tool text (sharing the message's lifter), each run as judged from its summary.
func (w *armWalk) toolTextRuns(text string, msgIndex int, loc corpora.Location, lifter *Lifter) rendered {
	var b strings.Builder
	var images []corpora.Part
	out := rendered{scanBytes: len(text)}
	piece := func(from, to int) {
		first := len(w.res.Pictures)
		r := w.toolTextPlain(text[from:to], msgIndex, loc, lifter)
		for i := first; i < len(w.res.Pictures); i++ {
			w.res.Pictures[i].Offset += from // where the picture is in the whole text
		}
		b.WriteString(r.parts[0].Text)
		images = append(images, r.parts[1:]...)
		out.scanNanos += r.scanNanos
	}
	last := 0
	for _, r := range corpora.LargeRuns(text) {
		span, label := r.Start, ""
		if u, l := dataURLBefore(text, r.Start); u >= last {
			span, label = u, l
		}
		piece(last, span)
		b.WriteString(w.largeRun(text[span:r.End], r, span, label, msgIndex, loc, lifter))
		last = r.End
	}
	piece(last, len(text))
	out.parts = append([]corpora.Part{{Kind: corpora.PartText, Text: b.String(), Loc: loc}}, images...)
	return out
}

// largeRun records a run streamed past that starts like a picture, and returns the text that
// stands for its span (the run's marker, and the data URL's header before it, if any) in the
// arm: the span itself where the run stays text, else the note of its outcome.
func (w *armWalk) largeRun(span string, r corpora.LargeRun, offset int, label string, msgIndex int, loc corpora.Location, lifter *Lifter) string {
	typ := SniffImage(r.Head)
	if typ == "" {
		return span // no picture: text in every arm
	}
	rec := PictureRecord{Loc: loc, MessageIndex: msgIndex, Offset: offset, Length: int(r.Chars) + len(span) - (r.End - r.Start),
		Type: typ, DeclaredType: label, Bytes: int(r.Bytes), SHA256: r.SHA256, Source: corpora.OriginTool}
	rec.Width, rec.Height, _ = ImageHeaderSize(r.Head)
	p := TextPicture{Type: typ, Bytes: r.Bytes}
	switch {
	case !w.lift:
		p.Outcome, p.Reason = OutcomeText, textPictureReason
	case r.Err != "":
		p.Outcome, p.Problem, p.Reason = OutcomeText, true, notBase64Reason(typ, r.Chars)
	case lifter.noVision:
		p.Outcome, p.Reason = OutcomeOmitted, ReasonNoVisionEncoder
	case r.Bytes > lifter.maxBytes:
		p.Outcome, p.Reason = OutcomeCapped, capReason(lifter.maxBytes)
	default:
		p.Outcome, p.Problem, p.Reason = OutcomeOmitted, true, largeImageVerdict(r.LargeBase64).Error()
	}
	rec.Outcome, rec.Reason, rec.Problem = p.Outcome, p.Reason, p.Problem
	w.record(rec)
	if p.Outcome == OutcomeText {
		return span
	}
	return pictureStandIn(p)
}

// The reasons of the lift that a run streamed past shares.
const textPictureReason = "the picture reached the server as tool text"

func notBase64Reason(typ string, chars int64) string {
	return fmt.Sprintf("the run starts like an %s picture but is not valid base64 (%s characters); left as text", typ, FormatCount(chars))
}

func capReason(maxBytes int64) string {
	return fmt.Sprintf("larger than %s bytes", FormatCount(maxBytes))
}

// largeRunSite is the site of a run streamed past that starts like a picture (ok false for
// any other run): over the byte cap, it is judged by the size its header declares, as
// pictureSite judges a picture it holds over the cap.
func largeRunSite(r corpora.LargeRun, loc corpora.Location) (PictureSite, bool) {
	typ := SniffImage(r.Head)
	if typ == "" {
		return PictureSite{}, false
	}
	site := PictureSite{Where: loc, TextOffset: r.Start, Kind: "base64-run", Origin: corpora.OriginTool, Type: typ,
		Bytes: int(r.Bytes), SHA256: r.SHA256, Problem: HeaderProblem(r.Head)}
	if r.Err != "" {
		site.SHA256, site.Bytes = "", 0
		site.Problem = "starts like a picture but is not valid base64: left as text: " + r.Err
	}
	return site, true
}
