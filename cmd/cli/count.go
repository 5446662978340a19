package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// CountOptions are the flags and streams of `count`.
type CountOptions struct {
	IO   *IOStreams
	Path string
	CounterFlags
	InputFormat string
	Arms        []string
	Config      string
	Turns       string
	MCPDelivery string
	// Text counts the input as plain text even when it is a recording.
	Text   bool
	Format string
}

func newCountCmd(io *IOStreams) *cobra.Command {
	opts := &CountOptions{IO: io}
	c := &cobra.Command{
		Use:     "count [flags] FILE|-",
		Example: examples("strata-eval count corpora/samples/openai-chat-chatbox-screenshot.json", "strata-eval count --arm before,after --format json corpora/samples/openai-chat-tiny-png.json", "strata-eval count --text examples/arms.yaml"),
		Short:   "Count the tokens of a text, or the prompt of a recorded request",
		Long: helpWithExit(`Counts what a model server would count, without building a corpus. FILE (or - for stdin) is
either a recording replay reads (a request log, a Chatbox backup, an MCP transcript; --input-format
names its format when it cannot be told) or plain text.

For a recording, each request (the last of every conversation, or every one with --turns all)
is counted as replay counts it in each arm of --arm (default before: the request as recorded,
with no lift; --arm before,after for both): text tokens through the chat template, image rows
of every picture the model sees, prompt tokens and whether they fit --ctx. The figures are those
replay reports for the same arm.

For plain text (or with --text), the tokens of the text itself, and of the text sent as one user
message through the chat template.

`+formatSection(countFormats()), ExitInputs),
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			return runCount(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	addCounterFlags(f, &opts.CounterFlags, "context size in tokens (default: the model GGUF's, else 262144)")
	f.StringVar(&opts.InputFormat, "input-format", "auto", "input format (auto or one of: "+formatNames()+")")
	f.StringSliceVar(&opts.Arms, "arm", []string{"before"}, "the arms a request is counted in (before, after, agent, recorded, or those of --config; comma-separated or repeated)")
	f.StringVar(&opts.Config, "config", "", "YAML file defining more arms")
	f.StringVar(&opts.Turns, "turns", "last", "which requests of a conversation: last or all")
	f.StringVar(&opts.MCPDelivery, "mcp-delivery", replay.MCPAuto, "how MCP results reach the server: structured, stringified or auto")
	f.BoolVar(&opts.Text, "text", false, "count the input as plain text, even when it is a recording")
	addFormatFlag(f, &opts.Format, countFormats(), "output")
	return c
}

// countRow is one counted request.
type countRow struct {
	Case         string `json:"case"`
	Arm          string `json:"arm"`
	Messages     int    `json:"messages"`
	TextTokens   int    `json:"text_tokens"`
	ImageRows    int    `json:"image_rows"`
	Pictures     int    `json:"pictures_seen"`
	PromptTokens int    `json:"prompt_tokens"`
	Context      int    `json:"context"`
	Fits         bool   `json:"fits"`
	// Recorded is the usage the provider reported for the request, where the recording holds it.
	Recorded *results.RecordedUsage `json:"recorded_usage,omitempty"`
}

// textCount is the count of a plain text.
type textCount struct {
	Tokenizer string `json:"tokenizer"`
	Template  string `json:"template"`
	Chars     int    `json:"characters"`
	Tokens    int    `json:"tokens"`
	// AsUserMessage is the prompt of the text sent as one user message through the template.
	AsUserMessage int `json:"as_user_message"`
}

func runCount(ctx context.Context, opts *CountOptions) error {
	if err := checkFormat(countFormats(), opts.Format); err != nil {
		return err
	}
	format, err := corpora.ParseFormat(opts.InputFormat)
	if err != nil {
		return usageErrorf("--input-format: %v", err)
	}
	in, closeIn, err := openCountInput(opts)
	if err != nil {
		return err
	}
	defer closeIn()
	if !opts.Text && format == "" {
		head, perr := in.Peek(countSniffSize)
		if perr != nil && perr != io.EOF && !errors.Is(perr, bufio.ErrBufferFull) {
			return withExitCode(ExitInputs, fmt.Errorf("read %s: %w", opts.Path, perr))
		}
		if _, derr := corpora.Detect(opts.Path, head); errors.Is(derr, corpora.ErrUnknownFormat) {
			opts.Text = true
		}
	}
	if opts.Text {
		data, err := io.ReadAll(in)
		if err != nil {
			return withExitCode(ExitInputs, fmt.Errorf("read %s: %w", opts.Path, err))
		}
		return countText(ctx, opts, string(data))
	}
	return countRequests(ctx, opts, in)
}

// countSniffSize is how much of the input tells a recording from plain text (what the readers'
// detection looks at).
const countSniffSize = 64 << 10

// openCountInput opens FILE or stdin behind a reader that can look at its first bytes; a
// recording is then streamed, never read whole.
func openCountInput(opts *CountOptions) (*bufio.Reader, func(), error) {
	if opts.Path == run.StdinPath {
		return bufio.NewReaderSize(opts.IO.In, countSniffSize), func() {}, nil
	}
	f, err := os.Open(opts.Path)
	if err != nil {
		return nil, nil, withExitCode(ExitInputs, fmt.Errorf("read %s: %w", opts.Path, err))
	}
	return bufio.NewReaderSize(f, countSniffSize), func() { f.Close() }, nil
}

// replayOptions are the replay flags count shares.
func (o *CountOptions) replayOptions() *ReplayOptions {
	return &ReplayOptions{IO: o.IO, Paths: []string{o.Path}, InputFormat: o.InputFormat, CounterFlags: o.CounterFlags,
		Config: o.Config, Turns: o.Turns, MCPDelivery: o.MCPDelivery, Workers: 1, Arms: o.Arms}
}

// countRequests replays the recording through the arms of --arm and prints each request's
// counts; a file is read again by path (so that case ids name it as replay does), stdin from in.
func countRequests(ctx context.Context, opts *CountOptions, in io.Reader) error {
	ro := opts.replayOptions()
	cfg, err := ro.runConfig()
	if err != nil {
		return err
	}
	defer closeEngine(cfg.Engine)
	cfg.Stdin = in
	report, runErr := run.Run(ctx, cfg)
	if report == nil {
		return runErr
	}
	if err := nothingReplayed(report, "", runErr); err != nil {
		writeProblems(opts.IO.ErrOut, report.Problems)
		return err
	}
	var rows []countRow
	for _, c := range report.Cases {
		for _, a := range c.Arms {
			seen := 0
			for _, p := range a.Pictures {
				if p.SeenByModel {
					seen++
				}
			}
			rows = append(rows, countRow{Case: c.ID, Arm: a.Arm, Messages: c.Messages, TextTokens: a.TextTokens,
				ImageRows: a.ImageRows, Pictures: seen, PromptTokens: a.PromptTokens, Context: a.Context, Fits: a.Fits, Recorded: c.Recorded})
		}
	}
	doc := countDoc{report: report, rows: rows}
	if err := countFormats().Write(opts.IO.Out, opts.Format, doc, results.WriteOptions{Width: opts.IO.TableWidth()}); err != nil {
		return err
	}
	return runErr
}

// countDoc is what count prints: the requests of a recording counted in each arm (report and
// rows), or a plain text counted (text).
type countDoc struct {
	report *results.Report
	rows   []countRow
	text   *textCount
}

// countFormats are the output formats of count.
func countFormats() results.Outputs[countDoc] {
	return results.Outputs[countDoc]{
		{Name: results.FormatTable, Help: "a row per request and arm, fitted to the terminal (a text: one line)", Write: writeCountTable},
		{Name: results.FormatJSON, Help: "the same figures, a list of requests (a text: one object)", Write: func(w io.Writer, doc countDoc, _ results.WriteOptions) error {
			if doc.text != nil {
				return results.WriteIndentedJSON(w, doc.text)
			}
			if doc.rows == nil {
				doc.rows = []countRow{}
			}
			return results.WriteIndentedJSON(w, doc.rows)
		}},
	}
}

// writeCountTable prints the counted requests as a table fitted to o.Width, then the problems,
// or the counts of a text as one line.
func writeCountTable(w io.Writer, doc countDoc, o results.WriteOptions) error {
	if tc := doc.text; tc != nil {
		_, err := fmt.Fprintf(w, "%s tokens (%s characters, tokenizer %s); as one user message with the %s template: %s tokens\n",
			results.Thousands(int64(tc.Tokens)), results.Thousands(int64(tc.Chars)), tc.Tokenizer, tc.Template, results.Thousands(int64(tc.AsUserMessage)))
		return err
	}
	t := results.Table{Title: strings.Join(results.HeaderLines(doc.report), "\n"),
		Header: []string{"request", "arm", "messages", "text tokens", "image rows", "pictures seen", "prompt tokens", "fits"},
		Right:  []bool{false, false, true, true, true, true, true, false}}
	recorded := false
	for _, r := range doc.rows {
		recorded = recorded || r.Recorded != nil
	}
	if recorded { // the provider's own count beside the computed one
		t.Header = append(t.Header, "provider's prompt tokens")
		t.Right = append(t.Right, true)
	}
	for _, r := range doc.rows {
		fits := "yes"
		if !r.Fits {
			fits = "no: refused"
		}
		row := []string{results.ShortID(r.Case), r.Arm, strconv.Itoa(r.Messages), results.Thousands(int64(r.TextTokens)),
			results.Thousands(int64(r.ImageRows)), strconv.Itoa(r.Pictures), results.Thousands(int64(r.PromptTokens)), fits}
		if recorded {
			row = append(row, recordedCell(r.Recorded))
		}
		t.Rows = append(t.Rows, row)
	}
	err := results.WriteTables(w, []results.Table{results.FitTable(t, o.Width, results.TextColumns(t))}, false)
	if len(doc.report.Problems) > 0 {
		results.WriteTables(w, []results.Table{results.ProblemTable(doc.report)}, false)
	}
	return err
}

// recordedCell renders the provider's recorded usage of a request: its prompt tokens, with the
// cache reads among them ("" when not recorded).
func recordedCell(u *results.RecordedUsage) string {
	switch {
	case u == nil:
		return ""
	case u.CachedTokens > 0:
		return results.Thousands(int64(u.PromptTokens)) + " (" + results.Thousands(int64(u.CachedTokens)) + " cached)"
	}
	return results.Thousands(int64(u.PromptTokens))
}

// countText counts a plain text with the tokenizer, and as one user message through the template.
func countText(ctx context.Context, opts *CountOptions, text string) error {
	offCfg, err := opts.offlineConfig()
	if err != nil {
		return err
	}
	off, err := engine.NewOffline(offCfg)
	if err != nil {
		return usageError(err)
	}
	msg := corpora.Message{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: text}}}
	asMessage, err := off.Count(ctx, []corpora.Message{msg}, nil)
	if err != nil {
		return err
	}
	tc := textCount{Tokenizer: opts.Tokenizer, Template: off.TemplateName(), Chars: utf8.RuneCountInString(text),
		Tokens: off.CountText(text), AsUserMessage: asMessage.PromptTokens}
	return countFormats().Write(opts.IO.Out, opts.Format, countDoc{text: &tc}, results.WriteOptions{})
}
