package run

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/strmemo"
	"github.com/strata-eval/strata-eval/internal/vecscan"
	"github.com/strata-eval/strata-eval/measure"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/score"
	"github.com/strata-eval/strata-eval/records"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// DefaultContext is the context size when neither the configuration, the engine nor a model
// GGUF gives one.
const DefaultContext = 262144

// meter turns an arm's result into the measured figures of one case and arm.
type meter struct {
	tokenizerName string
	templateName  string
	visionName    string
	context       int
	engine        engine.Engine
	rowOpts       imagerows.RowOptions
	// offline computes the counts a live engine's counts are compared with.
	offline *engine.Offline
	// answer asks a live engine for answers; expect holds the sidecar's expectations.
	answer    bool
	expect    map[string]corpora.Expectation
	tolerance float64
	reference string
	// server describes a live server (its build, from /props).
	server string
	// blind, when set, says why no pixels reach the model with this engine (rows are still
	// estimated, so the counts show what a multimodal build would take).
	blind string
	// truncates says the server cuts a prompt longer than its context instead of refusing it
	// (Ollama): such an arm's server count is of what was left, never compared.
	truncates bool
	// live holds what the run learnt about a live engine (warnings, pictures, a server gone).
	live *liveState
	// templateChecked says the server's template was compared with ours (checkTemplate).
	templateChecked atomic.Bool
	// mismatchSaid says the run's first count mismatch was said (sayMismatch).
	mismatchSaid atomic.Bool
	// chars remembers the characters of the last long tool texts by the identity of their
	// strings: the arms of a case end with the same tool texts (the lift hands the text
	// without a picture back as it is, and both lifting arms the same lifted text).
	chars *strmemo.Memo[int]
}

// Limits of meter.chars: texts of at least 16 KiB, 8 of them and 16 MiB in all.
const (
	minCharsMemo    = 16 << 10
	maxCharsEntries = 8
	maxCharsBytes   = 16 << 20
)

// isLive says whether the engine is not the offline one.
func (m *meter) isLive() bool { return m.engine != engine.Engine(m.offline) }

// newMeter sets up the measuring of a run: the offline counter, the engine, and the context
// size (the configured one, else the server's or the model's, else DefaultContext).
func newMeter(ctx context.Context, cfg *Config) (*meter, error) {
	off := cfg.Offline
	if off == nil {
		return nil, usageErrorf("run: no offline counter configured")
	}
	m := &meter{tokenizerName: cfg.Tokenizer, context: cfg.Context, offline: off, engine: cfg.Engine,
		rowOpts: off.RowOptions(), live: &liveState{notes: cfg.Notes},
		chars: strmemo.New[int](minCharsMemo, maxCharsEntries, maxCharsBytes)}
	if m.engine == nil {
		m.engine = off
	}
	m.answer, m.tolerance, m.reference, m.expect = cfg.Answer, cfg.Tolerance, cfg.Reference, cfg.Expect
	if m.answer {
		if _, ok := m.engine.(engine.Answerer); !ok {
			return nil, usageErrorf("--answer: the %s engine does not generate (use --engine http)", m.engine.Name())
		}
	}
	if p, ok := m.engine.(engine.ServerProber); ok {
		// the server's own context size decides its verdicts (llama.cpp's /props, Ollama's /api/ps)
		if err := m.checkServer(ctx, p, cfg); err != nil {
			return nil, err
		}
	}
	m.checkReference(cfg.Arms)
	if d, ok := m.engine.(engine.SelfDescriber); ok {
		desc := d.Describe()
		m.server, m.blind = desc.Server, desc.Blind
		if cfg.Context == 0 {
			m.context = desc.Context
		}
	}
	m.templateName, m.visionName = off.TemplateName(), off.Choice().Name()
	if m.context == 0 {
		m.context = DefaultContext
		if strings.HasSuffix(strings.ToLower(cfg.Tokenizer), ".gguf") {
			if n, err := measure.ContextLength(cfg.Tokenizer); err == nil && n > 0 {
				m.context = n
			}
		}
	}
	return m, nil
}

