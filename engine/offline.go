package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif"  // register decoders for picture sizes
	_ "image/jpeg" // (headers only: image.DecodeConfig)
	_ "image/png"
	"path/filepath"
	"strings"
	"time"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/webp"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/prompt"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// OfflineConfig names what the offline engine counts with.
type OfflineConfig struct {
	Tokenizer string // o200k_base, cl100k_base, a .gguf, a tokenizer.json
	Template  string // a built-in template name; "" for the model's own or ChatML
	MMProj    string // a projector GGUF deciding image rows
	Vision    string // a family name or imagerows.RecordedVision, used when MMProj is empty (default imagerows.DefaultFamily)
	Rows      imagerows.RowOptions
	// TemplateDate is the date the template writes as today's (zero: prompt.DefaultTemplateDate).
	TemplateDate time.Time
}

// DefaultTemplate is the chat template used when none is named: Qwen's ChatML with its tool
// and vision framing, matching the default vision family.
const DefaultTemplate = "qwen"

// Offline counts prompts with the project's own tokenizers, chat templates and image-row rules.
type Offline struct {
	counter  *prompt.Counter
	choice   imagerows.FamilyChoice
	rows     imagerows.RowOptions
	template string
}

// NewOffline loads the tokenizer, template and vision family of cfg.
func NewOffline(cfg OfflineConfig) (*Offline, error) {
	tok, err := tokenize.LoadTokenizer(cfg.Tokenizer)
	if err != nil {
		return nil, err
	}
	tmpl, err := offlineTemplate(cfg)
	if err != nil {
		return nil, err
	}
	tmpl = prompt.WithTemplateDate(tmpl, cfg.TemplateDate)
	choice, err := imagerows.Choose(cfg.MMProj, cfg.Vision)
	if err != nil {
		return nil, err
	}
	if err := imagerows.CheckRowOptions(choice.Fallback, cfg.Rows); err != nil {
		return nil, err
	}
	return &Offline{counter: prompt.NewCounter(tok, tmpl), choice: choice, rows: cfg.Rows, template: tmpl.Name()}, nil
}

// Name identifies the engine.
func (o *Offline) Name() string { return "offline" }

// NewRunCounter returns the counter of a base64 run of tool text streamed past while reading
// (corpora.RunCounter), counting with the engine's tokenizer.
func (o *Offline) NewRunCounter() corpora.RunCounter { return o.counter.NewRunCounter() }

// Family is the vision family deciding image rows of a conversation that names no model.
func (o *Offline) Family() imagerows.Family { return o.choice.Fallback }

// Choice is how the family of each conversation is decided (one family, or by recorded model).
func (o *Offline) Choice() imagerows.FamilyChoice { return o.choice }

// FamilyFor is the vision family deciding the image rows of a conversation whose recording
// names model ("": none).
func (o *Offline) FamilyFor(model string) imagerows.Family {
	f, _ := o.choice.For(model)
	return f
}

// RowOptions are the image token limits in use.
func (o *Offline) RowOptions() imagerows.RowOptions { return o.rows }

// TemplateName is the chat template in use.
func (o *Offline) TemplateName() string { return o.template }

// Template is the chat template of the computed counts.
func (o *Offline) Template() prompt.Template { return o.counter.Template() }

// UseTemplate makes t the template of the computed counts (before any is counted: a live
// server's own template, such as the one Ollama's /api/show reports).
func (o *Offline) UseTemplate(t prompt.Template) {
	o.counter = prompt.NewCounter(o.counter.Tokenizer(), t)
	o.template = t.Name()
}

// Render renders the messages and tools with the chat template: the prompt text a llama.cpp
// server with the same template makes of them (its /apply-template; pictures as the template's
// markers). When the vocabulary adds a BOS to every prompt, one the template wrote at the very
// start is taken off, as the server takes it off before adding its own.
func (o *Offline) Render(msgs []corpora.Message, tools []corpora.ToolDef) (string, error) {
	segs, err := o.counter.Template().Render(msgs, tools)
	if err != nil {
		return "", err
	}
	prompt := prompt.RenderString(segs)
	if b, ok := o.counter.Tokenizer().(interface{ AddedBOS() (string, bool) }); ok {
		if bos, adds := b.AddedBOS(); adds {
			prompt = strings.TrimPrefix(prompt, bos)
		}
	}
	return prompt, nil
}

// CountText counts a plain text with the tokenizer alone (no template, no special tokens).
func (o *Offline) CountText(text string) int { return o.counter.Tokenizer().Count(text) }

// Count renders the messages with the chat template, counts the text with the tokenizer and
// each picture with the vision family of a conversation that names no model.
func (o *Offline) Count(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (Count, error) {
	return o.CountFor(ctx, "", msgs, tools)
}

// CountFor is Count for a conversation whose recording names model: its pictures are counted
// with FamilyFor(model).
func (o *Offline) CountFor(ctx context.Context, model string, msgs []corpora.Message, tools []corpora.ToolDef) (Count, error) {
	if err := ctx.Err(); err != nil {
		return Count{}, err
	}
	tc, err := o.counter.CountRequest(msgs, tools)
	if err != nil {
		return Count{}, err
	}
	c := Count{TextTokens: tc.Tokens, TextSource: "tokenizer"}
	fam, opts := o.FamilyFor(model), o.rows
	for i, img := range tc.Images {
		w, h := img.Width, img.Height
		if w == 0 || h == 0 {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				return Count{}, fmt.Errorf("picture size: %w", err)
			}
			w, h = cfg.Width, cfg.Height
		}
		// where the picture sits: the text before it and the pictures before it (their rows
		// and markers), for a family whose rows depend on it
		if i < len(tc.ImageStarts) {
			opts.Position = tc.ImageStarts[i] + c.ImageRows
		}
		rows, err := imagerows.ImageRows(fam, w, h, opts)
		if err != nil {
			return Count{}, err
		}
		c.Images = append(c.Images, ImageCount{Width: w, Height: h, Rows: rows})
		c.ImageRows += rows.Total
		c.RowsSource = rows.Source
	}
	c.PromptTokens = c.TextTokens + c.ImageRows
	return c, nil
}

// offlineTemplate is --template (a built-in name or a file with a Jinja chat template); without
// it, the template of the --tokenizer file when it carries one (a GGUF's
// tokenizer.chat_template, a tokenizer_config.json beside a tokenizer.json), else the default.
func offlineTemplate(cfg OfflineConfig) (prompt.Template, error) {
	if cfg.Template != "" {
		return prompt.TemplateForTokenizer(cfg.Template, cfg.Tokenizer)
	}
	if spec := cfg.Tokenizer; spec != "" && spec != "o200k_base" && spec != "cl100k_base" {
		if strings.EqualFold(filepath.Ext(spec), ".json") {
			spec = filepath.Join(filepath.Dir(spec), "tokenizer_config.json")
		}
		if t, err := prompt.TemplateFromSpec(spec); err == nil {
			return t, nil
		}
	}
	return prompt.TemplateByName(DefaultTemplate)
}
