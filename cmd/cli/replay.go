package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/prompt"
	"github.com/strata-eval/strata-eval/measure/score"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// ReplayOptions are the flags and streams of `replay`.
type ReplayOptions struct {
	IO          *IOStreams
	Paths       []string
	InputFormat string
	// CounterFlags are the tokenizer, template, vision family and context (shared with count).
	CounterFlags
	// AgentFlags find a coding agent's sessions (--agent, --since, --project).
	AgentFlags
	// ForceContext keeps --ctx when a live server's context is smaller.
	ForceContext bool
	Config       string
	Turns        string
	Workers      int
	Out          string
	Format       string
	MCPDelivery  string
	Dump         string
	Arms         []string
	// Engine is offline (default), http or llama; Endpoints are the servers of the http engine.
	Engine    string
	Endpoints []string
	// Live holds the flags of the live engines (engines.go).
	Live liveOptions
	// Shard is "i/n": replay only the cases whose id hashes to shard i of n.
	Shard string
	// Resume skips cases already in --out's cases.jsonl.
	Resume bool
	// NoTimings leaves the scan-time table out of stdout (results.json keeps the timings).
	NoTimings bool
	// Summary prints only the summary tables (summary, scan time, problems) on stdout.
	Summary bool
	// CPUProfile is a file for a CPU profile of the run (hidden: for profiling, not for users).
	CPUProfile string
	// MemProfile is a file for a heap profile (allocations and what is live) written when the
	// run ends (hidden, as CPUProfile).
	MemProfile string
	// flags records every flag as given, for the results' config block.
	flags map[string]string
	// visionGiven says whether --vision was given (else --agent counts with the recorded models).
	visionGiven bool
	// now is the clock (tests inject a fixed one).
	now func() time.Time
}

