package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// RowsOptions are the flags and streams of `rows`.
type RowsOptions struct {
	IO        *IOStreams
	Pictures  []string
	Vision    []string
	MMProj    string
	MinTokens int
	MaxTokens int
	Format    string
}

func newRowsCmd(io *IOStreams) *cobra.Command {
	opts := &RowsOptions{IO: io}
	c := &cobra.Command{
		Use:     "rows [flags] WxH|PICTURE...",
		Example: examples("strata-eval rows 1280x800", "strata-eval rows --vision hf/qwen2.5vl --vision openai/gpt-4o-high 1920x1080 800x600", "# every vision family", "strata-eval rows --vision all 1280x800"),
		Short:   "Image rows of a picture size or a picture file, per vision family",
		Long: helpWithExit(`Prints what a picture costs the prompt: its embedding rows, the marker tokens around them and
the total, with the size the preprocessor resizes it to and its tiles, for one or more vision
families (--vision, repeatable; all for every family; --mmproj for a projector GGUF). Each
argument is a size (1280x800 or 1280×800) or a picture file (PNG, JPEG, GIF, BMP, WebP), whose
size is read from its header after the picture check replay applies. The figures are those
replay gives every picture it measures (docs/pipeline.md §10). The llamacpp/ families and
--mmproj count as the llama.cpp release this tool binds (v0.5.0) does, identical to its
multimodal library (make rows-oracle); a family modelling another llama.cpp release names
that range, e.g. llamacpp-b8637..b9492/gemma4. Token limits that llama.cpp refuses to load a
projector with (--image-min-tokens above the maximum) are refused here with its reason. The
hosted families (openai/, anthropic/, gemini/) evaluate the rule of the provider page each
follows, listed below with its version; a superseded version's rule keeps a name that carries
the version (openai-guide-gpt-5.5/). A recorded hosted model id maps to its family as in
docs/count-and-rows.md.

`+hostedSourcesSection()+formatSection(rowsFormats()), ExitInputs),
		Args: wrapArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Pictures = args
			return runRows(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&opts.Vision, "vision", nil, "vision family (repeatable; all for every family; default "+imagerows.DefaultFamily+")")
	f.StringVar(&opts.MMProj, "mmproj", "", "projector GGUF (mmproj) that decides image rows, instead of --vision")
	f.IntVar(&opts.MinTokens, "image-min-tokens", 0, "llama-server --image-min-tokens (0: the projector's default)")
	f.IntVar(&opts.MaxTokens, "image-max-tokens", 0, "llama-server --image-max-tokens (0: the projector's default)")
	addFormatFlag(f, &opts.Format, rowsFormats(), "output")
	return c
}

// hostedSourcesSection lists the provider page of each hosted family, for the help.
func hostedSourcesSection() string {
	var b strings.Builder
	b.WriteString("Sources of the hosted families:\n")
	for _, p := range imagerows.HostedPages() {
		b.WriteString("  " + p.Page + ":\n")
		line := "   "
		for i, name := range p.Families {
			if i < len(p.Families)-1 {
				name += ","
			}
			if len(line)+1+len(name) > 96 {
				b.WriteString(line + "\n")
				line = "   "
			}
			line += " " + name
		}
		b.WriteString(line + "\n")
	}
	return b.String() + "\n"
}

// rowsRow is the cost of one picture under one family.
type rowsRow struct {
	Picture string         `json:"picture"`
	Width   int            `json:"width"`
	Height  int            `json:"height"`
	Family  string         `json:"family"`
	Rows    imagerows.Rows `json:"rows"`
	// ByPosition, for a family whose rows depend on where the picture sits in the prompt, is
	// the position Rows assumes and the range of rows over the positions.
	ByPosition *rowsByPosition `json:"by_position,omitempty"`
}

// rowsByPosition is the range of a picture's rows over its prompt positions: Rows are counted
// at Assumed (0, a picture at the start: the most rows), Min..Max over every position.
type rowsByPosition struct {
	Assumed int `json:"assumed_position"`
	Min     int `json:"min_rows"`
	Max     int `json:"max_rows"`
}

// sizeArg is WxH (x, X or ×).
var sizeArg = regexp.MustCompile(`^(\d+)\s*[xX×]\s*(\d+)$`)

func runRows(ctx context.Context, opts *RowsOptions) error {
	if err := checkFormat(rowsFormats(), opts.Format); err != nil {
		return err
	}
	families, err := opts.families()
	if err != nil {
		return err
	}
	var out []rowsRow
	for _, arg := range opts.Pictures {
		if err := ctx.Err(); err != nil {
			return err
		}
		w, h, err := pictureSize(arg)
		if err != nil {
			return err
		}
		for _, fam := range families {
			rowOpts := imagerows.RowOptions{MinTokens: opts.MinTokens, MaxTokens: opts.MaxTokens}
			rows, err := imagerows.ImageRows(fam, w, h, rowOpts)
			if err != nil {
				return usageError(fmt.Errorf("%s: %w", arg, err))
			}
			row := rowsRow{Picture: arg, Width: w, Height: h, Family: fam.Name, Rows: rows}
			if period := fam.PositionPeriod(); period > 0 {
				by := &rowsByPosition{Assumed: rowOpts.Position, Min: rows.Rows, Max: rows.Rows}
				for rowOpts.Position = 1; rowOpts.Position < period; rowOpts.Position++ {
					at, err := imagerows.ImageRows(fam, w, h, rowOpts)
					if err != nil {
						return usageError(fmt.Errorf("%s: %w", arg, err))
					}
					by.Min, by.Max = min(by.Min, at.Rows), max(by.Max, at.Rows)
				}
				row.ByPosition = by
			}
			out = append(out, row)
		}
	}
	return rowsFormats().Write(opts.IO.Out, opts.Format, out, results.WriteOptions{Width: opts.IO.TableWidth()})
}

// rowsFormats are the output formats of rows.
func rowsFormats() results.Outputs[[]rowsRow] {
	return results.Outputs[[]rowsRow]{
		{Name: results.FormatTable, Help: "a row per picture and family, fitted to the terminal", Write: writeRowsTable},
		{Name: results.FormatJSON, Help: "the same rows, with every figure of the family", Write: func(w io.Writer, out []rowsRow, _ results.WriteOptions) error {
			return results.WriteIndentedJSON(w, out)
		}},
	}
}

// writeRowsTable prints the rows as a table fitted to o.Width.
func writeRowsTable(w io.Writer, out []rowsRow, o results.WriteOptions) error {
	t := results.Table{Title: "image rows",
		Header: []string{"picture", "size", "family", "rows", "markers", "total", "resized to", "tiles", "source"},
		Right:  []bool{false, false, false, true, true, true, false, true, false}}
	for _, r := range out {
		resized := r.Rows.Resized.String()
		if r.Rows.Overview.Width > 0 {
			resized += " + overview " + r.Rows.Overview.String()
		}
		tiles := "-"
		if r.Rows.Tiles > 0 {
			tiles = fmt.Sprintf("%d (%s)", r.Rows.Tiles, r.Rows.Grid)
		}
		t.Rows = append(t.Rows, []string{r.Picture, fmt.Sprintf("%d×%d", r.Width, r.Height), r.Family,
			results.Thousands(int64(r.Rows.Rows)), strconv.Itoa(r.Rows.Markers), results.Thousands(int64(r.Rows.Total)), resized, tiles, r.Rows.Source})
	}
	if err := results.WriteTables(w, []results.Table{results.FitTable(t, o.Width, results.TextColumns(t))}, false); err != nil {
		return err
	}
	for _, r := range out {
		if by := r.ByPosition; by != nil {
			if _, err := fmt.Fprintf(w, "%s, %s: rows counted at prompt position %d (a picture at the start); %d–%d by position (replay counts each picture where it sits)\n",
				r.Picture, r.Family, by.Assumed, by.Min, by.Max); err != nil {
				return err
			}
		}
	}
	return nil
}

// families resolves --mmproj and --vision.
func (o *RowsOptions) families() ([]imagerows.Family, error) {
	if o.MMProj != "" {
		if len(o.Vision) > 0 {
			return nil, usageErrorf("--mmproj and --vision exclude each other")
		}
		f, err := imagerows.LoadProjector(o.MMProj)
		if err != nil {
			return nil, usageError(err)
		}
		return []imagerows.Family{f}, nil
	}
	names := o.Vision
	if len(names) == 0 {
		names = []string{imagerows.DefaultFamily}
	}
	if len(names) == 1 && names[0] == "all" {
		names = imagerows.Families()
	}
	var out []imagerows.Family
	for _, n := range names {
		f, err := imagerows.FamilyByName(n)
		if err != nil {
			return nil, usageErrorf("--vision: %v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// pictureSize reads WxH, or the size of a picture file after the picture check.
func pictureSize(arg string) (int, int, error) {
	if m := sizeArg.FindStringSubmatch(strings.TrimSpace(arg)); m != nil {
		w, err1 := strconv.Atoi(m[1])
		h, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
			return 0, 0, usageErrorf("%s: not a picture size", arg)
		}
		return w, h, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, 0, usageErrorf("%s: neither a size (WxH) nor a picture file: %v", arg, err)
		}
		return 0, 0, withExitCode(ExitInputs, fmt.Errorf("read %s: %w", arg, err))
	}
	info, err := replay.CheckPicture(data, replay.PictureLimits{})
	if err != nil {
		return 0, 0, withExitCode(ExitInputs, fmt.Errorf("%s: %w", arg, err))
	}
	return info.Width, info.Height, nil
}
