package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
		Use:   "corpus",
		Short: "Look at recorded conversations",
		Long:  helpWithExit(`Commands that read recorded conversations without replaying them.`, ExitInputs),
	}
	c.AddCommand(newInspectCmd(io))
	return c
}

func newInspectCmd(io *IOStreams) *cobra.Command {
	opts := &InspectOptions{IO: io}
	c := &cobra.Command{
		Use:   "inspect [PATH|-...]",
		Short: "One row per conversation: format, messages, requests, tool results, pictures, references",
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

func formatNames() string {
	s := ""
	for i, f := range corpora.Formats() {
		if i > 0 {
			s += ", "
		}
		s += string(f)
	}
	return s
}

// ConversationSummary is the inspect row of one conversation.
type ConversationSummary struct {
	ID                 string `json:"id"`
	File               string `json:"file"`
	Format             string `json:"format"`
	Messages           int    `json:"messages"`
	Requests           int    `json:"requests"`
	ToolResults        int    `json:"tool_results"`
	StructuredPictures int    `json:"structured_pictures"`
	Base64Runs         int    `json:"base64_runs"`
	ToolImageParts     int    `json:"tool_image_parts"`
	UserAttachments    int    `json:"user_attachments"`
	Unavailable        int    `json:"unavailable_references"`
	Bytes              int64  `json:"bytes"`
}

// PictureLocation is one picture found in a conversation with its digest.
type PictureLocation struct {
	Where corpora.Location `json:"where"`
	// TextOffset is where a base64 run starts in the text of its message, in bytes.
	TextOffset int            `json:"text_offset,omitempty"`
	Kind       string         `json:"kind"` // image-part, mcp-image, mcp-resource-blob, base64-run
	Origin     corpora.Origin `json:"origin"`
	Type       string         `json:"type"` // from the signature
	Bytes      int            `json:"bytes"`
	SHA256     string         `json:"sha256"`
	// Problem says why the picture fails the picture check (docs/pipeline.md §4.6), as replay
	// reports it: such a picture is a located problem and the exit code is 3.
	Problem string `json:"problem,omitempty"`
}

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
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
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

// inspectConversation counts what a conversation holds and lists its pictures.
func inspectConversation(c *corpora.Conversation, minRun int) (ConversationSummary, []PictureLocation) {
	s := ConversationSummary{ID: c.ID, File: c.Source.File, Format: string(c.Format), Messages: len(c.Messages),
		Requests: len(c.Requests()), Bytes: c.Bytes}
	var pics []PictureLocation
	addImage := func(img *corpora.Image, loc corpora.Location, kind string) {
		pics = append(pics, pictureOf(img.Data, loc, kind, img.Origin))
	}
	scanText := func(text string, loc corpora.Location) {
		for from := 0; ; {
			r, ok := replay.NextRun(text, from, minRun)
			if !ok {
				return
			}
			from = r.End
			s.Base64Runs++
			if typ := replay.SniffRun(text, r); typ != "" {
				data, err := replay.DecodeRun(text, r)
				if err != nil {
					// not a picture: the lift leaves it as text, and reports it
					pics = append(pics, PictureLocation{Where: loc, TextOffset: r.Start, Kind: "base64-run", Origin: corpora.OriginTool,
						Type: typ, Problem: "starts like a picture but is not valid base64: left as text: " + err.Error()})
					continue
				}
				pl := pictureOf(data, loc, "base64-run", corpora.OriginTool)
				pl.TextOffset = r.Start
				pics = append(pics, pl)
			}
		}
	}
	for _, m := range c.Messages {
		for _, p := range m.Parts {
			switch p.Kind {
			case corpora.PartImage:
				if p.Image.Origin == corpora.OriginUser {
					s.UserAttachments++
				}
				addImage(p.Image, p.Loc, "image-part")
			case corpora.PartReference:
				s.Unavailable++
			case corpora.PartToolResult:
				tr := p.ToolResult
				s.ToolResults++
				if tr.MCP != nil {
					for i := range tr.MCP.Content {
						b := &tr.MCP.Content[i]
						p, ok := replay.DecodeMCPPictureBlock(b)
						if !ok {
							continue
						}
						s.StructuredPictures++
						kind := "mcp-image"
						if b.Type == "resource" {
							kind = "mcp-resource-blob"
						}
						switch {
						case p.Data != nil:
							pics = append(pics, pictureOf(p.Data, p.Loc, kind, corpora.OriginTool))
						case p.SHA256 != "": // streamed past while reading: judged from its header
							pics = append(pics, largePicture(p, p.Loc, kind))
						case p.Problem:
							pics = append(pics, PictureLocation{Where: p.Loc, Kind: kind, Origin: corpora.OriginTool,
								Type: p.DeclaredType, Bytes: int(p.Bytes), Problem: p.Reason})
						}
					}
					if !replay.HasPictureBlocks(tr.MCP) {
						scanText(tr.Text, p.Loc)
					}
					continue
				}
				if tr.IsText {
					scanText(tr.Text, p.Loc)
				}
				for _, tp := range tr.Parts {
					switch tp.Kind {
					case corpora.PartText:
						scanText(tp.Text, tp.Loc)
					case corpora.PartImage:
						s.ToolImageParts++
						addImage(tp.Image, tp.Loc, "image-part")
					case corpora.PartReference:
						s.Unavailable++
					}
				}
			}
		}
	}
	return s, pics
}

func pictureOf(data []byte, loc corpora.Location, kind string, origin corpora.Origin) PictureLocation {
	sum := sha256.Sum256(data)
	pl := PictureLocation{Where: loc, Kind: kind, Origin: origin, Type: replay.SniffImage(data), Bytes: len(data),
		SHA256: hex.EncodeToString(sum[:])}
	if len(data) > replay.DefaultMaxPictureBytes { // over the cap a picture is counted, never decoded
		pl.Problem = headerProblem(data)
	} else if _, err := replay.CheckPicture(data, replay.PictureLimits{}); err != nil {
		pl.Problem = err.Error()
	}
	return pl
}

// largePicture is the inspect entry of a picture streamed past while reading
// (corpora.LargeBase64): its size and digest are known, and its header is checked.
func largePicture(p replay.MCPPicture, loc corpora.Location, kind string) PictureLocation {
	pl := PictureLocation{Where: loc, Kind: kind, Origin: corpora.OriginTool, Type: p.Type, Bytes: int(p.Bytes), SHA256: p.SHA256,
		Problem: p.Reason}
	if pl.Problem == "" {
		pl.Problem = headerProblem(p.Head)
	}
	return pl
}

// headerProblem judges a picture too large to decode from the size its header declares, as the
// agent arm does: "" when it is within the pixel limit.
func headerProblem(head []byte) string {
	w, h, err := replay.ImageHeaderSize(head)
	if err != nil || int64(w)*int64(h) <= replay.DefaultMaxPixels {
		return ""
	}
	return fmt.Sprintf("the header claims %s×%s = %s pixels, more than the limit of %s", replay.FormatCount(int64(w)),
		replay.FormatCount(int64(h)), replay.FormatCount(int64(w)*int64(h)), replay.FormatCount(replay.DefaultMaxPixels))
}