func newReplayCmd(io *IOStreams) *cobra.Command {
	opts := &ReplayOptions{IO: io, now: time.Now}
	c := &cobra.Command{
		Use:     "replay [PATH|-...]",
		Example: examples("# the embedded sample corpus, summary tables only", "strata-eval replay --summary", "# one recording, with the results files and the requests each arm hands the model", "strata-eval replay --out out --dump dump corpora/samples/openai-chat-chatbox-screenshot.json", "# more arms from a file", "strata-eval replay --config examples/arms.yaml --arms before,after,after-text-only corpora/samples/mcp-stdio-2025-11-25.jsonl", "# the gate asks a model catalog whether the model sees pictures", "strata-eval replay --config examples/catalog-arms.yaml --arms agent-sees,agent-unlisted corpora/samples/mcp-stdio-2025-11-25.jsonl", "strata-eval replay --format csv --arms after corpora/samples/openai-chat-tiny-png.json"),
		Short:   "Replay recorded conversations through the before and after pipelines and measure them",
		Long: helpWithExit(`Reads recorded conversations (files or folders; with no PATH the embedded sample corpus),
turns each into the requests a server would receive (the last one, or every one with --turns all),
runs every request through each arm (before, after, agent, and those of --config; recorded,
what a coding agent really sent, when named) and measures
text tokens, image rows, prompt tokens, the context-window verdict, whether the model sees each
picture, and the time to scan each tool message. Tables go to stdout, after a header naming the
tokenizer, template, vision family, context and engine, fitted to the terminal's width (else
$COLUMNS, else 120); --summary prints the summary tables only. --out DIR also writes
results.json, results.md, results.csv, cases.jsonl (streamed case by case) and report.html (one
self-contained page: the summary, before/after charts per arm and per case, every picture).
PATH - reads a recording from stdin.

`+formatSection(results.ReportFormats()), ExitInputs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.flags = flagValues(cmd.Flags())
			opts.visionGiven = cmd.Flags().Changed("vision")
			return runReplay(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.InputFormat, "input-format", "auto", "input format (auto or one of: "+formatNames()+")")
	addCounterFlags(f, &opts.CounterFlags, "context size in tokens (default: the server's n_ctx, the model GGUF's, else 262144; a live server's smaller n_ctx wins)")
	f.BoolVar(&opts.ForceContext, "force-ctx", false, "keep --ctx even when the http engine's server reports a smaller n_ctx")
	f.StringVar(&opts.Config, "config", "", "YAML file defining more arms")
	f.StringVar(&opts.Agent, "agent", "", "replay a coding agent's sessions ("+agentNames()+"): those under PATH, else in the agent's own folder, and print a table per session and per tool")
	f.StringVar(&opts.Since, "since", "", "with --agent: only sessions written since a date (2006-01-02) or for a duration (36h, 7d)")
	f.StringVar(&opts.Project, "project", "", "with --agent: only sessions of projects whose folder contains this text")
	f.StringVar(&opts.Turns, "turns", "last", "which requests of a conversation: last or all")
	f.IntVarP(&opts.Workers, "jobs", "j", 2, "workers (the http engine runs at least --concurrency, so that -j does not cap the requests in flight)")
	f.StringVar(&opts.Out, "out", "", "folder for "+outFiles("cases.jsonl"))
	addFormatFlag(f, &opts.Format, results.ReportFormats(), "stdout format")
	f.StringVar(&opts.MCPDelivery, "mcp-delivery", replay.MCPAuto, "how MCP results reach the server: structured, stringified or auto")
	f.StringVar(&opts.Dump, "dump", "", "folder for the request each arm hands the model and its picture records")
	f.StringSliceVar(&opts.Arms, "arms", nil, "arms to run, in table order (default: before, after, agent, then the config's; recorded when named)")
	f.StringVar(&opts.Engine, "engine", engineKinds[0].name, "engine that counts (and answers): "+strings.Join(engineNames(), ", "))
	f.StringArrayVar(&opts.Endpoints, "endpoint", nil, "server URL of the http engine (repeatable: cases are spread over them)")
	f.StringVar(&opts.Shard, "shard", "", "replay only shard i of n (\"i/n\", 0-based), split by a stable hash of the case id")
	f.BoolVar(&opts.Resume, "resume", false, "skip cases already written to --out's cases.jsonl (failed ones are replayed)")
	addLiveFlags(f, &opts.Live)
	f.BoolVar(&opts.NoTimings, "no-timings", false, "leave the scan-time table out of stdout, so that it is the same on every run")
	f.BoolVar(&opts.Summary, "summary", false, "print only the summary tables: no table per case, no pictures table (--out writes everything)")
	f.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&opts.MemProfile, "memprofile", "", "write a heap profile of the run to this file when it ends")
	_ = f.MarkHidden("memprofile")
	return c
}

// CounterFlags say how the offline engine counts: tokenizer, chat template, vision family (or
// projector) with its token limits, and the context size.
type CounterFlags struct {
	Tokenizer string
	Template  string
	MMProj    string
	Vision    string
	MinTokens int
	MaxTokens int
	Context   int
	// TemplateDate is the date the template writes as today's (YYYY-MM-DD or today).
	TemplateDate string
}

// offlineConfig is the offline engine's configuration of the flags (a bad --template-date is
// a usage error).
func (c *CounterFlags) offlineConfig() (engine.OfflineConfig, error) {
	date, err := prompt.ParseTemplateDate(c.TemplateDate)
	if err != nil {
		return engine.OfflineConfig{}, usageErrorf("--template-date: %v", err)
	}
	return engine.OfflineConfig{Tokenizer: c.Tokenizer, Template: c.Template, MMProj: c.MMProj, Vision: c.Vision,
		Rows: imagerows.RowOptions{MinTokens: c.MinTokens, MaxTokens: c.MaxTokens}, TemplateDate: date}, nil
}

// addCounterFlags registers the flags of CounterFlags; ctxHelp says where the default context
// comes from for the command.
func addCounterFlags(f *pflag.FlagSet, c *CounterFlags, ctxHelp string) {
	f.StringVar(&c.Tokenizer, "tokenizer", "o200k_base", "tokenizer: o200k_base, cl100k_base, a .gguf model file or a tokenizer.json")
	f.StringVar(&c.Template, "template", "", "chat template: qwen, chatml, llama3, gemma, mistral, or a file holding a Jinja chat template (.gguf, tokenizer_config.json, .jinja); default: the --tokenizer file's own template, else qwen")
	f.StringVar(&c.MMProj, "mmproj", "", "projector GGUF (mmproj) that decides image rows")
	f.StringVar(&c.Vision, "vision", imagerows.DefaultFamily, "vision family that decides image rows when no --mmproj is given; "+imagerows.RecordedVision+": the hosted family each recording's model id implies (claude-…, gpt-…, o…, gemini-…), else "+imagerows.DefaultFamily)
	f.IntVar(&c.MinTokens, "image-min-tokens", 0, "llama-server --image-min-tokens (0: the projector's default)")
	f.IntVar(&c.MaxTokens, "image-max-tokens", 0, "llama-server --image-max-tokens (0: the projector's default)")
	f.IntVar(&c.Context, "ctx", 0, ctxHelp)
	f.StringVar(&c.TemplateDate, "template-date", prompt.DefaultTemplateDate, "the date the chat template writes as today's (llama3, mistral, a Jinja template's date_string): YYYY-MM-DD, or today as llama-server does")
}

func flagValues(fs *pflag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			m[f.Name] = f.Value.String()
		}
	})
	return m
}