// measure counts the request an arm produced and assembles the arm's figures, its pictures
// counted with the family of model (the case's recorded model, caseModel). With a live engine
// the server's counts win (source "server") and the computed ones are kept beside them; with
// --answer the model answers, and a refusal by the server is the verdict.
func (m *meter) measure(ctx context.Context, arm replay.Arm, res *replay.Result, tools []corpora.ToolDef, model string) (results.ArmCase, error) {
	ac := results.ArmCase{Arm: res.Arm, Context: m.context, Gate: res.Gate}
	req := armRequest(arm, res, tools)
	count, err := m.offline.CountFor(ctx, model, res.Messages, tools)
	if err != nil {
		return ac, err
	}
	ac.TextTokens, ac.ImageRows, ac.PromptTokens = count.TextTokens, count.ImageRows, count.PromptTokens
	req.MaxCount = plausibleCount(count.PromptTokens, m.context)
	ac.TextSource, ac.RowsSource = count.TextSource, count.RowsSource
	var refused *engine.RefusedError
	var lacking error // the server lacks a capability the request needs: the arm keeps the computed counts
	truncatedTo := 0  // the server cut the prompt to its context: what it counted of it
	if a, ok := m.engine.(engine.TemplateApplier); ok && len(count.Images) == 0 && !req.Verbatim && !m.templateChecked.Load() {
		m.checkTemplate(ctx, a, req)
	}
	if m.isLive() && m.rendersNothing(count, res.Messages, tools) {
		ac.NotSent = "the chat template renders nothing of this request (it holds no user turn): nothing to send"
		m.live.notSent()
	} else if m.isLive() {
		computed := &results.ComputedCount{TextTokens: count.TextTokens, ImageRows: count.ImageRows,
			PromptTokens: count.PromptTokens, RowsSource: count.RowsSource}
		if err := m.serverCount(ctx, req, &ac); err != nil {
			r, ok := engine.AsRefused(err)
			if !ok {
				if lacking, err = m.liveFailure(err); err != nil {
					return ac, err
				}
				setCount(&ac, count)
			}
			refused = r
		} else if m.truncates && computed.PromptTokens > m.context {
			// the server cut the prompt to its context: its count is of what was left
			truncatedTo = ac.PromptTokens
			setCount(&ac, count)
			ac.Computed = computed
			m.live.truncated()
		} else {
			d := ac.PromptTokens - computed.PromptTokens
			ac.Computed, ac.CountDiff = computed, &d
			if d != 0 {
				ac.Mismatch = m.compareRenderings(ctx, req)
			}
		}
	}
	ac.Fits, ac.Verdict = measure.Verdict(ac.PromptTokens, m.context)
	if truncatedTo > 0 {
		ac.Fits, ac.RefusedBy = false, "server"
		ac.Verdict = fmt.Sprintf("truncated by the server to %d tokens (its context %d)", truncatedTo, m.context)
	}
	if ans, ok := m.engine.(engine.Answerer); ok && m.answer && refused == nil && lacking == nil && truncatedTo == 0 {
		a, err := ans.Answer(ctx, req)
		if r, ok := engine.AsRefused(err); ok {
			refused = r
		} else if l, rest := m.liveFailure(err); l != nil {
			lacking = l
		} else if rest != nil {
			return ac, fmt.Errorf("answer: %w", err)
		} else {
			ac.Answer, ac.AnswerKey, ac.Cached = a.Text, a.Key, a.Cached
			ac.Fits = true // the server answered: it fitted, whatever the configured context says
			if ac.Timings == nil && a.Timings != nil {
				ac.Timings = &results.ServerTimings{CacheN: a.Timings.CacheN, PromptN: a.Timings.PromptN, PromptMS: a.Timings.PromptMS}
			}
		}
	}
	if refused != nil {
		setRefused(&ac, refused)
	}
	if ac.Fits && truncatedTo == 0 {
		ac.Verdict = ""
	}
	ac.ToolMessages, ac.ToolChars, ac.ToolPictures = trailingToolMessages(res.Messages, m.chars)
	fam := m.offline.FamilyFor(model)
	placed := placedRows(res.Pictures, count.Images)
	for i, p := range res.Pictures {
		ac.Pictures = append(ac.Pictures, m.picture(&ac, fam, p, placed[i], lacking))
	}
	return ac, nil
}

// setRefused makes the arm's verdict the server's refusal, with the count and context it gave.
func setRefused(ac *results.ArmCase, refused *engine.RefusedError) {
	ac.Fits, ac.RefusedBy = false, "server"
	ac.Verdict = "refused by the server: " + refused.Message
	if refused.PromptTokens > 0 {
		ac.PromptTokens, ac.TextSource = refused.PromptTokens, results.SourceServer
	}
	if refused.Context > 0 {
		ac.Context = refused.Context
	}
}

