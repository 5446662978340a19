// Package run replays recorded conversations through the arms and measures every case: the
// core of `strata-eval replay`, with no command-line types. A Config names the inputs, the
// arms and the engine; Run reads the inputs, replays each request through every arm on
// Workers workers, streams the cases to CasesOut in input order and returns the report.
//
// Errors a command turns into exit codes are typed: *UsageError (the configuration),
// *InputsError (some inputs or cases could not be processed; the rest was) and *ServerError (a
// live server failed cases; the rest was measured).
package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// Config is one replay run.
type Config struct {
	// Paths are the input files and folders; none reads the embedded sample corpus; "-" reads
	// Stdin.
	Paths []string
	Stdin io.Reader
	// Format is the input format ("" or corpora.FormatAuto: detected per file).
	Format corpora.Format
	// Turns is "last" (the last request of each conversation) or "all" (every request).
	Turns string
	// Workers replay cases in parallel (at least 1).
	Workers int
	// MCPDelivery is how MCP results reach the server (replay.MCPAuto and the others).
	MCPDelivery string
	// Dump, when set, is a folder for the request each arm hands the model and its pictures.
	Dump string
	// Thumbnails makes the thumbnails of the report page (Report.Thumbnails).
	Thumbnails bool
	// TemplateDate is the date the chat template writes as today's (recorded in the report).
	TemplateDate string
	// TemplateGiven says the user named the chat template (--template); without it a live
	// server that reports its own (Ollama's /api/show) decides the computed counts' template.
	TemplateGiven bool
	// Arms are the arms every case runs through, in table order (see SelectArms).
	Arms []replay.Arm
	// Shard keeps only the cases of one shard (the zero value keeps every case).
	Shard Shard

	// Offline computes the counts (and decides the vision family); it is required.
	Offline *engine.Offline
	// largeRunChars is the length from which the readers stream a base64 run of tool text past
	// (0: theirs; tests set less).
	largeRunChars int
	// Engine counts (and answers); nil is Offline.
	Engine engine.Engine
	// Tokenizer is the tokenizer's name as configured (reported; a .gguf gives the context).
	Tokenizer string
	// Context is the context size in tokens; 0 takes the server's, the model's or DefaultContext.
	// A Context larger than a live server's n_ctx gives way to it, with a warning, unless
	// ForceContext is set.
	Context      int
	ForceContext bool
	// Answer asks the engine to answer each request; Expect holds the sidecar's expectations.
	Answer bool
	Expect map[string]corpora.Expectation
	// Tolerance and Reference decide when a verbatim arm's count diverges from the reference arm's.
	Tolerance float64
	Reference string

	// Previous holds the cases of an earlier run by id (resuming): they are not replayed again.
	Previous map[string]results.Case
	// CasesOut receives each case as a JSON line, in input order, as it completes (nil: none).
	CasesOut io.Writer
	// Notes receives diagnostics (files skipped); nil discards them.
	Notes io.Writer
	// Progress, when set, is called from one goroutine each time a case is done.
	Progress func(Progress)

	// ToolVersion and Flags are recorded in the report's config block.
	ToolVersion string
	Flags       map[string]string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Progress tells how far a run is.
type Progress struct {
	// Done is the number of cases finished (in input order), resumed ones included.
	Done int
	// TotalBytes is the size of every input file, known once the paths are listed (0 for the
	// embedded corpus and stdin: unknown); ReadBytes the size of the files read to the end.
	TotalBytes, ReadBytes int64
}

// Run replays the inputs of cfg and returns the report. The report is returned whenever the
// inputs could be opened, also with an error (a cancelled run reports the cases it finished;
// *InputsError reports everything that could be read); a nil report comes with the error that
// stopped the run before it began.
func Run(ctx context.Context, cfg Config) (*results.Report, error) {
	if cfg.Workers < 1 {
		return nil, usageErrorf("-j must be at least 1")
	}
	switch cfg.Turns {
	case "":
		cfg.Turns = "last"
	case "last", "all":
	default:
		return nil, usageErrorf("--turns must be last or all, not %q", cfg.Turns)
	}
	if cfg.Notes == nil {
		cfg.Notes = io.Discard
	}
	// every arm's catalog parsed once, shared by its requests (the caller's arms untouched)
	cfg.Arms = append([]replay.Arm(nil), cfg.Arms...)
	if err := replay.LoadCatalogs(cfg.Arms); err != nil {
		return nil, asUsage(err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	m, err := newMeter(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	if err := sameContext(cfg.Previous, m.context); err != nil {
		return nil, err
	}
	start := now()
	if cfg.Dump != "" {
		if err := fsutil.MkdirAll(cfg.Dump); err != nil {
			return nil, err
		}
	}
	r := &runner{cfg: &cfg, meter: m,
		applier: replay.Applier{ClientSide: replay.AgentClientSide, MCPDelivery: cfg.MCPDelivery,
			Pictures: replay.NewPictureMemo()}}
	if cfg.Thumbnails {
		r.thumbs = newThumbnailer()
	}
	load, runErr := r.execute(ctx)
	if load == nil {
		return nil, runErr
	}
	rep := r.report(load, now().Sub(start))
	if runErr != nil {
		return rep, runErr
	}
	if err := m.live.runError(len(r.cases), cfg.CasesOut != nil); err != nil {
		rep.Config.Warnings = append(rep.Config.Warnings, err.Error())
		return rep, err
	}
	return rep, load.Err()
}

// sameContext checks that the cases of an earlier run (resuming) were measured with the
// context of this one: a run has one context, whose verdicts its summary adds up. An arm the
// server refused carries the server's own context and is not compared.
func sameContext(previous map[string]results.Case, context int) error {
	ids := make([]string, 0, len(previous))
	for id := range previous {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c := previous[id]
		for _, a := range c.Arms {
			if a.RefusedBy == "" && a.Context != 0 && a.Context != context {
				return usageErrorf("the cases to resume were measured with a context of %d tokens (case %s), this run's is %d: pass --ctx %d, or run afresh without --resume", a.Context, c.ID, context, a.Context)
			}
		}
	}
	return nil
}

// runner is one execution: the meter and the cases as they finish.
type runner struct {
	cfg     *Config
	meter   *meter
	applier replay.Applier
	// thumbs makes the report page's thumbnails (nil: none).
	thumbs *thumbnailer

	mu        sync.Mutex
	cases     []indexedCase
	scanBytes map[string]int64
	// sizes count the bytes of the inputs read, for Progress.
	sizes *inputSizes
}

// inputSizes counts the bytes of the input files read to the end: a file is done when the
// conversations of the next one begin (files are read in order), or when the reading ends.
type inputSizes struct {
	total   int64
	size    map[string]int64
	current string
	read    atomic.Int64
}

// newInputSizes lists the sizes of the files under paths, or of the embedded corpus's when
// there is none (none known for stdin).
func newInputSizes(paths []string) *inputSizes {
	s := &inputSizes{size: map[string]int64{}}
	if len(paths) == 0 {
		names, _ := corpora.SampleFiles()
		for _, name := range names {
			if info, err := fs.Stat(corpora.SampleFS(), name); err == nil {
				s.size[name] = info.Size()
				s.total += info.Size()
			}
		}
		return s
	}
	ex, err := expandPaths(paths)
	if err != nil {
		return s
	}
	for _, f := range ex.files {
		if f.Stdin {
			return &inputSizes{size: map[string]int64{}} // a stream of unknown length: no total
		}
		if info, err := os.Stat(f.Path); err == nil && info.Mode().IsRegular() {
			s.size[f.Path] = info.Size()
			s.total += info.Size()
		}
	}
	return s
}

// reading notes that file is being read ("" when the reading ended): the file read before it
// is done. Called from the loading goroutine only.
func (s *inputSizes) reading(file string) {
	if file == s.current {
		return
	}
	s.read.Add(s.size[s.current])
	delete(s.size, s.current)
	s.current = file
	if file == "" {
		s.read.Store(s.total)
	}
}

type indexedCase struct {
	index  int
	c      results.Case
	timing []results.CaseTiming
	// resumed marks a case read back from cases.jsonl (not written again).
	resumed bool
	// cancelled marks a case interrupted by cancellation (not written to cases.jsonl).
	cancelled bool
	// serverArms are the arms a server failed: their errors are the server's, not problems
	// of the inputs. notMeasured marks a case with no arm measured because of it (or not sent
	// once the run stopped): neither reported nor written, so that --resume measures it.
	serverArms  map[string]bool
	notMeasured bool
	// refusedArms are the arms whose request a server refused while it answered others: their
	// errors are in the case, said once per kind of refusal, not problems of the inputs.
	refusedArms map[string]bool
	// thumbs are the digests of the thumbnails its worker made.
	thumbs map[string]bool
}

// inFlight is an engine that keeps several requests in flight (the http engine).
type inFlight interface{ Concurrency() int }

type caseJob struct {
	index int
	req   corpora.Request
	// done holds the case read back from cases.jsonl when resuming; the request is skipped.
	done *results.Case
	// order is the request's position in the inputs before sharding (results.Case.Order).
	order int
}

// execute reads the inputs and replays every case with cfg.Workers workers. Cases are
// appended to CasesOut in input order as they complete: the loader (loadJobs) hands the
// requests to the worker pool (startWorkers), whose cases the ordered writer (writeInOrder)
// takes.
func (r *runner) execute(ctx context.Context) (*LoadResult, error) {
	r.sizes = newInputSizes(r.cfg.Paths)
	r.scanBytes = map[string]int64{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := r.workerCount()
	jobs := make(chan caseJob, workers)
	done := make(chan indexedCase, workers)
	pool := r.startWorkers(ctx, workers, jobs, done)
	written := make(chan error, 1)
	go func() { written <- r.writeInOrder(done) }()
	load, loadErr := r.loadJobs(ctx, jobs)
	r.sizes.reading("")
	close(jobs)
	pool.Wait()
	close(done)
	if writeErr := <-written; loadErr == nil {
		loadErr = writeErr
	}
	return load, loadErr
}

// workerCount is how many cases are replayed at once: cfg.Workers, or more for an engine that
// keeps more requests in flight, since a case sends its arms one after the other (-j cases
// under way would cap the requests in flight at -j, below the engine's --concurrency).
func (r *runner) workerCount() int {
	workers := r.cfg.Workers
	if c, ok := r.meter.engine.(inFlight); ok {
		workers = max(workers, c.Concurrency())
	}
	return workers
}

// startWorkers starts the worker pool: workers goroutines that replay the jobs (or pass on a
// resumed job's case) and send each case to done, until jobs is closed. A case cut short by
// cancellation is not a result: --resume replays it.
func (r *runner) startWorkers(ctx context.Context, workers int, jobs <-chan caseJob, done chan<- indexedCase) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.done != nil {
					done <- indexedCase{index: j.index, c: *j.done, resumed: true}
					continue
				}
				ic := r.replayCase(ctx, j)
				if ctx.Err() != nil {
					continue
				}
				ic.c.Order = j.order
				done <- ic
			}
		}()
	}
	return &wg
}

// writeInOrder takes the cases from done as the workers finish them and, in input order,
// admits their thumbnails, appends them to r.cases, reports progress and writes the newly
// measured ones to CasesOut, until done is closed. It returns the first write (or sync) error;
// after one, it goes on taking cases but writes no more.
func (r *runner) writeInOrder(done <-chan indexedCase) (writeErr error) {
	cfg := r.cfg
	out := &caseWriter{w: cfg.CasesOut}
	defer func() {
		if err := out.sync(); writeErr == nil {
			writeErr = err
		}
	}()
	pending := map[int]indexedCase{}
	next := 0
	for ic := range done {
		pending[ic.index] = ic
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			r.thumbs.admit(&c.c, c.thumbs)
			r.cases = append(r.cases, c)
			if cfg.Progress != nil {
				cfg.Progress(Progress{Done: next, TotalBytes: r.sizes.total, ReadBytes: r.sizes.read.Load()})
			}
			if cfg.CasesOut != nil && writeErr == nil && !c.resumed && !c.cancelled && !c.notMeasured {
				writeErr = out.write(c.c)
			}
		}
	}
	return writeErr
}

