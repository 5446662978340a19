package replay

import (
	"errors"
	"testing"
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