// picture is the arm's figures of one picture of its request: the rows it costs the model's
// family fam when the model sees it (placed, when the count gave them where the picture sits; else
// those of a picture at the start), then the arm sees a picture when its request fits, unless
// the model is blind or the server takes no pictures (lacking).
func (m *meter) picture(ac *results.ArmCase, fam imagerows.Family, p replay.PictureRecord, placed *imagerows.Rows, lacking error) results.Picture {
	pic := results.Picture{PictureRecord: p}
	if !p.SeenByModel {
		return pic
	}
	w, h := p.Width, p.Height
	if p.Resized != nil {
		w, h = p.Resized.ToWidth, p.Resized.ToHeight
	}
	if placed != nil {
		pic.Rows, pic.Markers, pic.Family = placed.Rows, placed.Markers, fam.Name
	} else if rows, err := imagerows.ImageRows(fam, w, h, m.rowOpts); err == nil {
		pic.Rows, pic.Markers, pic.Family = rows.Rows, rows.Markers, fam.Name
	}
	ac.SeesPicture = ac.Fits
	if m.blind != "" {
		pic.SeenByModel, pic.Reason, ac.SeesPicture = false, m.blind, false
	}
	if errors.Is(lacking, engine.ErrNoPictures) {
		pic.SeenByModel, pic.Reason, ac.SeesPicture = false, engine.ErrNoPictures.Error(), false
	}
	return pic
}

// placedRows are the rows the count gave each picture where it sits in the prompt, by index in
// pictures, so that a picture is not counted twice and a position-dependent family's rows are
// those of its position: the pictures the model sees are the count's, in order, when there are
// as many (else none, and a picture's rows are counted from its size, as at the start).
func placedRows(pictures []records.PictureRecord, counted []engine.ImageCount) map[int]*imagerows.Rows {
	var seen []int
	for i, p := range pictures {
		if p.SeenByModel {
			seen = append(seen, i)
		}
	}
	if len(seen) != len(counted) {
		return nil
	}
	out := make(map[int]*imagerows.Rows, len(seen))
	for k, i := range seen {
		out[i] = &counted[k].Rows
	}
	return out
}

// caseModel is the model id a case's pictures are counted by: the one its recording names
// when each case's recorded model chooses its family (--vision recorded), else "" (the one
// family of the run).
func (m *meter) caseModel(recorded string) string {
	if !m.offline.Choice().ByModel {
		return ""
	}
	return strings.TrimSpace(recorded)
}

