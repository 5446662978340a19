package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/internal/testkit/tinyproj"
	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// TestOfflineDeepseek4vRowsFollowPosition: replay counts a deepseek4v picture with the lead pads
// mtmd gives it where it sits (tools/mtmd/mtmd.cpp: lead_pad = 3 − n_past mod 4, n_past the
// tokens of the chunks before the picture, the vocabulary's BOS added after). A 448×448 picture
// of the tiny DeepSeek-V4 projector (patch 14, scale factor 2) is a 16×16 grid: 16 rows of 16
// tokens and a newline, a start and an end sentinel, no trailing pads, so 274 rows and the lead
// pads. The position is counted here apart, with the tokenizer on the rendered text before the
// picture; a second picture sits after the first one's rows. make rows-oracle holds the
// position-0 count to libmtmd.
func TestOfflineDeepseek4vRowsFollowPosition(t *testing.T) {
	proj, err := tinyproj.WriteNamed(t.TempDir(), "deepseek-v4-vision")
	if err != nil {
		t.Fatal(err)
	}
	off, err := NewOffline(OfflineConfig{Tokenizer: "o200k_base", MMProj: proj})
	if err != nil {
		t.Fatal(err)
	}
	if p := off.Family().PositionPeriod(); p != 4 {
		t.Fatalf("deepseek4v position period %d, want 4", p)
	}
	const grid = 274 // 1 + 16·17 + 0 + 1
	picture := func() corpora.Part {
		return corpora.Part{Kind: corpora.PartImage, Image: &corpora.Image{Data: testimages.PNG(448, 448, 3), Width: 448, Height: 448}}
	}
	seen := map[int]bool{}
	for words := 1; words <= 8; words++ {
		msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{
			{Kind: corpora.PartText, Text: "look" + strings.Repeat(" a", words)}, picture(),
			{Kind: corpora.PartText, Text: "and" + strings.Repeat(" b", words%3)}, picture(),
		}}}
		segs, err := off.Template().Render(msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var before []int // the tokenizer's count of the text before each picture
		var text strings.Builder
		for _, s := range segs {
			if s.Image != nil {
				before = append(before, off.counter.Tokenizer().CountFraming(text.String()))
				text.Reset()
				continue
			}
			text.WriteString(s.Text)
		}
		c, err := off.Count(context.Background(), msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Images) != 2 || len(before) != 2 {
			t.Fatalf("%d words: %d pictures counted, %d rendered, want 2", words, len(c.Images), len(before))
		}
		pos := before[0]
		for k, img := range c.Images {
			if k > 0 {
				pos += c.Images[k-1].Rows.Total + before[k]
			}
			seen[pos%4] = true
			if want := grid + 3 - pos%4; img.Rows.Rows != want || img.Rows.Total != want {
				t.Errorf("%d words, picture %d at position %d: %d rows (total %d), mtmd counts %d", words, k+1, pos, img.Rows.Rows, img.Rows.Total, want)
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("the pictures sat at %d of the 4 positions mod 4", len(seen))
	}
}

// TestOfflineCountForRecordedModel: with imagerows.RecordedVision a conversation's pictures are
// counted with the hosted family its model id implies, the default family's for an id that
// implies none (and for Count, which names no model); the text is counted alike.
func TestOfflineCountForRecordedModel(t *testing.T) {
	off, err := NewOffline(OfflineConfig{Tokenizer: "o200k_base", Vision: imagerows.RecordedVision})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "what is this?"},
		{Kind: corpora.PartImage, Image: &corpora.Image{Data: testimages.PNG(1024, 768, 3), Width: 1024, Height: 768}}}}}
	fallback, err := imagerows.FamilyByName(imagerows.DefaultFamily)
	if err != nil {
		t.Fatal(err)
	}
	hosted, ok := imagerows.FamilyForModel("claude-sonnet-4-5-20250929")
	if !ok {
		t.Fatal("claude-sonnet-4-5 implies no hosted family")
	}
	var text int
	for _, c := range []struct {
		model string
		fam   imagerows.Family
	}{{"claude-sonnet-4-5-20250929", hosted}, {"qwen2.5-vl-7b-instruct", fallback}, {"", fallback}} {
		if got := off.FamilyFor(c.model); got.Name != c.fam.Name {
			t.Errorf("FamilyFor(%q) = %s, want %s", c.model, got.Name, c.fam.Name)
		}
		got, err := off.CountFor(context.Background(), c.model, msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := imagerows.ImageRows(c.fam, 1024, 768, imagerows.RowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Images) != 1 || got.ImageRows != want.Total {
			t.Errorf("%q: %d image rows, the %s family counts %d", c.model, got.ImageRows, c.fam.Name, want.Total)
		}
		if text != 0 && got.TextTokens != text {
			t.Errorf("%q: %d text tokens, another model's %d", c.model, got.TextTokens, text)
		}
		text = got.TextTokens
	}
	if hosted.Name == fallback.Name {
		t.Fatalf("the hosted family is the fallback %s", hosted.Name)
	}
	plain, err := off.Count(context.Background(), msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fb, _ := off.CountFor(context.Background(), "", msgs, nil); plain.ImageRows != fb.ImageRows {
		t.Errorf("Count: %d image rows, CountFor with no model %d", plain.ImageRows, fb.ImageRows)
	}
}
