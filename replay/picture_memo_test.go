package replay

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// TestPictureMemoCheck: a remembered verdict is CheckPicture's, for a good picture and a bad one, under
// each limit; a nil memo and a small picture are checked directly.
func TestPictureMemoCheck(t *testing.T) {
	good := fxPNG(t, 64, 48, true)
	bad := append([]byte(nil), good[:len(good)-200]...) // truncated pixel data
	memo := NewPictureMemo()
	for _, lim := range []PictureLimits{{}, {MaxPixels: 100}} {
		for _, data := range [][]byte{good, bad, good, bad} {
			wantInfo, wantErr := CheckPicture(data, lim)
			for _, m := range []*PictureMemo{memo, nil} {
				info, err := m.Check(data, lim)
				if info != wantInfo || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
					t.Fatalf("limits %+v: %+v, %v; CheckPicture: %+v, %v", lim, info, err, wantInfo, wantErr)
				}
			}
		}
	}
	if n := len(memo.verdicts); n != 4 {
		t.Errorf("%d verdicts remembered, want 4 (2 pictures × 2 limits)", n)
	}
	if _, err := memo.Check(bad, PictureLimits{}); !errors.Is(err, ErrUndecodable) {
		t.Errorf("remembered error %v does not wrap ErrUndecodable", err)
	}
	if _, err := memo.Check(good[:100], PictureLimits{}); err == nil || len(memo.verdicts) != 4 {
		t.Errorf("a small picture: %v, %d verdicts", err, len(memo.verdicts))
	}
}

// TestPictureMemoFacts: remembered hashes and sizes are describePictureBytes' and describeRun's,
// for bare and escaped runs and for a run that cannot be decoded.
func TestPictureMemoFacts(t *testing.T) {
	pic := fxPNG(t, 80, 60, true)
	memo := NewPictureMemo()
	want := describePictureBytes(pic)
	for range 2 {
		if got := memo.describeBytes(pic); got != want {
			t.Fatalf("describeBytes = %+v, want %+v", got, want)
		}
		for _, text := range []string{"a " + b64(pic) + " b", "a " + escapeSlashes(b64(pic)) + " b", "a " + fxBase64Noise(8193) + " b"} {
			r, ok := NextRun(text, 0, 1024)
			if !ok {
				t.Fatal("no run")
			}
			wantF, wantOK := describeRun(text, r)
			if gotF, gotOK := memo.describeRun(text, r); gotF != wantF || gotOK != wantOK {
				t.Fatalf("describeRun = %+v, %v; want %+v, %v", gotF, gotOK, wantF, wantOK)
			}
		}
	}
	if n := len(memo.facts); n != 4 {
		t.Errorf("%d facts remembered, want 4 (the bytes and three runs)", n)
	}
	var none *PictureMemo
	if got := none.describeBytes(pic); got != want {
		t.Errorf("nil memo: %+v", got)
	}
}

// TestMemoPictureSharedKey: one picture's facts and its checks under two limits, through one
// memoPicture, are describePictureBytes' and CheckPicture's, and land in the memo's tables as
// separate look-ups do.
func TestMemoPictureSharedKey(t *testing.T) {
	pic := fxPNG(t, 64, 48, true)
	memo := NewPictureMemo()
	for range 2 {
		for _, m := range []*PictureMemo{memo, nil} {
			p := m.picture(pic)
			if got, want := p.describe(), describePictureBytes(pic); got != want {
				t.Fatalf("describe = %+v, want %+v", got, want)
			}
			for _, lim := range []PictureLimits{{}, {MaxPixels: 100}} {
				info, err := p.check(lim)
				wantInfo, wantErr := CheckPicture(pic, lim)
				if info != wantInfo || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
					t.Fatalf("limits %+v: %+v, %v; CheckPicture: %+v, %v", lim, info, err, wantInfo, wantErr)
				}
			}
		}
	}
	if len(memo.facts) != 1 || len(memo.verdicts) != 2 {
		t.Errorf("%d facts, %d verdicts remembered; want 1 and 2", len(memo.facts), len(memo.verdicts))
	}
	p := memo.picture(pic)
	if got, want := p.keyFor(PictureLimits{MaxPixels: 100}), memo.key(pic, memoPictureBytes, PictureLimits{MaxPixels: 100}); got != want {
		t.Errorf("shared key %+v, the key of the bytes under the same limits %+v", got, want)
	}
}

