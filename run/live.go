package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/measure/prompt"
	"github.com/strata-eval/strata-eval/replay"
)

// checkOllama asks Ollama for the model the run sends to (/api/show, then /api/ps once it is
// loaded with the run's num_ctx): the context it really runs with decides the verdicts, and a
// prompt longer than that context is truncated by Ollama, not refused. The computed counts
// render the model's Go template (--template's, else the one the server reports) over the
// conversation as Ollama converts the protocol the requests are sent with.
func (m *meter) checkOllama(ctx context.Context, h engine.ServerProber, cfg *Config, version string) error {
	info, err := h.OllamaShow(ctx)
	if nobody := noServer(err); nobody != nil {
		return nobody
	}
	if err != nil {
		return fmt.Errorf("cannot read the model's context from Ollama: %w", err)
	}
	m.truncates = true
	m.server = "Ollama"
	if version != "" {
		m.server += " " + version
	}
	if h.API() != engine.APIOllama {
		m.server += " through its " + h.API() + " API"
	}
	m.server += ", model " + h.Model()
	if info.Family != "" {
		m.server += " (" + info.Family + ")"
	}
	if cfg.Context > 0 && info.Context < cfg.Context {
		why := "num_ctx is capped at the model's trained context"
		if !h.Protocol().SendsContext() {
			why = fmt.Sprintf("the %s API sends no num_ctx: the Modelfile's PARAMETER num_ctx or OLLAMA_CONTEXT_LENGTH sets it", h.API())
		}
		m.live.warn("Ollama runs %s with a context of %d, not --ctx %d (%s)", h.Model(), info.Context, cfg.Context, why)
	}
	m.context = info.Context
	t, ok := m.offline.Template().(*prompt.OllamaTemplate)
	switch {
	case !ok && cfg.TemplateGiven:
		m.live.warn("Ollama renders the prompt with the model's Go template, not %q: server − computed counts the difference (pass --template with the model's Modelfile or a .gotmpl holding `ollama show --template %s`, or no --template to take the server's)", m.offline.TemplateName(), h.Model())
		return nil
	case !ok:
		// no --template: the computed counts render the template the server reports
		if t, err = prompt.OllamaTemplateFor("ollama:"+h.Model(), prompt.OllamaModel{Template: info.Template, System: info.System,
			Messages: info.Messages, Family: info.Family, Name: h.Model()}, cfg.Tokenizer); err != nil {
			return fmt.Errorf("the template Ollama reports for %s: %w", h.Model(), err)
		}
	}
	through, err := t.Through(h.API())
	if err != nil {
		m.live.warn("%v: the computed counts render the conversation as Ollama's native API takes it", err)
		through = t
	}
	m.offline.UseTemplate(through)
	return nil
}

// liveState is what a run learns about its live engine while it runs: warnings for the report,
// whether the server takes pictures, whether it is still there. Safe for concurrent use.
type liveState struct {
	notes io.Writer

	mu       sync.Mutex
	warnings []string
	// lacking holds, per capability the server lacks (engine.ErrNoPictures, ErrNoTools), its
	// first word on it and the arms that kept their computed counts because of it.
	lacking map[error]*lack
	// truncatedArms counts the arms whose prompt the server cut to its context (Ollama).
	truncatedArms int
	// stop is the open circuit that stopped the run (the server gone or failing again and
	// again); fault is the first failure of the server that cost a case; notMeasured counts
	// the cases it cost, those not sent once the run stopped included.
	stop        error
	fault       error
	notMeasured int
}

// warn records a warning for the report and prints it at once.
func (s *liveState) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = append(s.warnings, msg)
	fmt.Fprintf(s.notes, "strata-eval: warning: %s\n", msg)
}

// lack is a capability the server lacks: its first word on it and the arms it cost.
type lack struct {
	err  error
	arms int
}

// lackTexts say, per capability, which arms lose it and how to get it (in the order the
// report lists them).
var lackTexts = []struct {
	missing   error
	arms, fix string
}{
	{engine.ErrNoTools, "declaring tools", "serve the model with a template that takes tools: Ollama's TEMPLATE with .Tools"},
	{engine.ErrNoPictures, "with pictures", "serve a model that sees, such as llama-server with --mmproj, to count them"},
}

