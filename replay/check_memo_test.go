package replay

import (
	"errors"
	"testing"
)

// TestCheckMemo: a remembered verdict is CheckPicture's, for a good picture and a bad one, under
// each limit; a nil memo and a small picture are checked directly.
func TestCheckMemo(t *testing.T) {
	good := fxPNG(t, 64, 48, true)
	bad := append([]byte(nil), good[:len(good)-200]...) // truncated pixel data
	memo := NewCheckMemo()
	for _, lim := range []PictureLimits{{}, {MaxPixels: 100}} {
		for _, data := range [][]byte{good, bad, good, bad} {
			wantInfo, wantErr := CheckPicture(data, lim)
			for _, m := range []*CheckMemo{memo, nil} {
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