// TestLiftedPictureRecordSharesTheCheckKey: a picture lifted from a tool's text carries the
// key its check hashed, and its record's facts come from that key (the bytes are hashed once
// for the check and the record), equal to describePictureBytes; a copy of the bytes is looked
// up afresh.
func TestLiftedPictureRecordSharesTheCheckKey(t *testing.T) {
	pic := fxPNG(t, 96, 64, true)
	memo := NewPictureMemo()
	text := "the screen: " + b64(pic) + " done"
	lift, err := NewLifter(Settings{}).WithPictureMemo(memo).Lift(text)
	if err != nil || len(lift.Pictures) != 1 || lift.Pictures[0].Image == nil {
		t.Fatalf("lift: %v, %+v", err, lift.Pictures)
	}
	p := lift.Pictures[0]
	if !p.checked.keyed || !p.checked.holds(p.Image.Data) {
		t.Fatalf("the lifted picture carries no key of its bytes (keyed %v)", p.checked.keyed)
	}
	want := describePictureBytes(pic)
	rec := textPictureRecord(text, p, 0, corpora.Location{}, memo)
	if rec.SHA256 != want.sha256 || rec.Width != want.width || rec.Height != want.height {
		t.Errorf("record %s %dx%d, want %s %dx%d", rec.SHA256, rec.Width, rec.Height, want.sha256, want.width, want.height)
	}
	if _, ok := memo.facts[p.checked.keyFor(PictureLimits{})]; !ok {
		t.Error("the record's facts are not under the check's key")
	}
	copied := append([]byte(nil), p.Image.Data...)
	if p.checked.holds(copied) {
		t.Error("a copy of the bytes is taken for the bytes")
	}
}

// TestMCPPictureRecordSharesTheCheckKey: a picture taken from an MCP image block carries the
// key its check hashed, and the facts under it are the bytes'; the legacy rendering checks no
// picture, and its record hashes the bytes itself.
func TestMCPPictureRecordSharesTheCheckKey(t *testing.T) {
	pic := fxPNG(t, 96, 64, true)
	memo := NewPictureMemo()
	res := corpora.CallToolResult{Content: []corpora.Block{mcpText("Captured"), mcpImage(pic, "image/png")}}
	lifted := RenderMCPLift(&res, Settings{}, MCPRenderOptions{Pictures: memo})
	if len(lifted.Pictures) != 1 {
		t.Fatalf("%d pictures", len(lifted.Pictures))
	}
	p := lifted.Pictures[0]
	if p.Outcome != OutcomeTaken || !p.checked.keyed || !p.checked.holds(p.Data) {
		t.Fatalf("the taken picture (%s) carries no key of its bytes (keyed %v)", p.Outcome, p.checked.keyed)
	}
	if got, want := p.checked.describe(), describePictureBytes(pic); got != want {
		t.Errorf("facts under the check's key %+v, want %+v", got, want)
	}
	if legacy := RenderMCPLegacy(&res, Settings{}, MCPRenderOptions{Pictures: memo}); legacy.Pictures[0].checked.holds(legacy.Pictures[0].Data) {
		t.Error("the legacy rendering checked its picture")
	}
}

// TestPictureMemoRuns: the runs a memo gives are the ones NextRun finds, for a text met again
// at the same address, for a copy of it, under another minimum length and past maxScans texts;
// the before arm lists the same pictures through it.
func TestPictureMemoRuns(t *testing.T) {
	pic := b64(fxPNG(t, 80, 60, true))
	texts := []string{
		"log\n" + pic + "\nmore " + fxBase64Noise(5000) + " end " + escapeSlashes(pic),
		"data:image/png;base64," + pic + " and " + strings.Repeat("word ", 2000),
	}
	memo := NewPictureMemo()
	for round := range maxScans + 2 {
		for _, text := range texts {
			for _, minRun := range []int{DefaultMinRun, 4096} {
				text := text
				if round%2 == 1 {
					text = strings.Clone(text) // the same bytes at another address
				}
				if got, want := memo.runs(text, minRun), scanRuns(text, minRun); !slices.Equal(got, want) {
					t.Fatalf("round %d, minRun %d: runs %+v, want %+v", round, minRun, got, want)
				}
				if got, want := memo.findTextPictures(text, minRun), FindTextPictures(text, minRun); !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, minRun %d: pictures %+v, want %+v", round, minRun, got, want)
				}
			}
		}
	}
	if n, _ := memo.scans.Len(); n != maxScans {
		t.Errorf("%d scans remembered, want %d", n, maxScans)
	}
	memo.runs(strings.Repeat("a ", maxScanBytes/2+1), DefaultMinRun) // too long to keep
	if n, b := memo.scans.Len(); n != maxScans || b > maxScanBytes {
		t.Errorf("%d scans of %d bytes remembered after a text past the limit", n, b)
	}
	if runs := scanRuns(texts[0], DefaultMinRun); len(runs) != 3 {
		t.Errorf("%d runs in the first text, want 3", len(runs))
	}
}