// lacks records an arm needing a capability the server lacks (err matches missing); the first
// one is said at once, on stderr, and the report says it once with the number of arms.
func (s *liveState) lacks(missing, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lacking == nil {
		s.lacking = map[error]*lack{}
	}
	l := s.lacking[missing]
	if l == nil {
		l = &lack{err: err}
		s.lacking[missing] = l
		for _, t := range lackTexts {
			if t.missing == missing {
				fmt.Fprintf(s.notes, "strata-eval: %v; requests %s are not sent again, their arms keep the computed counts (%s)\n", err, t.arms, t.fix)
			}
		}
	}
	l.arms++
}

// truncated records an arm whose prompt the server cut to its context.
func (s *liveState) truncated() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncatedArms++
}

// serverFailed records a request the server failed; an open circuit stops the run.
func (s *liveState) serverFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil {
		s.fault = err
	}
	if s.stop == nil && (errors.Is(err, engine.ErrServerGone) || errors.Is(err, engine.ErrServerFailing)) {
		s.stop = err
	}
}

// caseNotMeasured counts a case the server cost (or that was not sent once the run stopped).
func (s *liveState) caseNotMeasured() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notMeasured++
}

// stopped says whether the run stopped sending.
func (s *liveState) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop != nil
}

// runError is the error a run ends with when the server cost it cases, else nil; cases is
// how many the run went through.
func (s *liveState) runError(cases int, out bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notMeasured == 0 {
		return nil
	}
	measured := cases - s.notMeasured
	err := s.fault
	if s.stop != nil {
		err = s.stop
	}
	return &ServerError{Err: err, Measured: measured, NotMeasured: s.notMeasured, Stopped: s.stop != nil, Out: out}
}

// report returns the warnings of the run, the refusal of pictures included.
func (s *liveState) report() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.warnings...)
	if s.truncatedArms > 0 {
		out = append(out, fmt.Sprintf("%d arm(s) longer than the server's context were truncated by the server (its count is of what was left): their verdict says so and they are left out of server − computed (Ollama: a larger --ctx is sent as num_ctx, up to the model's trained context)", s.truncatedArms))
	}
	for _, t := range lackTexts {
		if l := s.lacking[t.missing]; l != nil {
			out = append(out, fmt.Sprintf("%v: %d arm(s) %s keep the computed counts and are left out of server − computed", l.err, l.arms, t.arms))
		}
	}
	return out
}

// noServer is the run's one line when nothing answers at the endpoint (err wraps
// engine.ErrServerGone: every connection refused for the server wait), nil otherwise: no
// setting of the run helps then, only a server that listens there.
func noServer(err error) error {
	if !errors.Is(err, engine.ErrServerGone) {
		return nil
	}
	return fmt.Errorf("%w; start the server, or give --endpoint the address it listens on", err)
}

