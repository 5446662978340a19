package results

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/records"
)

// thumbnailCases are n cases with one picture each (digest d0, d1, …), the second arm of each
// case prepared into p0, p1, …; each thumbnail is size bytes.
func thumbnailCases(n, size int) ([]Case, []records.Thumbnail) {
	var cases []Case
	var thumbs []records.Thumbnail
	for i := range n {
		d, p := fmt.Sprintf("d%d", i), fmt.Sprintf("p%d", i)
		cases = append(cases, Case{ID: fmt.Sprint(i), Order: i, Arms: []ArmCase{
			{Arm: "after", Pictures: []Picture{{PictureRecord: records.PictureRecord{SHA256: d, Type: "image/png", Outcome: records.OutcomeLifted}}}},
			{Arm: "agent", Pictures: []Picture{{PictureRecord: records.PictureRecord{SHA256: d, Type: "image/png", Outcome: records.OutcomeAttached,
				Resized: &records.Resize{ToSHA256: p, ToType: "image/jpeg"}}}}},
		}})
		// listed in reverse: the set follows the cases, not the list
		thumbs = append([]records.Thumbnail{{SHA256: d, Type: "image/png", Width: 2, Height: 1, Data: make([]byte, size)},
			{SHA256: p, Type: "image/jpeg", Width: 2, Height: 1, Data: make([]byte, size)}}, thumbs...)
	}
	return cases, thumbs
}

// TestThumbnailSetPrefix: the set takes the pictures in case order, each picture before what the
// agent made of it, once per digest, and stops for good at the first that does not fit.
func TestThumbnailSetPrefix(t *testing.T) {
	cases, thumbs := thumbnailCases(3, 100)
	byDigest := map[string]records.Thumbnail{}
	for _, th := range thumbs {
		byDigest[th.SHA256] = th
	}
	set := ThumbnailSet{Budget: 350}
	for i := range cases {
		set.Admit(&cases[i], func(d string) (records.Thumbnail, bool) { th, ok := byDigest[d]; return th, ok })
	}
	var got []string
	for _, th := range set.List {
		got = append(got, th.SHA256)
	}
	if strings.Join(got, " ") != "d0 p0 d1" || !set.Cut {
		t.Errorf("set %v cut %v, want d0 p0 d1 and cut", got, set.Cut)
	}
	if all := PageThumbnails(cases, thumbs); len(all.List) != 6 || all.Cut || all.List[0].SHA256 != "d0" {
		t.Errorf("page thumbnails %d cut %v", len(all.List), all.Cut)
	}
}

// TestWriteHTMLThumbnails: each thumbnail is in the page once, as a data URL the page's policy
// allows, and every row of its picture shows it (before and after preparation); past the
// budget the rows have none and the page says so.
func TestWriteHTMLThumbnails(t *testing.T) {
	cases, thumbs := thumbnailCases(2, 100)
	r := &Report{Cases: cases, Thumbnails: thumbs}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "img-src data:;") {
		t.Error("the page's Content-Security-Policy does not allow its inline pictures")
	}
	if n := strings.Count(page, `src="data:image/`); n != 4 {
		t.Errorf("%d inline pictures, want each of the 4 thumbnails once", n)
	}
	for _, want := range []string{`data-thumb="d0"`, `data-thumb="p1"`, `id="thumb-p1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, `data-thumb="d0"`); n != 2 {
		t.Errorf("picture d0 shown in %d rows, want 2 (after and agent)", n)
	}

	// 2 MB holds the 200 thumbnails of 10,000 bytes of cases 0–99; the 10 of cases 100–104
	// are past it
	r.Cases, r.Thumbnails = thumbnailCases(105, 10000)
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "The thumbnails stop at 2.0 MB: 10 more pictures are listed without one."; !strings.Contains(b.String(), want) {
		t.Errorf("no note %q of the budget spent: %s", want, regexp.MustCompile(`<p class="note">.*`).FindString(b.String()))
	}
	if n := strings.Count(b.String(), `src="data:image/`); n != 200 {
		t.Errorf("%d inline pictures, want 200", n)
	}
}

// TestMergeKeepsThumbnails: merged shards carry the thumbnails of their cases, once each, in
// the order of the merged cases, as a single run's report does.
func TestMergeKeepsThumbnails(t *testing.T) {
	cases, thumbs := thumbnailCases(4, 10)
	byDigest := map[string]records.Thumbnail{}
	for _, th := range thumbs {
		byDigest[th.SHA256] = th
	}
	shard := func(idx []int, name string) *Report {
		var cs []Case
		var ts []records.Thumbnail
		for _, i := range idx {
			cs = append(cs, cases[i])
			ts = append(ts, byDigest[fmt.Sprintf("d%d", i)], byDigest[fmt.Sprintf("p%d", i)])
		}
		r := singleRun(cs, nil, name)
		r.Thumbnails = ts
		return r
	}
	merged, err := Merge([]*Report{shard([]int{1, 3}, "1/2"), shard([]int{0, 2}, "0/2")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range merged.Thumbnails {
		got = append(got, th.SHA256)
	}
	if strings.Join(got, " ") != "d0 p0 d1 p1 d2 p2 d3 p3" || merged.ThumbnailsCut {
		t.Errorf("merged thumbnails %v (cut %v)", got, merged.ThumbnailsCut)
	}
}
