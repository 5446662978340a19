package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// replayRun is one execution of `replay`: the arms, the meter and the cases as they finish.
type replayRun struct {
	opts     *ReplayOptions
	arms     []replay.Arm
	meter    *meter
	applier  replay.Applier
	casesOut io.Writer

	shard    shard
	previous map[string]results.Case // cases of an earlier run, by id (--resume)

	mu        sync.Mutex
	cases     []indexedCase
	scanBytes map[string]int64
	// digests are the inputs' sizes and sha256, computed while the cases replay.
	digests *inputDigests
}

// inputDigests hashes the input files in the background while they are replayed, so that the
// report does not read and hash every input once more after the last case (a serial tail of
// about half a second per gigabyte).
type inputDigests struct {
	done   chan struct{}
	byPath map[string]results.Input
}

// startInputDigests starts hashing the files under paths (none for the embedded corpus); it
// stops early when ctx is cancelled.
func startInputDigests(ctx context.Context, paths []string) *inputDigests {
	d := &inputDigests{done: make(chan struct{}), byPath: map[string]results.Input{}}
	files, err := expandPaths(paths)
	if len(paths) == 0 || err != nil {
		close(d.done)
		return d
	}
	go func() {
		defer close(d.done)
		for _, f := range files {
			if ctx.Err() != nil {
				return
			}
			d.byPath[f.Path] = describeInput(f.Path)
		}
	}()
	return d
}

// describe returns the digest of an input read by the run: the one computed in the background,
// or (nil d, an input not hashed, the run cancelled) one computed now.
func (d *inputDigests) describe(path string) results.Input {
	if d != nil {
		<-d.done
		if in, ok := d.byPath[path]; ok {
			return in
		}
	}
	return describeInput(path)
}

type indexedCase struct {
	index  int
	c      results.Case
	timing []results.CaseTiming
	// resumed marks a case read back from cases.jsonl (not written again).
	resumed bool
	// cancelled marks a case interrupted by cancellation (not written to cases.jsonl).
	cancelled bool
}

type caseJob struct {
	index int
	req   corpora.Request
	// done holds the case read back from cases.jsonl when resuming; the request is skipped.
	done *results.Case
	// order is the request's position in the inputs before sharding (results.Case.Order).
	order int
}

