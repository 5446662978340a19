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
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

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
	// notSentArms counts the arms whose request the chat template renders as nothing.
	notSentArms int
	// refusals counts, per kind, the arms whose request the server refused while it answered
	// others (engine.RequestRefusedError), in the order first met.
	refusals     map[string]int
	refusalKinds []string
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

// refused records an arm whose request the server refused while it answered others: the
// first of each kind is said at once, on stderr; the report says each kind once with its arms.
func (s *liveState) refused(r *engine.RequestRefusedError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusals == nil {
		s.refusals = map[string]int{}
	}
	kind := r.Kind()
	if s.refusals[kind] == 0 {
		s.refusalKinds = append(s.refusalKinds, kind)
		fmt.Fprintf(s.notes, "strata-eval: %v; the arms it refuses so are errors of their cases, the run goes on\n", r)
	}
	s.refusals[kind]++
}

// notSent records an arm whose request the chat template renders as nothing: the first is said
// at once on stderr, the report says how many.
func (s *liveState) notSent() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notSentArms == 0 {
		fmt.Fprintf(s.notes, "strata-eval: the chat template renders nothing of some requests (they hold no user turn): they are not sent, their arms keep the computed counts\n")
	}
	s.notSentArms++
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
	if s.notSentArms > 0 {
		out = append(out, fmt.Sprintf("%d arm(s) not sent: the chat template renders nothing of their request (no user turn), which the server would refuse; they keep the computed counts", s.notSentArms))
	}
	if s.truncatedArms > 0 {
		out = append(out, fmt.Sprintf("%d arm(s) longer than the server's context were truncated by the server (its count is of what was left): their verdict says so and they are left out of server − computed (Ollama: a larger --ctx is sent as num_ctx, up to the model's trained context)", s.truncatedArms))
	}
	for _, k := range s.refusalKinds {
		out = append(out, fmt.Sprintf("the server refused %d arm(s) with %s while it answered other requests: each is an error of its case", s.refusals[k], k))
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
// (each protocol asks in its own way: llama.cpp's /props, Ollama's /api/version, /api/show
// and /api/ps): the context size, the model the server runs and the template it renders with.
// A context that cannot be read stops the run, unless --ctx gives it: a context guessed
// would change the verdicts.
func (m *meter) checkServer(ctx context.Context, p engine.ServerProber, cfg *Config) error {
	r, err := p.Probe(ctx, cfg.Context)
	if nobody := noServer(err); nobody != nil {
		return nobody
	}
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		m.live.warn("%s", w)
	}
	if r.ContextErr != nil {
		if cfg.Context == 0 {
			return fmt.Errorf("cannot read the server's context from %s: %w; pass --ctx N to run with a context of your own", r.ContextSource, r.ContextErr)
		}
		m.live.warn("cannot read the server's context from %s (%v): --ctx %d is used", r.ContextSource, r.ContextErr, cfg.Context)
	}
	if r.Server != "" {
		m.server = r.Server
	}
	m.truncates = r.Truncates
	switch {
	case r.Context == 0:
	case r.ContextSet, cfg.Context == 0:
		m.context = r.Context
	case cfg.Context > r.Context && !cfg.ForceContext:
		m.live.warn("--ctx %d is larger than the server's context (n_ctx %d from %s): the server's is used (--force-ctx keeps --ctx)", cfg.Context, r.Context, r.ContextSource)
		m.context = r.Context
	}
	if r.CompareTokenizer {
		m.checkTokenizer(cfg.Tokenizer, r.ModelPath)
	}
	if r.Template == nil {
		return nil
	}
	t, warnings, err := r.Template(m.offline.Template(), m.offline.TemplateName(), cfg.TemplateGiven, cfg.Tokenizer)
	for _, w := range warnings {
		m.live.warn("%s", w)
	}
	if err != nil {
		return err
	}
	if t != nil {
		m.offline.UseTemplate(t)
	}
	return nil
}