// visionModels are the distinct model ids the cases name (caseModel), each with the family
// that counted its pictures, by id.
func (m *meter) visionModels(cases []results.Case) []results.VisionModel {
	seen := map[string]bool{}
	var out []results.VisionModel
	for _, c := range cases {
		if c.Model == "" || seen[c.Model] {
			continue
		}
		seen[c.Model] = true
		f, byModel := m.offline.Choice().For(c.Model)
		out = append(out, results.VisionModel{Model: c.Model, Family: f.Name, Rule: f.Describe(), Fallback: !byModel})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// plausibleCount is the largest count a server may report for a prompt computed at computed
// tokens, with a context of context: a count that fits the context is always plausible (a
// server holds it); beyond it, eight times the computed count and 4096 tokens more (another
// tokenizer, another vision family, a chat template of its own). Anything larger is an invalid
// answer (docs/decisions.md).
func plausibleCount(computed, context int) int {
	return max(8*computed+4096, context)
}

// serverCount fills the arm's counts from the live engine (source "server").
func (m *meter) serverCount(ctx context.Context, req engine.Request, ac *results.ArmCase) error {
	if sc, ok := m.engine.(engine.ServerCounter); ok {
		c, err := sc.ServerCount(ctx, req)
		if err != nil {
			return err
		}
		ac.CountMethod = c.Method
		if t := c.Timings; t != nil {
			ac.Timings = &results.ServerTimings{CacheN: t.CacheN, PromptN: t.PromptN, PromptMS: t.PromptMS}
		}
		setCount(ac, c.Count)
		return nil
	}
	c, err := engine.CountOf(ctx, m.engine, req)
	if err != nil {
		return err
	}
	setCount(ac, c)
	return nil
}

func setCount(ac *results.ArmCase, c engine.Count) {
	ac.TextTokens, ac.ImageRows, ac.PromptTokens = c.TextTokens, c.ImageRows, c.PromptTokens
	ac.TextSource, ac.RowsSource = c.TextSource, c.RowsSource
}

// score judges every arm's answer against the case's expectation: the sidecar's entry (by
// case id, then conversation id) or the corpus's own.
func (m *meter) score(c *results.Case, own *corpora.Expectation) error {
	exp, ok := score.ExpectationFor(m.expect, c.ID, c.Conversation)
	if !ok {
		if own == nil {
			return nil
		}
		exp = *own
	}
	c.Question, c.Expected, c.Scorer = exp.Question, exp.Answer, exp.Scorer
	return ScoreArms(c, exp)
}

// ScoreArms sets Correct and Extracted on every arm that has an answer (or was refused: a
// refused request is not answered, so not correct).
func ScoreArms(c *results.Case, exp corpora.Expectation) error {
	for i := range c.Arms {
		a := &c.Arms[i]
		if a.Answer == "" && a.RefusedBy == "" {
			a.Correct, a.Extracted = nil, ""
			continue
		}
		r, err := score.Score(exp, a.Answer)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		ok := r.Correct
		a.Correct, a.Extracted = &ok, r.Extracted
	}
	return nil
}

// diverge compares each verbatim arm's count with the reference arm's.
func (m *meter) diverge(c *results.Case, arms []replay.Arm) {
	verbatim := map[string]bool{}
	for _, a := range arms {
		verbatim[a.Name] = a.Settings.Server == replay.ServerVerbatim
	}
	var ref *results.ArmCase
	for i := range c.Arms {
		if c.Arms[i].Arm == m.reference {
			ref = &c.Arms[i]
		}
	}
	if ref == nil || ref.PromptTokens == 0 {
		return
	}
	for i := range c.Arms {
		a := &c.Arms[i]
		if !verbatim[a.Arm] || a.Arm == ref.Arm || a.RefusedBy != "" {
			continue
		}
		d := a.PromptTokens - ref.PromptTokens
		rel := float64(d) / float64(ref.PromptTokens)
		a.Divergence = &results.Divergence{Reference: ref.Arm, ReferenceTokens: ref.PromptTokens, Diff: d, Relative: rel,
			Diverges: rel > m.tolerance || rel < -m.tolerance}
	}
}

// trailingToolMessages measures the tool messages the request ends with: how many, their
// characters of text (from memo for a long text met lately; nil: none) and the pictures they
// carry as image parts.
func trailingToolMessages(msgs []corpora.Message, memo *strmemo.Memo[int]) (messages, chars, pictures int) {
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == corpora.RoleTool; i-- {
		messages++
		for _, p := range msgs[i].Parts {
			switch p.Kind {
			case corpora.PartText:
				chars += memo.Get(p.Text, textChars)
			case corpora.PartImage:
				pictures++
			}
		}
	}
	return messages, chars, pictures
}

// textChars is the length of a text in characters (len([]rune(…)) without the copy), a base64
// run streamed past while reading counted as the characters it had (corpora.LargeRuns).
func textChars(s string) int {
	if !corpora.HasLargeRun(s) {
		return runeCount(s)
	}
	n, last := 0, 0
	for _, r := range corpora.LargeRuns(s) {
		n += runeCount(s[last:r.Start]) + int(r.Chars)
		last = r.End
	}
	return n + runeCount(s[last:])
}

// runeCount is utf8.RuneCountInString (len([]rune(s)): a byte that is not UTF-8 counts as one
// rune) with a fast path over ASCII: a tool text is megabytes of base64 or logs, which the
// standard function walks rune by rune. The ASCII prefix is passed 32 bytes a step
// (vecscan.ASCIIPrefix), the rest eight a step between runes.
func runeCount(s string) int {
	const high = 0x8080808080808080
	n := vecscan.ASCIIPrefix(s)
	for i := n; i < len(s); {
		if i+8 <= len(s) && binary.LittleEndian.Uint64([]byte(s[i:i+8]))&high == 0 {
			n, i = n+8, i+8
			continue
		}
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n, i = n+1, i+size
	}
	return n
}

// describeInput returns an input's size and digest; the embedded corpus is digested file by
// file in name order.
func describeInput(path string) results.Input {
	var size int64
	h := newInputHash()
	if path == EmbeddedInput {
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
			size += int64(len(data))
		}
	} else if f, err := os.Open(path); err == nil {
		// A read of 1 MiB at a time: io.Copy would take the file's WriteTo, 32 KiB a read.
		size, _ = io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, 1<<20))
		f.Close()
	}
	return inputInfo(path, size, h)
}

// armRequest is the request an arm's result makes for an engine.
func armRequest(arm replay.Arm, res *replay.Result, tools []corpora.ToolDef) engine.Request {
	return engine.Request{Messages: res.Messages, Tools: tools, Verbatim: arm.Settings.Server == replay.ServerVerbatim}
}

// rendersNothing says whether the chat template renders no text of the request (nor a picture):
// a server given it refuses it ("no input provided"), so it is not sent.
func (m *meter) rendersNothing(count engine.Count, msgs []corpora.Message, tools []corpora.ToolDef) bool {
	if count.TextTokens > 2 || len(count.Images) > 0 {
		return false
	}
	prompt, err := m.offline.Render(msgs, tools)
	return err == nil && strings.TrimSpace(prompt) == ""
}