// validate checks flag values that cobra cannot.
func (o *ReplayOptions) validate() error {
	if err := checkFormat(results.ReportFormats(), o.Format); err != nil {
		return err
	}
	if o.Context < 0 {
		return usageErrorf("--ctx must not be negative")
	}
	return nil
}

func runReplay(ctx context.Context, opts *ReplayOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	if opts.CPUProfile != "" {
		stop, err := startCPUProfile(opts.CPUProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if opts.MemProfile != "" {
		defer writeHeapProfile(opts.MemProfile, opts.IO.ErrOut)
	}
	if err := opts.selectAgentSessions(); err != nil {
		return err
	}
	cfg, err := opts.runConfig()
	if err != nil {
		return err
	}
	defer closeEngine(cfg.Engine)
	if opts.Resume && opts.Out == "" {
		return usageErrorf("--resume needs --out")
	}
	if opts.Out != "" {
		f, err := opts.openCasesOut(&cfg)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.CasesOut = f
	}
	progress := newCaseProgress(opts.IO.ErrOut, opts.IO.ErrIsTerminal)
	cfg.Progress = progress.update
	report, runErr := run.Run(ctx, cfg)
	progress.finish()
	if report == nil {
		return runErr
	}
	writeProblems(opts.IO.ErrOut, report.Problems)
	if err := nothingReplayed(report, opts.Shard, runErr); err != nil {
		if opts.Out != "" {
			// a job that publishes --out shows why nothing was replayed: the problems, an
			// empty summary
			if werr := fsutil.WriteAtomic(filepath.Join(opts.Out, "results.json"), func(w io.Writer) error {
				return results.WriteJSON(w, report)
			}); werr != nil {
				return werr
			}
		}
		return err
	}
	// a run stopped before it measured anything prints no empty tables; its error says why
	if err := writeReport(opts, report, runErr == nil || len(report.Cases) > 0); err != nil {
		return err
	}
	if opts.Agent != "" && opts.Format == results.FormatTable && len(report.Cases) > 0 {
		if err := writeAgentSummary(opts.IO.Out, report, opts.IO.TableWidth()); err != nil {
			return err
		}
	}
	return runErr
}

// nothingReplayed is the one-line error of a run that replayed no case, so that no table of
// zeros is ever printed: nil when a case was replayed, when the run was cancelled (its own
// error tells), or for a shard (a shard of a small corpus may hold no case, and its results
// are still merged).
func nothingReplayed(r *results.Report, shard string, runErr error) error {
	var server *run.ServerError
	if len(r.Cases) > 0 || shard != "" || errors.Is(runErr, context.Canceled) || errors.As(runErr, &server) {
		// a run the server stopped says so itself
		return nil
	}
	return nothingRead("replayed", len(r.Problems))
}

// nothingRead is the one-line error (exit 3) of a command that found nothing to work on in its
// inputs: "nothing was replayed: …", with the number of problems when there were some.
func nothingRead(what string, problems int) error {
	if problems > 0 {
		return withExitCode(ExitInputs, fmt.Errorf("nothing was %s: %d problem(s) reading the inputs, listed above", what, problems))
	}
	return withExitCode(ExitInputs, fmt.Errorf("nothing was %s: the inputs hold no recorded conversation (formats read: %s)", what, corpora.FormatList()))
}

// maxProblemLines is how many problems replay lists on stderr; the rest are counted (all of
// them are in the report).
const maxProblemLines = 20

// writeProblems lists the located problems of a run on w as `corpus inspect` does, the first
// maxProblemLines of them, so that a huge corpus does not flood the terminal.
func writeProblems(w io.Writer, problems []results.Problem) {
	for i, p := range problems {
		if i == maxProblemLines {
			fmt.Fprintf(w, "strata-eval: … and %d more problem(s), listed in the report\n", len(problems)-i)
			return
		}
		fmt.Fprintf(w, "strata-eval: %s: %s\n", p.Where, p.Message)
	}
}

// runConfig turns the flags into the configuration of a run: the arms, the offline counter
// and the engine.
func (o *ReplayOptions) runConfig() (run.Config, error) {
	format, err := corpora.ParseFormat(o.InputFormat)
	if err != nil {
		return run.Config{}, usageErrorf("--input-format: %v", err)
	}
	arms, err := run.SelectArms(o.Config, o.Arms)
	if err != nil {
		return run.Config{}, err
	}
	kind, err := engineKindOf(o.Engine)
	if err != nil {
		return run.Config{}, err
	}
	if kind.modelIsServed {
		run.ModelForCatalogs(arms, o.Live.Model)
	}
	offCfg, err := o.offlineConfig()
	if err != nil {
		return run.Config{}, err
	}
	off, err := engine.NewOffline(offCfg)
	if err != nil {
		return run.Config{}, usageError(err)
	}
	eng, err := kind.build(o, off)
	if err != nil {
		return run.Config{}, err
	}
	cfg := run.Config{Paths: o.Paths, Stdin: o.IO.In, Format: format, Turns: o.Turns, Workers: o.Workers, MCPDelivery: o.MCPDelivery,
		Dump: o.Dump, Thumbnails: o.Out != "", TemplateDate: offCfg.TemplateDate.Format(time.DateOnly), TemplateGiven: o.Template != "", Arms: arms, Offline: off, Engine: eng, Tokenizer: o.Tokenizer, Context: o.Context, ForceContext: o.ForceContext,
		Answer: o.Live.Answer, Tolerance: o.Live.Tolerance, Reference: o.Live.Reference,
		Notes: o.IO.ErrOut, ToolVersion: Version, Flags: o.flags, Now: o.now}
	if o.Live.Expect != "" {
		if cfg.Expect, err = score.LoadExpectations(o.Live.Expect); err != nil {
			return run.Config{}, usageError(err)
		}
	}
	if cfg.Shard, err = run.ParseShard(o.Shard); err != nil {
		return run.Config{}, err
	}
	return cfg, nil
}

// writeReport prints the report on stdout and, with --out, writes the results files.
func writeReport(opts *ReplayOptions, r *results.Report, stdout bool) error {
	shown := r
	if opts.NoTimings {
		untimed := *r
		untimed.Timings = results.Timings{}
		shown = &untimed
	}
	if stdout {
		if err := results.WriteWith(opts.IO.Out, shown, opts.Format, results.WriteOptions{Width: opts.IO.TableWidth(), Summary: opts.Summary}); err != nil {
			return err
		}
	}
	if opts.Out == "" {
		return nil
	}
	return results.ReportFormats().WriteFiles(opts.Out, r)
}

// writeHeapProfile writes the heap profile to path; a failure is said on stderr (the run's
// results are written already).
func writeHeapProfile(path string, stderr io.Writer) {
	f, err := fsutil.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "strata-eval: heap profile %s: %v\n", path, err)
	}
}

