package results

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/strata-eval/strata-eval/records"
)

// reportTemplate is the HTML report: one self-contained file (inline CSS and script, charts
// drawn as SVG in the page, no network: its Content-Security-Policy allows nothing else).
//
//go:embed report.html.tmpl
var reportTemplate string

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{"count": htmlCount}).Parse(reportTemplate))

// chartData is what the page's script draws: per arm and per case, the prompt tokens and the
// image rows of every arm.
type chartData struct {
	Arms  []chartBar  `json:"arms"`
	Cases []chartCase `json:"cases"`
}

// chartBar is one arm's figures in a chart.
type chartBar struct {
	Arm          string `json:"arm"`
	PromptTokens int64  `json:"prompt_tokens"`
	ImageRows    int64  `json:"image_rows"`
	Refused      bool   `json:"refused,omitempty"`
}

// chartCase is the bars of one case.
type chartCase struct {
	ID   string     `json:"id"`
	Bars []chartBar `json:"bars"`
}

// htmlPage is what the template renders.
type htmlPage struct {
	Header   []string // HeaderLines
	Summary  Table
	Pictures []htmlPicture
	// Thumbnails are every thumbnail once (the rows' pictures copy theirs); Missing counts the
	// pictures past the budget, Budget names it.
	Thumbnails []htmlThumbnail
	Missing    int
	Budget     string
	Problems   []Problem
	Data       chartData
}

// htmlPicture is one row of the pictures table of the report.
type htmlPicture struct {
	Case, Arm, Where, Picture, Outcome, Reason, SHA256 string
	Rows                                               int
	Seen                                               bool
	// Thumb is the picture's thumbnail, After that of what the agent made of it (nil: none).
	Thumb, After *htmlThumbnail
}

// htmlThumbnail is one thumbnail of the page.
type htmlThumbnail struct {
	ID            string // the digest's first 16 hex digits
	Src           template.URL
	Width, Height int
	Caption       string
}

// WriteHTML writes the report as one self-contained HTML page: the header, the summary, a
// before/after chart of prompt tokens and image rows per arm and per case (log scale when the
// bars of a chart differ by 100× or more), and every picture with its outcome.
func WriteHTML(w io.Writer, r *Report) error {
	page := htmlPage{Header: HeaderLines(r), Summary: SummaryTable(r), Problems: r.Problems,
		Data:   chartData{Arms: []chartBar{}, Cases: []chartCase{}}, // [] not null: a run of no case still draws
		Budget: ByteSize(records.ThumbnailBudget)}
	set := PageThumbnails(r.Cases, r.Thumbnails)
	thumbs := map[string]*htmlThumbnail{}
	missing := map[string]bool{}
	for _, t := range set.List {
		thumbs[t.SHA256] = &htmlThumbnail{ID: t.SHA256[:min(16, len(t.SHA256))], Width: t.Width, Height: t.Height,
			Src: template.URL("data:" + t.Type + ";base64," + base64.StdEncoding.EncodeToString(t.Data))}
	}
	cut := set.Cut || r.ThumbnailsCut
	// thumb is the thumbnail of digest, captioned by the first picture that shows it.
	thumb := func(digest, caption string) *htmlThumbnail {
		t := thumbs[digest]
		if t == nil {
			if digest != "" && cut && !missing[digest] {
				missing[digest] = true
				page.Missing++
			}
			return nil
		}
		if t.Caption == "" {
			t.Caption = caption
			page.Thumbnails = append(page.Thumbnails, *t)
		}
		return t
	}
	for _, s := range r.Summary {
		page.Data.Arms = append(page.Data.Arms, chartBar{Arm: s.Arm, PromptTokens: s.PromptTokens, ImageRows: s.ImageRows, Refused: s.Refused > 0})
	}
	for _, c := range r.Cases {
		cc := chartCase{ID: c.ID}
		for _, a := range c.Arms {
			cc.Bars = append(cc.Bars, chartBar{Arm: a.Arm, PromptTokens: int64(a.PromptTokens), ImageRows: int64(a.ImageRows), Refused: !a.Fits})
			for _, p := range a.Pictures {
				row := htmlPicture{Case: c.ID, Arm: a.Arm, Where: where(p), Picture: pictureCell(p),
					Outcome: string(p.Outcome), Reason: p.Reason, SHA256: p.SHA256, Rows: p.PromptRows(), Seen: p.SeenByModel}
				row.Thumb = thumb(p.SHA256, thumbnailCaption(p.Type, p.Width, p.Height, p.Bytes, p.SHA256))
				if rs := p.Resized; rs != nil {
					row.Thumb = thumb(p.SHA256, thumbnailCaption(p.Type, rs.FromWidth, rs.FromHeight, rs.FromBytes, p.SHA256))
					row.After = thumb(rs.ToSHA256, thumbnailCaption(rs.ToType, rs.ToWidth, rs.ToHeight, rs.ToBytes, rs.ToSHA256))
				}
				page.Pictures = append(page.Pictures, row)
			}
		}
		page.Data.Cases = append(page.Data.Cases, cc)
	}
	return reportPage.Execute(w, page)
}

// thumbnailCaption names a picture under its thumbnail: type, size, bytes and digest.
func thumbnailCaption(mime string, w, h, bytes int, digest string) string {
	var parts []string
	if mime != "" {
		parts = append(parts, strings.TrimPrefix(mime, "image/"))
	}
	if w > 0 {
		parts = append(parts, fmt.Sprintf("%d×%d", w, h))
	}
	if bytes > 0 {
		parts = append(parts, ByteSize(int64(bytes)))
	}
	parts = append(parts, fmt.Sprintf("%.12s", digest))
	return strings.Join(parts, " · ")
}

// htmlCount formats a count for the page (the digits of the tables).
func htmlCount(n int) string { return Thousands(int64(n)) }