// loadJobs reads the inputs and sends a job to jobs for each request the run replays (the last
// of each conversation with --turns last, those of the shard), in input order; a request
// cases.jsonl holds (--resume) carries its case. It stops when ctx is cancelled.
func (r *runner) loadJobs(ctx context.Context, jobs chan<- caseJob) (*LoadResult, error) {
	cfg := r.cfg
	n, order := 0, 0
	return LoadCounting(ctx, cfg.Paths, cfg.Stdin, cfg.Format, cfg.Notes, runCounting{off: cfg.Offline, chars: cfg.largeRunChars}, func(c *corpora.Conversation) error {
		r.sizes.reading(c.Source.File)
		reqs := c.Requests()
		if cfg.Turns == "last" && len(reqs) > 0 {
			reqs = reqs[len(reqs)-1:]
		}
		for _, req := range reqs {
			id := req.ID()
			order++
			if !cfg.Shard.Includes(id) {
				continue
			}
			job := caseJob{index: n, req: req, order: order - 1}
			if prev, ok := cfg.Previous[id]; ok {
				prev.Order = order - 1
				job.done = &prev
			}
			select {
			case jobs <- job:
				n++
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
}

// caseWriter appends cases to CasesOut as JSON lines. A file is synced at most once every
// caseSyncEvery and once at the end: a line is in the kernel's cache once written, so a killed
// run loses none; a crash of the machine loses at most the last interval's cases, which
// --resume measures again.
type caseWriter struct {
	w        io.Writer
	lastSync time.Time
	unsynced bool
}

// caseSyncEvery is the most time a written case waits for its file to be synced.
const caseSyncEvery = time.Second

// write appends v as one JSON line, syncing the file when the last sync is caseSyncEvery old.
func (cw *caseWriter) write(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if _, err := cw.w.Write(buf.Bytes()); err != nil {
		return err
	}
	cw.unsynced = true
	if time.Since(cw.lastSync) < caseSyncEvery {
		return nil
	}
	return cw.sync()
}

// sync syncs a file written since the last sync.
func (cw *caseWriter) sync() error {
	f, ok := cw.w.(*os.File)
	if !ok || !cw.unsynced {
		return nil
	}
	cw.unsynced, cw.lastSync = false, time.Now()
	return f.Sync()
}

// replayCase runs one request through every arm and measures it.
func (r *runner) replayCase(ctx context.Context, j caseJob) indexedCase {
	req := j.req
	conv := req.Conversation
	c := results.Case{ID: req.ID(), File: conv.Source.File, Format: string(conv.Format), Conversation: conv.ID,
		Request: req.Index, Messages: len(req.Messages), Model: r.meter.caseModel(conv.Model)}
	if conv.Expect != nil {
		c.Question, c.Expected = conv.Expect.Question, conv.Expect.Answer
	}
	c.Recorded = recordedUsage(req)
	ic := indexedCase{index: j.index, thumbs: map[string]bool{}}
	if r.meter.live.stopped() {
		r.meter.live.caseNotMeasured()
		ic.notMeasured = true
		return ic
	}
	for _, arm := range r.cfg.Arms {
		res, err := r.applier.Apply(ctx, arm, req)
		if err != nil {
			c.AddError(arm.Name, err.Error())
			continue
		}
		nameTools(res)
		r.thumbs.take(res.Pictures, ic.thumbs)
		ac, err := r.meter.measure(ctx, arm, res, conv.Tools, c.Model)
		if engine.IsServerFault(err) && ctx.Err() == nil {
			// the server failed, not the case: --resume measures the case again
			r.meter.live.serverFailed(err)
			c.AddError(arm.Name, err.Error())
			ic.serverArms = setAdd(ic.serverArms, arm.Name)
			if r.meter.live.stopped() {
				break
			}
			continue
		}
		if err != nil {
			c.AddError(arm.Name, err.Error())
			if refused := (*engine.RequestRefusedError)(nil); errors.As(err, &refused) {
				ic.refusedArms = setAdd(ic.refusedArms, arm.Name)
			}
			continue
		}
		if ac.Mismatch != nil {
			r.meter.sayMismatch(c.ID, ac)
		}
		c.Arms = append(c.Arms, ac)
		t := results.CaseTiming{Case: c.ID, Arm: arm.Name}
		var bytes int64
		for _, s := range res.Scans {
			t.ScanNanos = append(t.ScanNanos, s.Nanos)
			bytes += int64(s.Bytes)
		}
		ic.timing = append(ic.timing, t)
		r.mu.Lock()
		r.scanBytes[arm.Name] += bytes
		r.mu.Unlock()
		if r.cfg.Dump != "" {
			if err := dumpArm(r.cfg.Dump, c.ID, r.meter.engine, res, conv.Tools, arm); err != nil {
				c.AddError(arm.Name, fmt.Sprintf("dump: %v", err))
			}
		}
	}
	if ic.serverArms != nil {
		r.meter.live.caseNotMeasured()
		ic.notMeasured = len(c.Arms) == 0
	}
	r.meter.diverge(&c, r.cfg.Arms)
	if err := r.meter.score(&c, conv.Expect); err != nil {
		c.AddError("", err.Error())
	}
	// A case cut short by Ctrl-C is reported but not written to cases.jsonl, so that
	// --resume runs it again.
	ic.cancelled = ctx.Err() != nil
	ic.c = c
	return ic
}

// dumpArm writes the request the arm hands the model (with the declared tools), as the body
// the engine sends (engine.DumpBody), and the record of its pictures.
func dumpArm(dir, caseID string, eng engine.Engine, res *replay.Result, tools []corpora.ToolDef, arm replay.Arm) error {
	base := filepath.Join(dir, fsutil.SafeName(caseID)+"."+fsutil.SafeName(res.Arm))
	body, err := engine.DumpBody(eng, armRequest(arm, res, tools))
	if err != nil {
		return err // the case's error names the arm
	}
	if err := fsutil.WriteAtomic(base+".request.json", func(w io.Writer) error { _, err := w.Write(body); return err }); err != nil {
		return err
	}
	return fsutil.WriteAtomic(base+".pictures.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		pics := res.Pictures
		if pics == nil {
			pics = []replay.PictureRecord{}
		}
		return enc.Encode(struct {
			Arm      string                 `json:"arm"`
			Gate     *replay.GateDecision   `json:"gate,omitempty"`
			Pictures []replay.PictureRecord `json:"pictures"`
		}{res.Arm, res.Gate, pics})
	})
}

// caseProblems are the problems a measured case reports: the located diagnostic of every
// picture an arm did not attach because it failed the picture check (docs/pipeline.md §4.6; the
// case is measured all the same), and every error an arm met, except those of the arms a server
// failed (serverArms: the run's error says them) or refused while answering others (refusedArms:
// said once per kind).
func caseProblems(c results.Case, serverArms, refusedArms map[string]bool) []*corpora.ReadError {
	var out []*corpora.ReadError
	for _, ac := range c.Arms {
		for _, p := range ac.Pictures {
			if d, ok := replay.PictureDiagnostic(ac.Arm, p.PictureRecord); ok {
				out = append(out, &corpora.ReadError{Loc: d.Loc, Err: fmt.Errorf("case %s: %s", c.ID, d.Message)})
			}
		}
	}
	for _, e := range c.Errors {
		if e.Arm != "" && (serverArms[e.Arm] || refusedArms[e.Arm]) {
			continue
		}
		msg := e.Message
		if e.Arm != "" {
			msg = "arm " + e.Arm + ": " + msg
		}
		out = append(out, &corpora.ReadError{Loc: corpora.Location{File: c.File}, Err: fmt.Errorf("case %s: %s", c.ID, msg)})
	}
	return out
}

// report assembles the report of the run.
func (r *runner) report(load *LoadResult, wall time.Duration) *results.Report {
	cfg := r.cfg
	rep := &results.Report{Schema: results.Schema}
	rep.Config = results.RunConfig{ToolVersion: cfg.ToolVersion, Tokenizer: r.meter.tokenizerName, Template: r.meter.templateName,
		TemplateDate: cfg.TemplateDate,
		Vision:       r.meter.visionName, Context: r.meter.context, Turns: cfg.Turns, MCPDelivery: cfg.MCPDelivery,
		Arms: replay.ArmRecords(cfg.Arms), Flags: cfg.Flags, Shard: cfg.Shard.String(), Engine: r.meter.engine.Name(),
		Answer: r.meter.answer, Server: r.meter.server, Warnings: r.meter.live.report()}
	describeEngine(&rep.Config, r.meter.engine)
	if _, ok := r.meter.engine.(engine.EndpointLister); ok {
		rep.Config.Tolerance = r.meter.tolerance
	}
	for _, in := range load.Inputs {
		rep.Config.Inputs = append(rep.Config.Inputs, load.Digest(in))
	}
	var names []string
	for _, a := range cfg.Arms {
		names = append(names, a.Name)
	}
	var timings []results.CaseTiming
	for _, ic := range r.cases {
		if ic.notMeasured {
			continue
		}
		rep.Cases = append(rep.Cases, ic.c)
		timings = append(timings, ic.timing...)
		load.Problems = append(load.Problems, caseProblems(ic.c, ic.serverArms, ic.refusedArms)...)
	}
	rep.Summary = results.Summarize(rep.Cases, names)
	rep.Config.VisionModels = r.meter.visionModels(rep.Cases)
	r.thumbs.report(rep)
	for _, p := range load.Problems {
		rep.Problems = append(rep.Problems, ProblemOf(p))
	}
	rep.Timings = results.Timings{Scan: results.SummarizeScans(timings, r.scanBytes, names), Cases: timings,
		WallNanos: int64(wall)}
	for _, in := range rep.Config.Inputs {
		rep.Timings.InputBytes += in.Bytes
	}
	return rep
}

// describeEngine records in the run's configuration what the engine says of itself: its model,
// protocol and servers (the flags record, like the config block, shows endpoints with user info
// redacted).
func describeEngine(c *results.RunConfig, e engine.Engine) {
	if m, ok := e.(engine.ModelNamer); ok {
		c.Model = m.Model()
	}
	if p, ok := e.(engine.ProtocolNamer); ok {
		c.API = p.API()
	}
	if l, ok := e.(engine.EndpointLister); ok {
		c.Endpoints = l.Endpoints()
		if _, ok := c.Flags["endpoint"]; ok {
			c.Flags["endpoint"] = "[" + strings.Join(c.Endpoints, ",") + "]"
		}
	}
}

// ProblemOf is a located read problem as a report lists it, its message without credentials.
func ProblemOf(e *corpora.ReadError) results.Problem {
	return results.Problem{Where: e.Loc.String(), Message: corpora.RedactText(e.Err.Error())}
}

// setAdd adds name to the set m, made when nil.
func setAdd(m map[string]bool, name string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[name] = true
	return m
}
