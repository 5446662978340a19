package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/internal/thousands"
)

// Table is a titled grid of cells, built without I/O and rendered by the Write functions.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Right marks columns aligned right (numbers).
	Right []bool
}

// Thousands formats n with comma thousands separators: 1528438 → "1,528,438" (the same
// digits the replay notes print: both use internal/thousands).
func Thousands(n int64) string { return thousands.Format(n) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// toolCell describes the tool messages of a case as the server receives them.
func toolCell(a ArmCase) string {
	if a.ToolMessages == 0 && a.ToolChars == 0 && a.ToolPictures == 0 {
		return "no tool message"
	}
	var parts []string
	if a.ToolChars > 0 || a.ToolPictures == 0 {
		parts = append(parts, fmt.Sprintf("%s characters of text", Thousands(int64(a.ToolChars))))
	}
	switch a.ToolPictures {
	case 0:
	case 1:
		parts = append(parts, "one picture")
	default:
		parts = append(parts, fmt.Sprintf("%d pictures", a.ToolPictures))
	}
	return strings.Join(parts, " + ")
}

// promptCell describes the prompt and its verdict.
func promptCell(a ArmCase) string {
	var s string
	if a.ImageRows > 0 {
		s = fmt.Sprintf("%s tokens of text + %s image rows", Thousands(int64(a.TextTokens)), Thousands(int64(a.ImageRows)))
	} else {
		s = fmt.Sprintf("%s tokens", Thousands(int64(a.PromptTokens)))
	}
	if !a.Fits {
		s += " → refused"
	}
	return s
}

// modelCell says whether the model sees the pictures.
func modelCell(a ArmCase) string {
	total, seen := 0, 0
	for _, p := range a.Pictures {
		total++
		if p.SeenByModel {
			seen++
		}
	}
	switch {
	case !a.Fits && a.RefusedBy == "server":
		return "never sees the request (refused by the server)"
	case !a.Fits:
		return "never sees the request (refused)"
	case total == 0:
		return "no picture in the request"
	case seen == 0:
		return "never sees the " + plural(total, "picture", "pictures")
	case seen == total:
		return "sees the " + plural(total, "picture", "pictures")
	}
	return fmt.Sprintf("sees %d of %d pictures", seen, total)
}

// AnswerWidth is the number of characters of an answer shown in the per-case table.
const AnswerWidth = 60

// TruncateAnswer shortens an answer to n characters on one line, marking the cut with "…".
func TruncateAnswer(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// answerCell shows the (truncated) answer and the scorer's verdict.
func answerCell(a ArmCase) string {
	if a.Answer == "" && a.Correct == nil {
		if !a.Fits {
			return "-"
		}
		return "(no answer)"
	}
	s := "“" + TruncateAnswer(a.Answer, AnswerWidth) + "”"
	if a.Answer == "" && !a.Fits {
		s = "(refused)"
	}
	if a.Correct != nil {
		if *a.Correct {
			s += " correct"
		} else {
			s += " wrong"
		}
	}
	return s
}

// countCell sets the server's count beside the computed one, and a divergence beside it.
func countCell(a ArmCase) string {
	var parts []string
	if a.Computed != nil && a.CountDiff != nil {
		parts = append(parts, fmt.Sprintf("server %s, computed %s (%+d)", Thousands(int64(a.PromptTokens)),
			Thousands(int64(a.Computed.PromptTokens)), *a.CountDiff))
	}
	if d := a.Divergence; d != nil {
		s := fmt.Sprintf("vs %s %s: %+d (%+.1f%%)", d.Reference, Thousands(int64(d.ReferenceTokens)), d.Diff, 100*d.Relative)
		if d.Diverges {
			s += " DIVERGES"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// CaseTable is the three-row table of docs/pipeline.md §1 for one case: the tool message, the
// prompt, the model, with a column per arm. With a live engine it adds the server's count
// beside the computed one, and the answer with the scorer's verdict.
func CaseTable(c Case) Table {
	t := Table{Title: "case " + c.ID, Header: []string{""}}
	rows := [][]string{{"the tool message"}, {"the prompt"}, {"the model"}}
	var counts, answers []string
	hasCounts, hasAnswers := false, false
	for _, a := range c.Arms {
		t.Header = append(t.Header, a.Arm)
		rows[0] = append(rows[0], toolCell(a))
		rows[1] = append(rows[1], promptCell(a))
		rows[2] = append(rows[2], modelCell(a))
		counts = append(counts, countCell(a))
		answers = append(answers, answerCell(a))
		hasCounts = hasCounts || a.Computed != nil || a.Divergence != nil
		hasAnswers = hasAnswers || a.Answer != "" || a.Correct != nil
	}
	if hasCounts {
		rows = append(rows, append([]string{"server vs computed"}, counts...))
	}
	if hasAnswers {
		rows = append(rows, append([]string{"the answer"}, answers...))
	}
	t.Rows = rows
	t.Right = make([]bool, len(t.Header))
	return t
}

// SummaryTable aggregates every arm: cases, refusals, prompt tokens and the reduction against
// the first arm, image rows and pictures by outcome.
func SummaryTable(r *Report) Table {
	t := Table{Title: "summary", Header: []string{"arm", "cases", "refused", "text tokens", "image rows", "prompt tokens", "reduction", "cases seeing a picture", "pictures"}}
	t.Right = []bool{false, true, true, true, true, true, true, true, false}
	scored, compared, divergent, leftOut := false, false, false, false
	for _, s := range r.Summary {
		leftOut = leftOut || s.LeftOut > 0
		scored = scored || s.Scored > 0
		compared = compared || s.Compared > 0
		divergent = divergent || s.Divergent > 0
	}
	if scored {
		t.Header, t.Right = append(t.Header, "correct"), append(t.Right, true)
	}
	if compared {
		t.Header, t.Right = append(t.Header, "server − computed"), append(t.Right, true)
	}
	if divergent {
		t.Header, t.Right = append(t.Header, "divergent"), append(t.Right, true)
	}
	if leftOut {
		// cases another arm failed on: every arm is summarised over the same cases
		t.Header, t.Right = append(t.Header, "left out (another arm failed)"), append(t.Right, true)
	}
	for _, s := range r.Summary {
		row := []string{
			s.Arm, strconv.Itoa(s.Cases), strconv.Itoa(s.Refused),
			Thousands(s.TextTokens), Thousands(s.ImageRows), Thousands(s.PromptTokens),
			fmt.Sprintf("%.1f%%", 100*s.Reduction), strconv.Itoa(s.SeesPicture), outcomes(s.Pictures),
		}
		if scored {
			cell := "-"
			if s.Scored > 0 {
				cell = fmt.Sprintf("%d/%d (%.1f%%)", s.Correct, s.Scored, 100*s.CorrectRate)
			}
			row = append(row, cell)
		}
		if compared {
			cell := "-"
			if s.Compared > 0 {
				cell = fmt.Sprintf("%+d (absolute %s over %d cases)", s.CountDiff, Thousands(s.AbsCountDiff), s.Compared)
			}
			row = append(row, cell)
		}
		if divergent {
			row = append(row, strconv.Itoa(s.Divergent))
		}
		if leftOut {
			row = append(row, strconv.Itoa(s.LeftOut))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func outcomes(m map[string]int) string {
	order := []string{"lifted", "taken", "passed", "attached", "capped", "omitted", "noted", "text"}
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// ScanTable reports scan times per arm (p50, p95, max, total), each column in one unit.
func ScanTable(r *Report) Table {
	t := Table{Title: "scan time", Header: []string{"arm", "tool messages", "bytes", "p50", "p95", "max", "total"}}
	t.Right = []bool{false, true, true, true, true, true, true}
	var ns [][]float64
	for _, s := range r.Timings.Scan {
		if s.Messages == 0 {
			continue // an arm that scans nothing (the legacy server) has no scan times
		}
		t.Rows = append(t.Rows, []string{s.Arm, strconv.Itoa(s.Messages), Thousands(s.Bytes), "", "", "", ""})
		ns = append(ns, []float64{float64(s.P50), float64(s.P95), float64(s.Max), float64(s.Total)})
	}
	durationColumns(&t, []int{3, 4, 5, 6}, ns)
	return t
}

func where(p Picture) string {
	s := p.Loc.Pointer
	if p.Loc.Line > 0 {
		s = fmt.Sprintf("line %d %s", p.Loc.Line, s)
	}
	if p.Length > 0 {
		s += fmt.Sprintf(" @%d", p.Offset)
	}
	return strings.TrimSpace(s)
}

// ProblemTable lists the inputs that could not be read.
func ProblemTable(r *Report) Table {
	t := Table{Title: "inputs that could not be read", Header: []string{"where", "problem"}, Right: []bool{false, false}}
	for _, p := range r.Problems {
		t.Rows = append(t.Rows, []string{p.Where, p.Message})
	}
	return t
}
