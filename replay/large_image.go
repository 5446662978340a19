package replay

import (
	"github.com/strata-eval/strata-eval/corpora"
)

// largeImageVerdict judges an image part whose payload was streamed past while reading
// (corpora.LargeBase64: its length, first bytes and digest) as the picture check would judge
// its bytes where the check decides from the first bytes (the signature, a header that
// claims too many pixels), and refuses it otherwise: its pixel data was not kept, so the
// bounded decode of the check cannot be run.
func largeImageVerdict(l *corpora.LargeBase64) error {
	lim := PictureLimits{}.withDefaults()
	typ := SniffImage(l.Head)
	if typ == "" {
		_, _, err := checkPictureHeader(l.Head, lim)
		return err
	}
	if w, h, err := ImageHeaderSize(l.Head); err == nil && int64(w)*int64(h) > lim.MaxPixels {
		return tooManyPixels(pictureTypeName(typ), w, h, 1, lim)
	}
	return checkErrorf(ErrUndecodable, "a picture of %s bytes was read past, not kept (over %s bytes decoded): its pixel data cannot be checked",
		FormatCount(l.Bytes), FormatCount(corpora.LargeBase64Bytes))
}

// largeImageRecord fills rec from an image part streamed past while reading: its digest,
// size and declared size, from what was kept.
func largeImageRecord(rec *PictureRecord, img *corpora.Image) {
	l := img.Large
	rec.SHA256, rec.Bytes, rec.Type, rec.DeclaredType = l.SHA256, int(l.Bytes), SniffImage(l.Head), img.DeclaredType
	rec.Width, rec.Height, _ = ImageHeaderSize(l.Head)
	if img.Width > 0 && img.Height > 0 {
		rec.Width, rec.Height = img.Width, img.Height
	}
}

// passLargeImage is passImage for an image part streamed past while reading: it is recorded
// from what was kept and omitted, in every arm (largeImageVerdict says why).
func (w *armWalk) passLargeImage(p *corpora.Part, rec PictureRecord) corpora.Part {
	largeImageRecord(&rec, p.Image)
	rec.Outcome, rec.SeenByModel = OutcomeOmitted, false
	if w.settings.NoVisionEncoder {
		rec.Reason = ReasonNoVisionEncoder
	} else {
		rec.Reason, rec.Problem = largeImageVerdict(p.Image.Large).Error(), true
	}
	w.record(rec)
	return corpora.Part{Kind: corpora.PartText, Text: OmittedNote(rec.Reason), Loc: p.Loc}
}
