package replay

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// TestLargeImagePart: an image part streamed past while reading (corpora.Image.Large) is
// recorded from what was kept (digest, size, declared size) and omitted in every arm: with the
// verdict the picture check gives the same bytes when the header decides it (too many pixels),
// with a located problem saying its pixel data was not kept otherwise.
func TestLargeImagePart(t *testing.T) {
	huge := testimages.PNG(64, 64, 1)
	binary.BigEndian.PutUint32(huge[16:], 20000) // IHDR width and height
	binary.BigEndian.PutUint32(huge[20:], 20000)
	_, wantErr := CheckPicture(huge, PictureLimits{})
	if wantErr == nil {
		t.Fatal("the check takes a header of 20000×20000")
	}
	large := func(head []byte) *corpora.Image {
		return &corpora.Image{DeclaredType: "image/png", Origin: corpora.OriginUser, Encoding: "base64",
			Large: &corpora.LargeBase64{Chars: 80_000_000, Bytes: 60_000_000, Head: head, SHA256: strings.Repeat("ab", 32)}}
	}
	conv := &corpora.Conversation{ID: "c", Format: corpora.FormatAnthropic, Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{
		{Kind: corpora.PartText, Text: "look"},
		{Kind: corpora.PartImage, Image: large(huge)},
		{Kind: corpora.PartImage, Image: large(testimages.PNG(64, 48, 2))},
	}}}}
	req, _ := conv.LastRequest()
	for _, name := range []string{"before", "after"} {
		res, err := armNamed(t, name).Apply(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Pictures) != 2 {
			t.Fatalf("%s: %d pictures recorded", name, len(res.Pictures))
		}
		for i, p := range res.Pictures {
			if p.Outcome != OutcomeOmitted || p.SeenByModel || !p.Problem || p.Bytes != 60_000_000 || p.SHA256 != strings.Repeat("ab", 32) || p.Type != MIMEPNG {
				t.Errorf("%s picture %d: %+v", name, i, p)
			}
		}
		if got := res.Pictures[0].Reason; got != wantErr.Error() || res.Pictures[0].Width != 20000 {
			t.Errorf("%s: a header over the limit: %q (%d wide), want the check's %q", name, got, res.Pictures[0].Width, wantErr)
		}
		if got := res.Pictures[1].Reason; !strings.Contains(got, "read past, not kept") || res.Pictures[1].Width != 64 {
			t.Errorf("%s: a header within the limits: %q (%d wide)", name, got, res.Pictures[1].Width)
		}
		for _, p := range res.Messages[0].Parts {
			if p.Kind == corpora.PartImage {
				t.Errorf("%s: an image part reaches the model", name)
			}
		}
	}
}