// execute reads the inputs and replays every case with opts.Workers workers. Cases are
// appended to cases.jsonl in input order as they complete.
func (r *replayRun) execute(ctx context.Context, format corpora.Format) (*loadResult, error) {
	r.digests = startInputDigests(ctx, r.opts.Paths)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan caseJob, r.opts.Workers)
	done := make(chan indexedCase, r.opts.Workers)
	r.scanBytes = map[string]int64{}
	var wg sync.WaitGroup
	for w := 0; w < r.opts.Workers; w++ {
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
					continue // cut short by cancellation: not a result; --resume replays it
				}
				ic.c.Order = j.order
				done <- ic
			}
		}()
	}
	var writeErr error
	progress := newCaseProgress(r.opts.IO.ErrOut, r.opts.IO.ErrIsTerminal)
	defer progress.finish()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
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
				r.cases = append(r.cases, c)
				progress.done()
				if r.casesOut != nil && writeErr == nil && !c.resumed && !c.cancelled {
					writeErr = writeJSONLine(r.casesOut, c.c)
				}
			}
		}
	}()
	n, order := 0, 0
	load, loadErr := loadCorpus(ctx, r.opts.Paths, format, r.opts.IO.ErrOut, func(c *corpora.Conversation) error {
		reqs := c.Requests()
		if r.opts.Turns == "last" && len(reqs) > 0 {
			reqs = reqs[len(reqs)-1:]
		}
		for _, req := range reqs {
			id := req.ID()
			order++
			if !r.shard.includes(id) {
				continue
			}
			job := caseJob{index: n, req: req, order: order - 1}
			if prev, ok := r.previous[id]; ok {
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
	close(jobs)
	wg.Wait()
	close(done)
	<-writerDone
	if loadErr == nil {
		loadErr = writeErr
	}
	return load, loadErr
}

func writeJSONLine(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	if f, ok := w.(*os.File); ok && err == nil {
		err = f.Sync()
	}
	return err
}

// replayCase runs one request through every arm and measures it.
func (r *replayRun) replayCase(ctx context.Context, j caseJob) indexedCase {
	req := j.req
	conv := req.Conversation
	c := results.Case{ID: req.ID(), File: conv.Source.File, Format: string(conv.Format), Conversation: conv.ID,
		Request: req.Index, Messages: len(req.Messages)}
	if conv.Expect != nil {
		c.Question, c.Expected = conv.Expect.Question, conv.Expect.Answer
	}
	ic := indexedCase{index: j.index}
	for _, arm := range r.arms {
		res, err := r.applier.Apply(ctx, arm, req)
		if err != nil {
			c.Error = fmt.Sprintf("arm %s: %v", arm.Name, err)
			continue
		}
		ac, err := r.meter.measure(ctx, arm, res, conv.Tools)
		if err != nil {
			c.Error = fmt.Sprintf("arm %s: %v", arm.Name, err)
			continue
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
		if r.opts.Dump != "" {
			if err := dumpArm(r.opts.Dump, c.ID, res); err != nil {
				c.Error = fmt.Sprintf("dump %s: %v", arm.Name, err)
			}
		}
	}
	r.meter.diverge(&c, r.arms)
	if err := r.meter.score(&c, conv.Expect); err != nil && c.Error == "" {
		c.Error = err.Error()
	}
	// A case cut short by Ctrl-C is reported but not written to cases.jsonl, so that
	// --resume runs it again.
	ic.cancelled = ctx.Err() != nil
	ic.c = c
	return ic
}

// dumpArm writes the request the arm hands the model and the record of its pictures.
func dumpArm(dir, caseID string, res *replay.Result) error {
	base := filepath.Join(dir, sanitizeFileName(caseID)+"."+sanitizeFileName(res.Arm))
	if err := writeFileAtomic(base+".request.json", func(w io.Writer) error { return replay.WriteOpenAIChat(w, res) }); err != nil {
		return err
	}
	return writeFileAtomic(base+".pictures.json", func(w io.Writer) error {
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

// report assembles the report of the run.
func (r *replayRun) report(load *loadResult, wall time.Duration) *results.Report {
	rep := &results.Report{Schema: results.Schema}
	rep.Config = results.RunConfig{ToolVersion: Version, Tokenizer: r.meter.tokenizerName, Template: r.meter.templateName,
		Vision: r.meter.visionName, Context: r.meter.context, Turns: r.opts.Turns, MCPDelivery: r.opts.MCPDelivery,
		Arms: r.arms, Flags: r.opts.flags, Shard: r.shard.String(), Engine: r.meter.engine.Name(),
		Answer: r.meter.answer, Server: r.meter.server}
	if h, ok := r.meter.engine.(*engine.HTTP); ok {
		rep.Config.Model, rep.Config.API, rep.Config.Endpoints = h.Model(), h.API(), h.Endpoints()
		rep.Config.Tolerance = r.meter.tolerance
		// the flags record, like the config block, shows endpoints with user info redacted
		if _, ok := rep.Config.Flags["endpoint"]; ok {
			rep.Config.Flags["endpoint"] = "[" + strings.Join(h.Endpoints(), ",") + "]"
		}
	}
	for _, in := range load.Inputs {
		rep.Config.Inputs = append(rep.Config.Inputs, r.digests.describe(in))
	}
	var names []string
	for _, a := range r.arms {
		names = append(names, a.Name)
	}
	var timings []results.CaseTiming
	for _, ic := range r.cases {
		rep.Cases = append(rep.Cases, ic.c)
		timings = append(timings, ic.timing...)
		if ic.c.Error != "" {
			load.Problems = append(load.Problems, &corpora.ReadError{Loc: corpora.Location{File: ic.c.File}, Err: fmt.Errorf("case %s: %s", ic.c.ID, ic.c.Error)})
		}
	}
	rep.Summary = results.Summarize(rep.Cases, names)
	for _, p := range load.Problems {
		rep.Problems = append(rep.Problems, results.Problem{Where: p.Loc.String(), Message: p.Err.Error()})
	}
	rep.Timings = results.Timings{Scan: results.SummarizeScans(timings, r.scanBytes, names), Cases: timings,
		WallNanos: int64(wall)}
	for _, in := range rep.Config.Inputs {
		rep.Timings.InputBytes += in.Bytes
	}
	return rep
}