// TestPictureMemoLifts: a tool text lifted again as the same string, under the same settings
// and from the same count of lifted pictures, is answered from memory with the scan time
// measured the first time, the same lift as a fresh Lifter makes and image parts of its own; a
// copy of the text, other settings, or a Lifter that has lifted pictures before, are lifted
// afresh; a text without pictures is not remembered.
func TestPictureMemoLifts(t *testing.T) {
	pic := b64(fxPNG(t, 80, 60, true))
	text := "screen 1: " + pic + "\nscreen 2: " + pic + "\n" + strings.Repeat("log line\n", 600)
	memo := NewPictureMemo()
	lifter := func(s Settings) *Lifter { return NewLifter(s).WithPictureMemo(memo) }
	want, _ := NewLifter(Settings{}).Lift(text)
	first, firstNanos := lifter(Settings{}).liftTimed(text)
	if lifts(memo) != 1 || !sameLift(first, want) {
		t.Fatalf("first lift: %d remembered, lift equal to a fresh one: %v", lifts(memo), sameLift(first, want))
	}
	l := lifter(Settings{})
	again, nanos := l.liftTimed(text)
	if nanos != firstNanos || !sameLift(again, want) || l.Lifted() != 2 {
		t.Errorf("again: %d ns (first %d), equal %v, %d lifted", nanos, firstNanos, sameLift(again, want), l.Lifted())
	}
	if again.Pictures[0].Image == first.Pictures[0].Image {
		t.Error("the remembered lift hands over the first lift's image part")
	}
	again.Pictures[0].Image.Width = 1 // a caller's change reaches no other lift
	if third, _ := lifter(Settings{}).liftTimed(text); !sameLift(third, want) {
		t.Error("a change to a remembered lift's image part reached the next one")
	}

	for name, c := range map[string]struct {
		text string
		l    *Lifter
		want func() TextLift
	}{
		"a copy": {strings.Clone(text), lifter(Settings{}), func() TextLift { r, _ := NewLifter(Settings{}).Lift(text); return r }},
		"other settings": {text, lifter(Settings{MaxPictures: 1}), func() TextLift {
			r, _ := NewLifter(Settings{MaxPictures: 1}).Lift(text)
			return r
		}},
		"after a lifted picture": {text, func() *Lifter {
			l := lifter(Settings{MaxPictures: 2})
			l.liftTimed("one more: " + pic)
			return l
		}(), func() TextLift {
			l := NewLifter(Settings{MaxPictures: 2})
			l.Lift("one more: " + pic)
			r, _ := l.Lift(text)
			return r
		}},
	} {
		before := lifts(memo)
		got, _ := c.l.liftTimed(c.text)
		if !sameLift(got, c.want()) || lifts(memo) != before+1 {
			t.Errorf("%s: equal to a fresh lift %v; %d lifts remembered, %d before", name, sameLift(got, c.want()), lifts(memo), before)
		}
	}
	before := lifts(memo)
	plain := strings.Repeat("no picture here ", 1000)
	if got, _ := lifter(Settings{}).liftTimed(plain); got.Text != plain || lifts(memo) != before {
		t.Errorf("a text without pictures: %d lifts remembered, %d before", lifts(memo), before)
	}
	for i := range 2 * maxLifts {
		lifter(Settings{}).liftTimed(strings.Clone(text))
		// the memo's own account of its bytes is held by internal/strmemo's tests
		if n, b := memo.lifts.Len(); n > maxLifts || b > maxLiftBytes || b < n*len(text) {
			t.Fatalf("lift %d: %d lifts of %d bytes remembered", i, n, b)
		}
	}
}

// lifts is how many lifts memo remembers.
func lifts(memo *PictureMemo) int {
	n, _ := memo.lifts.Len()
	return n
}

// sameLift says whether two lifts are equal in all but the memo keys their pictures carry.
func sameLift(a, b TextLift) bool {
	a, b = a.clone(), b.clone()
	for _, ps := range [][]TextPicture{a.Pictures, b.Pictures} {
		for i := range ps {
			ps[i].checked = memoPicture{}
		}
	}
	return reflect.DeepEqual(a, b)
}

// TestPictureMemoRunTexts: the facts of a run met again in the same tool text string come from
// the run's identity, those of a copy from its content, and both are describeRun's.
func TestPictureMemoRunTexts(t *testing.T) {
	text := "shot: " + b64(fxPNG(t, 80, 60, true)) + " end"
	r, ok := NextRun(text, 0, DefaultMinRun)
	if !ok {
		t.Fatal("no run")
	}
	want, wantOK := describeRun(text, r)
	memo := NewPictureMemo()
	for i, s := range []string{text, text, strings.Clone(text)} {
		if got, gotOK := memo.describeRun(s, r); got != want || gotOK != wantOK {
			t.Fatalf("text %d: %+v, %v; want %+v, %v", i, got, gotOK, want, wantOK)
		}
	}
	if n, _ := memo.runTexts.Len(); n != 2 || len(memo.facts) != 1 {
		t.Errorf("%d runs remembered by identity, %d facts by content; want 2 and 1", n, len(memo.facts))
	}
}
