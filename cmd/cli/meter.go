package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/measure"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// meter turns an arm's result into the measured figures of one case and arm.
type meter struct {
	tokenizerName string
	templateName  string
	visionName    string
	context       int
	engine        engine.Engine
	family        measure.Family
	rowOpts       measure.RowOptions
}

// newMeter loads the tokenizer, template, vision family and context size the flags name.
func newMeter(o *ReplayOptions) (*meter, error) {
	m := &meter{tokenizerName: o.Tokenizer, context: o.Context}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: o.Tokenizer, Template: o.Template, MMProj: o.MMProj,
		Vision: o.Vision, Rows: measure.RowOptions{MinTokens: o.MinTokens, MaxTokens: o.MaxTokens}})
	if err != nil {
		return nil, withExitCode(ExitUsage, err)
	}
	m.family, m.rowOpts = off.Family(), off.RowOptions()
	if m.engine, err = newEngine(o, off); err != nil {
		return nil, err
	}
	m.templateName, m.visionName = off.TemplateName(), off.Family().Name
	if m.context == 0 {
		m.context = defaultContext
		if strings.HasSuffix(strings.ToLower(o.Tokenizer), ".gguf") {
			if n, err := measure.ContextLength(o.Tokenizer); err == nil && n > 0 {
				m.context = n
			}
		}
	}
	return m, nil
}

// measure counts the request an arm produced and assembles the arm's figures.
func (m *meter) measure(ctx context.Context, res *replay.Result, tools []corpora.ToolDef) (results.ArmCase, error) {
	ac := results.ArmCase{Arm: res.Arm, Context: m.context, Gate: res.Gate}
	count, err := m.engine.Count(ctx, res.Messages, tools)
	if err != nil {
		return ac, err
	}
	ac.TextTokens, ac.ImageRows, ac.PromptTokens = count.TextTokens, count.ImageRows, count.PromptTokens
	ac.TextSource, ac.RowsSource = count.TextSource, count.RowsSource
	ac.Fits, ac.Verdict = measure.Verdict(ac.PromptTokens, m.context)
	if ac.Fits {
		ac.Verdict = ""
	}
	ac.ToolChars, ac.ToolPictures = trailingToolMessages(res.Messages)
	for _, p := range res.Pictures {
		pic := results.Picture{PictureRecord: p}
		if p.SeenByModel {
			w, h := p.Width, p.Height
			if p.Resized != nil {
				w, h = p.Resized.ToWidth, p.Resized.ToHeight
			}
			if rows, err := measure.ImageRows(m.family, w, h, m.rowOpts); err == nil {
				pic.Rows, pic.Markers, pic.Family = rows.Rows, rows.Markers, m.family.Name
			}
			ac.SeesPicture = ac.Fits
		}
		ac.Pictures = append(ac.Pictures, pic)
	}
	return ac, nil
}

// trailingToolMessages measures the tool messages the request ends with: characters of
// text and pictures carried as image parts.
func trailingToolMessages(msgs []corpora.Message) (chars, pictures int) {
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == corpora.RoleTool; i-- {
		for _, p := range msgs[i].Parts {
			switch p.Kind {
			case corpora.PartText:
				chars += len([]rune(p.Text))
			case corpora.PartImage:
				pictures++
			}
		}
	}
	return chars, pictures
}

// describeInput returns an input's size and sha256; the embedded corpus is digested file by
// file in name order.
func describeInput(path string) results.Input {
	in := results.Input{Path: path}
	h := sha256.New()
	if path == "(embedded sample corpus)" {
		fsys := corpora.SampleFS()
		var names []string
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				names = append(names, p)
			}
			return nil
		})
		sort.Strings(names)
		for _, n := range names {
			data, err := fs.ReadFile(fsys, n)
			if err != nil {
				continue
			}
			io.WriteString(h, n+"\x00")
			h.Write(data)
			in.Bytes += int64(len(data))
		}
	} else if f, err := os.Open(path); err == nil {
		n, _ := io.Copy(h, f)
		f.Close()
		in.Bytes = n
	}
	in.SHA256 = hex.EncodeToString(h.Sum(nil))
	return in
}
