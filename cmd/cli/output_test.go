package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/internal/thousands"
	"github.com/strata-eval/strata-eval/results"
)

// replayText replays the embedded sample corpus with the terminal width given and returns stdout.
func replayText(t *testing.T, width int, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"replay", "--no-timings"}, args...)
	if code := Run(context.Background(), args, &IOStreams{Out: &out, ErrOut: &errOut, OutWidth: width}); code != ExitOK {
		t.Fatalf("replay %v: exit %d\n%s", args, code, errOut.String())
	}
	return out.String()
}

// TestReplayHeader: the text forms start with what counted: tokenizer, template, vision family,
// context and engine.
func TestReplayHeader(t *testing.T) {
	out := replayText(t, 0, "--summary")
	first, _, _ := strings.Cut(out, "\n")
	want := "tokenizer o200k_base · template qwen · vision llamacpp/qwen3vl · context 262,144 · engine offline"
	if first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	md := replayText(t, 0, "--summary", "--format", "markdown")
	if !strings.HasPrefix(md, "_"+want+"_\n") {
		t.Errorf("markdown starts %q", md[:min(len(md), 120)])
	}
}

// renderText renders a report as stdout shows it at a width.
func renderText(t *testing.T, r *results.Report, o results.WriteOptions) string {
	t.Helper()
	r.Timings = results.Timings{} // as --no-timings
	var b bytes.Buffer
	if err := results.WriteWith(&b, r, results.FormatTable, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReplaySummary: --summary prints the header and the summary tables only: no table per
// case, no pictures table; the figures are those of the full output.
func TestReplaySummary(t *testing.T) {
	sum := replayText(t, 200, "--summary")
	r, _ := replayJSON(t)
	full := renderText(t, r, results.WriteOptions{Width: 200})
	if strings.Contains(sum, "\ncase ") || strings.Contains(sum, "\npictures\n") {
		t.Errorf("--summary prints case or picture tables:\n%s", sum)
	}
	if !strings.Contains(sum, "\nsummary\n") {
		t.Errorf("--summary lacks the summary table:\n%s", sum)
	}
	for _, a := range r.Summary {
		if tokens := thousands.Format(a.PromptTokens); !strings.Contains(sum, tokens) {
			t.Errorf("--summary lacks the %s tokens of arm %s:\n%s", tokens, a.Arm, sum)
		}
	}
	_, fullSummary, _ := strings.Cut(full, "\nsummary\n")
	fullSummary, _, _ = strings.Cut(fullSummary, "\n\n")
	if !strings.Contains(sum, fullSummary) {
		t.Errorf("the summary of --summary differs from the full output's")
	}
	if n, m := strings.Count(sum, "\n"), strings.Count(full, "\n"); n > 20 || n*5 > m {
		t.Errorf("--summary prints %d lines (full: %d)", n, m)
	}
}

// TestReplayTablesFitTheWidth: every table line fits the terminal width (the titles name the
// full case id); the pictures table names cases by their short id; the full detail (sha256,
// full ids) stays in the JSON form.
func TestReplayTablesFitTheWidth(t *testing.T) {
	r, raw := replayJSON(t)
	for _, width := range []int{100, 120, 160} {
		out := renderText(t, r, results.WriteOptions{Width: width})
		for i, line := range strings.Split(out, "\n") {
			if !strings.ContainsAny(line, "│┌└├") {
				continue
			}
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line %d has %d characters: %s", width, i+1, n, line)
			}
		}
		if !strings.Contains(out, "\npictures\n") || !strings.Contains(out, "1280×800") {
			t.Errorf("width %d: no pictures table", width)
		}
		if width == 120 {
			_, pics, _ := strings.Cut(out, "\npictures\n")
			if strings.Contains(pics, "1ecb-47ec-b68b-046875d62394") || !strings.Contains(pics, "a7a6d3b2") {
				t.Errorf("the pictures table does not shorten the Chatbox ids")
			}
		}
	}
	// the command fits its own terminal's width
	for i, line := range strings.Split(replayText(t, 100), "\n") {
		if strings.ContainsAny(line, "│┌└├") && utf8.RuneCountInString(line) > 100 {
			t.Errorf("replay on a terminal of 100: line %d has %d characters", i+1, utf8.RuneCountInString(line))
		}
	}
	for _, s := range []string{`"sha256": "`, "a7a6d3b2-1ecb-47ec-b68b-046875d62394"} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("results.json lacks %q", s)
		}
	}
}