// checkServer compares the configuration with what a live http server says about itself
// (llama.cpp's /props; Ollama's /api/version, /api/show and /api/ps whatever the protocol): the
// context size and the model the server runs. A /props that cannot
// be read stops the run, unless --ctx gives the context: a context guessed would change the
// verdicts.
func (m *meter) checkServer(ctx context.Context, h engine.ServerProber, cfg *Config) error {
	if h.API() == engine.APIOllama {
		version, _, _ := h.OllamaVersion(ctx) // the version is said in the report where Ollama says it
		return m.checkOllama(ctx, h, cfg, version)
	}
	info, ok, err := h.Props(ctx)
	if nobody := noServer(err); nobody != nil {
		return nobody
	}
	if err == nil && !ok {
		// not llama.cpp: Ollama answers /api/version, and is asked what it runs as over its own API
		if version, ollama, verr := h.OllamaVersion(ctx); verr == nil && ollama {
			return m.checkOllama(ctx, h, cfg, version)
		}
	}
	if err != nil {
		if cfg.Context == 0 {
			return fmt.Errorf("cannot read the server's context from /props: %w; pass --ctx N to run with a context of your own", err)
		}
		m.live.warn("cannot read the server's context from /props (%v): --ctx %d is used", err, cfg.Context)
	}
	if ok {
		m.server = info.Build
		switch {
		case cfg.Context == 0:
			m.context = info.Context
		case cfg.Context > info.Context && !cfg.ForceContext:
			m.live.warn("--ctx %d is larger than the server's context (n_ctx %d from /props): the server's is used (--force-ctx keeps --ctx)", cfg.Context, info.Context)
			m.context = info.Context
		}
	}
	served := filepath.Base(info.ModelPath)
	if info.ModelPath == "" {
		served = "a model of its own"
	}
	tok := strings.ToLower(cfg.Tokenizer)
	switch {
	case !strings.HasSuffix(tok, ".gguf") && !strings.HasSuffix(tok, ".json"):
		m.live.warn("\"computed\" counts use the %s tokenizer while the server runs %s: server − computed then compares two tokenizers; pass --tokenizer with the server's GGUF (or its tokenizer.json) to compute with its own", cfg.Tokenizer, served)
	case strings.HasSuffix(tok, ".gguf") && info.ModelPath != "" && !strings.EqualFold(filepath.Base(cfg.Tokenizer), served):
		m.live.warn("--tokenizer %s is not the model the server runs (%s): server − computed compares two models", filepath.Base(cfg.Tokenizer), served)
	}
	return nil
}

// checkReference warns when a verbatim arm runs without the arm its count is compared with.
func (m *meter) checkReference(arms []replay.Arm) {
	var names []string
	run := false
	for _, a := range arms {
		names = append(names, a.Name)
		run = run || a.Name == m.reference
	}
	for _, a := range arms {
		if a.Settings.Server != replay.ServerVerbatim || a.Name == m.reference {
			continue
		}
		if !run {
			m.live.warn("the verbatim arm %s has no reference arm: --reference-arm %s is not among the arms run (%s), so no divergence is computed", a.Name, m.reference, strings.Join(names, ", "))
		}
	}
}

// liveFailure sorts an engine's failure to count an arm: the server's word that it lacks a
// capability the request needs (pictures, tools) is recorded and returned as lacking (the arm
// keeps its computed counts); anything else is returned as rest.
func (m *meter) liveFailure(err error) (lacking, rest error) {
	for _, t := range lackTexts {
		if errors.Is(err, t.missing) {
			m.live.lacks(t.missing, err)
			return err, nil
		}
	}
	return nil, err
}

// checkTemplate compares, once, the prompt a llama.cpp server's chat template makes of a request
// (its /apply-template) with the one --template renders, and warns with the first line that
// differs: server − computed then holds the difference of the templates, not of the tokenizers.
// A server without /apply-template is not compared.
func (m *meter) checkTemplate(ctx context.Context, h engine.TemplateApplier, req engine.Request) {
	if m.templateChecked.Swap(true) {
		return
	}
	server, ok, err := h.ApplyTemplate(ctx, req)
	if err != nil || !ok {
		return
	}
	computed, err := m.offline.Render(req.Messages, req.Tools)
	if err != nil {
		return
	}
	if line, s, c, differ := firstDifferingLine(server, computed); differ {
		m.live.warn("the server's chat template is not --template %s: line %d of the first request's prompt is %q on the server, %q computed; server − computed counts the difference (start the server with the template --template names, or name the server's with --template; a date differs unless --template-date today)",
			m.templateName, line, s, c)
	}
}

// firstDifferingLine returns the first line (1-based) where a and b differ, with the two
// lines, each cut to 80 characters.
func firstDifferingLine(a, b string) (int, string, string, bool) {
	if a == b {
		return 0, "", "", false
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	cut := func(lines []string, i int) string {
		if i >= len(lines) {
			return "(the prompt ends)"
		}
		if r := []rune(lines[i]); len(r) > 80 {
			return string(r[:80]) + "…"
		}
		return lines[i]
	}
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	return i + 1, cut(al, i), cut(bl, i), true
}