// checkTokenizer warns when the computed counts do not tokenize with the model file the server
// runs (modelPath; "" when it did not say).
func (m *meter) checkTokenizer(tokenizer, modelPath string) {
	served := filepath.Base(modelPath)
	if modelPath == "" {
		served = "a model of its own"
	}
	tok := strings.ToLower(tokenizer)
	switch {
	case !strings.HasSuffix(tok, ".gguf") && !strings.HasSuffix(tok, ".json"):
		m.live.warn("\"computed\" counts use the %s tokenizer while the server runs %s: server − computed then compares two tokenizers; pass --tokenizer with the server's GGUF (or its tokenizer.json) to compute with its own", tokenizer, served)
	case strings.HasSuffix(tok, ".gguf") && modelPath != "" && !strings.EqualFold(filepath.Base(tokenizer), served):
		m.live.warn("--tokenizer %s is not the model the server runs (%s): server − computed compares two models", filepath.Base(tokenizer), served)
	}
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
// keeps its computed counts); anything else is returned as rest, a request the server refused
// while it answered others recorded once per kind.
func (m *meter) liveFailure(err error) (lacking, rest error) {
	var refused *engine.RequestRefusedError
	if errors.As(err, &refused) {
		m.live.refused(refused)
	}
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
// A comparison that fails says so; a server without /apply-template is not compared here (an
// arm whose counts differ says it in its count_mismatch).
func (m *meter) checkTemplate(ctx context.Context, h engine.TemplateApplier, req engine.Request) {
	if m.templateChecked.Swap(true) {
		return
	}
	server, ok, err := h.ApplyTemplate(ctx, req)
	if !ok && err == nil {
		return
	}
	var computed string
	if err == nil {
		computed, err = m.offline.Render(req.Messages, req.Tools)
	}
	if err != nil {
		m.live.warn("the server's chat template could not be compared with --template %s: %v", m.templateName, err)
		return
	}
	if line, s, c, differ := firstDifferingLine(server, computed); differ {
		m.live.warn("the server's chat template is not --template %s: line %d of the first request's prompt is %q on the server, %q computed; server − computed counts the difference (%s)",
			m.templateName, line, s, c, templateFix)
	}
}

// templateFix says how to make the server's prompt the computed one.
const templateFix = "start the server with the template --template names, or name the server's with --template; a date differs unless --template-date today"

// compareRenderings says where the server's prompt and the computed one part, for a request
// whose counts differ: the first line that differs between the server's rendering (llama.cpp's
// /apply-template) and --template's, that they are the same (the difference is then the
// tokenizer's or the image rows'), or why they could not be compared.
func (m *meter) compareRenderings(ctx context.Context, req engine.Request) *results.CountMismatch {
	h, ok := m.engine.(engine.TemplateApplier)
	if !ok {
		return &results.CountMismatch{Note: fmt.Sprintf("renderings not compared: the %s engine does not render the server's chat template", m.engine.Name())}
	}
	server, ok, err := h.ApplyTemplate(ctx, req)
	switch {
	case err != nil:
		return &results.CountMismatch{Note: fmt.Sprintf("renderings not compared: the server's could not be read: %v", err)}
	case !ok:
		return &results.CountMismatch{Note: "renderings not compared: the server does not render its chat template on request (llama.cpp's /apply-template)"}
	}
	computed, err := m.offline.Render(req.Messages, req.Tools)
	if err != nil {
		return &results.CountMismatch{Note: fmt.Sprintf("renderings not compared: --template %s does not render the request: %v", m.templateName, err)}
	}
	line, s, c, differ := firstDifferingLine(server, computed)
	if !differ {
		return &results.CountMismatch{Note: "the server's rendering is the computed one: the difference is the tokenizer's or the image rows'"}
	}
	return &results.CountMismatch{Line: line, Server: s, Computed: c}
}

// sayMismatch warns, once per run, of the first arm whose server count differs from the
// computed one, with where the two prompts part (its count_mismatch); every such arm has its
// own in results.json.
func (m *meter) sayMismatch(caseID string, ac results.ArmCase) {
	if ac.Mismatch == nil || ac.CountDiff == nil || m.mismatchSaid.Swap(true) {
		return
	}
	mm := ac.Mismatch
	where := fmt.Sprintf("server − computed is %+d tokens on case %s, arm %s (the first; every arm whose counts differ has its count_mismatch in results.json)", *ac.CountDiff, caseID, ac.Arm)
	if mm.Line == 0 {
		m.live.warn("%s: %s", where, mm.Note)
		return
	}
	m.live.warn("%s: line %d of the prompt is %q on the server, %q computed (%s)", where, mm.Line, mm.Server, mm.Computed, templateFix)
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
