package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// InspectOptions are the flags and streams of `corpus inspect`.
type InspectOptions struct {
	IO     *IOStreams
	Paths  []string
	Format string
	JSON   bool
	MinRun int
}

func newCorpusCmd(io *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:     "corpus",
		Example: examples("strata-eval corpus inspect corpora/samples"),
		Short:   "Look at recorded conversations",
		Long:    helpWithExit(`Commands that read recorded conversations without replaying them.`, ExitInputs),
	}
	c.AddCommand(newInspectCmd(io))
	return c
}

func newInspectCmd(io *IOStreams) *cobra.Command {
	opts := &InspectOptions{IO: io}
	c := &cobra.Command{
		Use:     "inspect [PATH|-...]",
		Example: examples("strata-eval corpus inspect corpora/samples/mcp-stdio-2025-06-18.jsonl", "strata-eval corpus inspect --json corpora/samples/openai-chat-tiny-png.json"),
		Short:   "One row per conversation: format, messages, requests, tool results, pictures, references",
		Long: helpWithExit(`Reads recorded conversations and prints one row per conversation: format, messages,
requests, tool results, structured pictures (MCP image blocks and image resource blobs), base64
runs of --min-run or more characters in tool text, user attachments, unavailable references
(Chatbox storage keys, remote URLs: never fetched) and bytes, the table fitted to the terminal's
width (else $COLUMNS, else 120) with the counts that are not zero in one cell. With no PATH, the embedded sample
corpus; - reads a recording from stdin. --json prints the full normalised form with every picture's location and sha256.`, ExitInputs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return runInspect(cmd.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "input-format", "auto", "input format (auto or one of: "+formatNames()+")")
	// --format was the flag's first name; replay calls it --input-format, and so does the
	// unknown-format error of both commands.
	c.Flags().StringVar(&opts.Format, "format", "auto", "input format (the old name of --input-format)")
	_ = c.Flags().MarkDeprecated("format", "use --input-format")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the full normalised form as JSON")
	c.Flags().IntVar(&opts.MinRun, "min-run", replay.DefaultMinRun, "shortest base64 run counted")
	return c
}

func formatNames() string { return corpora.FormatList() }

// ConversationSummary is the inspect row of one conversation.
type ConversationSummary struct {
	ID       string `json:"id"`
	File     string `json:"file"`
	Format   string `json:"format"`
	Messages int    `json:"messages"`
	Requests int    `json:"requests"`
	replay.PictureCounts
	Bytes int64 `json:"bytes"`
}

// PictureLocation is one picture found in a conversation with its digest.
type PictureLocation = replay.PictureSite

// inspected is the --json form of one conversation.
type inspected struct {
	Summary      ConversationSummary   `json:"summary"`
	Pictures     []PictureLocation     `json:"pictures"`
	Conversation *corpora.Conversation `json:"conversation"`
}

func runInspect(ctx context.Context, opts *InspectOptions) error {
	format, err := corpora.ParseFormat(opts.Format)
	if err != nil {
		return usageErrorf("--format: %v", err)
	}
	var all []inspected
	load, err := run.LoadFrom(ctx, opts.Paths, opts.IO.In, format, opts.IO.ErrOut, func(c *corpora.Conversation) error {
		s, pics := inspectConversation(c, opts.MinRun)
		all = append(all, inspected{Summary: s, Pictures: pics, Conversation: c})
		return nil
	})
	if err != nil {
		return err
	}
	var problems []results.Problem
	for _, p := range load.Problems {
		problems = append(problems, run.ProblemOf(p))
	}
	for _, in := range all {
		for _, p := range in.Pictures {
			if p.Problem != "" {
				what := p.Kind
				if p.Kind == "base64-run" {
					what = fmt.Sprintf("base64 run at byte %d of the tool text", p.TextOffset)
				}
				problems = append(problems, results.Problem{Where: p.Where.String(),
					Message: corpora.RedactText(fmt.Sprintf("%s picture (%s): %s", p.Type, what, p.Problem))})
			}
		}
	}
	writeProblems(opts.IO.ErrOut, problems) // as replay lists them
	// no empty table: one line, as replay says it
	if len(all) == 0 && len(opts.Paths) > 0 {
		return nothingRead("inspected", len(problems))
	}
	if opts.JSON {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if all == nil {
			all = []inspected{}
		}
		for i := range all { // counted as recorded above; shown without credentials
			c := *all[i].Conversation
			c.Messages = corpora.RedactMessages(c.Messages)
			all[i].Conversation = &c
		}
		if err := enc.Encode(all); err != nil {
			return err
		}
		// a run streamed past is shown as what it was, not as the stand-in the text holds
		if _, err := opts.IO.Out.Write(corpora.DescribeStandIns(buf.Bytes())); err != nil {
			return err
		}
	} else {
		t := inspectTable(all)
		// fitted to the terminal like replay's tables; --json keeps the full ids
		cols := results.TextColumns(t)
		cols[1].Flexible = false // a format name is short and reads badly wrapped
		if err := results.WriteTables(opts.IO.Out, []results.Table{results.FitTable(t, opts.IO.TableWidth(), cols)}, false); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return &run.InputsError{Problems: len(problems)}
	}
	return nil
}

// inspectTable is the table of corpus inspect: one row per conversation, the picture counts in
// one cell (only those that are not zero), so that it fits a terminal; --json has every count.
func inspectTable(all []inspected) results.Table {
	t := results.Table{Title: "conversations", Header: []string{"conversation", "format", "messages", "requests", "tool results", "pictures", "bytes"}}
	t.Right = []bool{false, false, true, true, true, false, true}
	for _, in := range all {
		s := in.Summary
		var pics []string
		for _, n := range []struct {
			what  string
			count int
		}{{"MCP", s.StructuredPictures}, {"base64 runs", s.Base64Runs}, {"tool image parts", s.ToolImageParts},
			{"user attachments", s.UserAttachments}, {"unavailable", s.Unavailable}} {
			if n.count > 0 {
				pics = append(pics, n.what+" "+strconv.Itoa(n.count))
			}
		}
		cell := strings.Join(pics, ", ")
		if cell == "" {
			cell = "-"
		}
		t.Rows = append(t.Rows, []string{results.ShortID(s.ID), s.Format, strconv.Itoa(s.Messages), strconv.Itoa(s.Requests),
			strconv.Itoa(s.ToolResults), cell, results.Thousands(s.Bytes)})
	}
	return t
}

// inspectConversation counts what a conversation holds and lists its pictures, walked and
// judged by replay as the replay meets them.
func inspectConversation(c *corpora.Conversation, minRun int) (ConversationSummary, []PictureLocation) {
	counts, sites := replay.InspectConversation(c, minRun)
	return ConversationSummary{ID: c.ID, File: c.Source.File, Format: string(c.Format), Messages: len(c.Messages),
		Requests: len(c.Requests()), PictureCounts: counts, Bytes: c.Bytes}, sites
}