// startCPUProfile writes a CPU profile to path until the returned stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := fsutil.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// selectAgentSessions puts the sessions of --agent (its folder, or the paths given, selected
// by --since and --project) in the paths to read; without --vision or --mmproj, the session's
// model decides the family.
func (o *ReplayOptions) selectAgentSessions() error {
	if o.Agent == "" {
		if o.Since != "" || o.Project != "" {
			return usageErrorf("--since and --project select an agent's sessions: name it with --agent")
		}
		return nil
	}
	paths, format, err := o.agentSessions(o.Paths, o.now())
	if err != nil {
		return err
	}
	o.Paths, o.InputFormat = paths, string(format)
	if !o.visionGiven && o.MMProj == "" {
		o.Vision = imagerows.RecordedVision
	}
	return nil
}

// openCasesOut opens --out's cases.jsonl, streamed case by case: anew, or with --resume for
// appending after the cases it already holds (which cfg.Previous then skips).
func (o *ReplayOptions) openCasesOut(cfg *run.Config) (*os.File, error) {
	if err := fsutil.MkdirAll(o.Out); err != nil {
		return nil, err
	}
	casesPath := filepath.Join(o.Out, "cases.jsonl")
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if o.Resume {
		var failed int
		var err error
		if cfg.Previous, failed, err = run.ResumeCases(casesPath); err != nil {
			return nil, err
		}
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		fmt.Fprintf(o.IO.ErrOut, "strata-eval: resuming: %d case(s) already in %s", len(cfg.Previous), casesPath)
		if failed > 0 {
			fmt.Fprintf(o.IO.ErrOut, "; %d failed case(s) replayed again", failed)
		}
		fmt.Fprintln(o.IO.ErrOut)
	}
	return os.OpenFile(casesPath, flags, fsutil.FileMode)
}
