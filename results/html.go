package results

import (
	_ "embed"
	"html/template"
	"io"
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
	Header   string
	Summary  Table
	Pictures []htmlPicture
	Problems []Problem
	Data     chartData
}

// htmlPicture is one row of the pictures table of the report.
type htmlPicture struct {
	Case, Arm, Where, Picture, Outcome, Reason, SHA256 string
	Rows                                               int
	Seen                                               bool
}

// WriteHTML writes the report as one self-contained HTML page: the header, the summary, a
// before/after chart of prompt tokens and image rows per arm and per case (log scale when the
// bars of a chart differ by 100× or more), and every picture with its outcome.
func WriteHTML(w io.Writer, r *Report) error {
	page := htmlPage{Header: Header(r), Summary: SummaryTable(r), Problems: r.Problems,
		Data: chartData{Arms: []chartBar{}, Cases: []chartCase{}}} // [] not null: a run of no case still draws
	for _, s := range r.Summary {
		page.Data.Arms = append(page.Data.Arms, chartBar{Arm: s.Arm, PromptTokens: s.PromptTokens, ImageRows: s.ImageRows, Refused: s.Refused > 0})
	}
	for _, c := range r.Cases {
		cc := chartCase{ID: c.ID}
		for _, a := range c.Arms {
			cc.Bars = append(cc.Bars, chartBar{Arm: a.Arm, PromptTokens: int64(a.PromptTokens), ImageRows: int64(a.ImageRows), Refused: !a.Fits})
			for _, p := range a.Pictures {
				page.Pictures = append(page.Pictures, htmlPicture{Case: c.ID, Arm: a.Arm, Where: where(p), Picture: pictureCell(p),
					Outcome: string(p.Outcome), Reason: p.Reason, SHA256: p.SHA256, Rows: p.PromptRows(), Seen: p.SeenByModel})
			}
		}
		page.Data.Cases = append(page.Data.Cases, cc)
	}
	return reportPage.Execute(w, page)
}

// htmlCount formats a count for the page (the digits of the tables).
func htmlCount(n int) string { return Thousands(int64(n)) }
