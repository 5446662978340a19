package results

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// DefaultWidth is the width tables are fitted to when the output is not a terminal (a file, a
// pipe, CI logs): wide enough for the per-case tables of three arms (docs/decisions.md).
const DefaultWidth = 120

// minFlexWidth is the narrowest a wrapped column gets, however narrow the terminal.
const minFlexWidth = 12

// uuidLike matches the UUIDs Chatbox names its sessions and forks with; ShortID keeps their
// first 8 hex digits, which tell them apart in one report.
var uuidLike = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// ShortID shortens a case id or a JSON Pointer for a table: every UUID becomes its first 8 hex
// digits (chatbox-….json#a7a6d3b2-1ecb-…@5 → chatbox-….json#a7a6d3b2@5). The full id stays in
// the JSON and CSV forms.
func ShortID(s string) string {
	return uuidLike.ReplaceAllStringFunc(s, func(u string) string { return u[:8] })
}

// CompactPictureTable lists every picture of every case and arm in the columns a reader needs
// (case, arm, where, picture, rows, seen, outcome), with shortened ids, the case named once per
// group of rows. Its rows are what each picture adds to the prompt, markers included, so that
// they add up to the case table's image rows. Its cells do not wrap; FitTable wraps them to a width.
func CompactPictureTable(r *Report) Table {
	t := Table{Title: "pictures", Header: []string{"case", "arm", "where", "picture", "rows", "seen", "outcome"}}
	t.Right = []bool{false, false, false, false, true, false, false}
	for _, c := range r.Cases {
		first := true
		for _, a := range c.Arms {
			for _, p := range a.Pictures {
				id := ""
				if first {
					id, first = ShortID(c.ID), false
				}
				outcome := string(p.Outcome)
				if p.Reason != "" {
					outcome += ": " + p.Reason
				}
				seen := "no"
				if p.SeenByModel {
					seen = "yes"
				}
				t.Rows = append(t.Rows, []string{id, a.Arm, ShortID(where(p)), pictureCell(p), Thousands(int64(p.PromptRows())), seen, ShortID(outcome)})
			}
		}
	}
	return t
}

// pictureCell is a picture's type, size and bytes in a few characters: "png 1280×800 1.5 MB", and
// for one the agent prepared what it became: "png 1280×800 1.5 MB → jpeg 190.6 KB".
func pictureCell(p Picture) string {
	var parts []string
	if typ := strings.TrimPrefix(p.Type, "image/"); typ != "" {
		parts = append(parts, typ)
	}
	r := p.Resized
	switch {
	case r != nil:
		parts = append(parts, fmt.Sprintf("%d×%d", r.FromWidth, r.FromHeight))
	case p.Width > 0:
		parts = append(parts, fmt.Sprintf("%d×%d", p.Width, p.Height))
	}
	if p.Bytes > 0 {
		parts = append(parts, ByteSize(int64(p.Bytes)))
	}
	if r != nil { // what the agent made of it: only what changed, after an arrow
		to := []string{"→"}
		if typ := strings.TrimPrefix(r.ToType, "image/"); typ != "" && r.ToType != p.Type {
			to = append(to, typ)
		}
		if r.ToWidth != r.FromWidth || r.ToHeight != r.FromHeight {
			to = append(to, fmt.Sprintf("%d×%d", r.ToWidth, r.ToHeight))
		}
		if r.ToBytes > 0 {
			to = append(to, ByteSize(int64(r.ToBytes)))
		}
		parts = append(parts, to...)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// ByteSize formats a byte count in B, KB or MB (10³ and 10⁶ bytes), with one decimal from KB on.
func ByteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// tableWidth is the width a rendered table of these column widths takes: "│ " and " │"
// around the cells, " │ " between them.
func tableWidth(widths []int) int {
	w := 1
	for _, c := range widths {
		w += c + 3
	}
	return w
}

// Column says how a column of a table may be fitted to a width: Flexible columns wrap, the
// others keep their natural width; Max, when set, is the most a flexible column keeps when the
// table must shrink (a case id whose rows are taller anyway).
type Column struct {
	Flexible bool
	Max      int
}

// TextColumns marks the text (left-aligned) columns of t flexible.
func TextColumns(t Table) []Column {
	cols := make([]Column, len(t.Header))
	for c := range cols {
		cols[c].Flexible = c >= len(t.Right) || !t.Right[c]
	}
	return cols
}

// FitTable wraps the cells of the flexible columns so that the table renders in at most width
// characters; a header wider than its column's cells wraps between words. Flexible columns
// first give up what they have over their Max; then each keeps what it needs when that is at
// most an equal share of the room left, and the others share the rest equally, none narrower
// than 12 characters (so a very narrow terminal still gets a readable, wider table).
func FitTable(t Table, width int, cols []Column) Table {
	n := len(t.Header)
	natural := make([]int, n)
	for _, row := range t.Rows {
		for i, cell := range row {
			if i < n {
				natural[i] = max(natural[i], cellWidth(cell))
			}
		}
	}
	unwrapped := make([]int, n) // each column's width with nothing wrapped, the header included
	for i, h := range t.Header {
		hw := cellWidth(h)
		unwrapped[i] = max(natural[i], hw)
		// the header's width when wrapped between words to the cells' width
		natural[i] = max(natural[i], longestWord(h), (hw+1)/2)
	}
	if width <= 0 {
		width = DefaultWidth
	}
	if tableWidth(unwrapped) <= width {
		return t
	}
	limits := append([]int(nil), natural...)
	{
		var flex []int
		room := width - tableWidth(make([]int, n)) // what the cells may take
		for i := range natural {
			if i < len(cols) && cols[i].Flexible {
				if m := cols[i].Max; m > 0 && natural[i] > m {
					limits[i] = m
				}
				flex = append(flex, i)
			} else {
				room -= natural[i]
			}
		}
		fillColumns(limits, flex, room)
	}
	out := t
	out.Header = make([]string, n)
	for i, h := range t.Header {
		out.Header[i] = Wrap(h, max(limits[i], longestWord(h)))
	}
	out.Rows = make([][]string, len(t.Rows))
	for r, row := range t.Rows {
		cells := make([]string, len(row))
		for i, cell := range row {
			if i < n {
				cell = Wrap(cell, limits[i])
			}
			cells[i] = cell
		}
		out.Rows[r] = cells
	}
	return out
}

// fillColumns shares room among the flexible columns flex (water-filling): a column that needs
// no more than an equal share keeps its width, the others get an equal share of what remains,
// at least minFlexWidth.
func fillColumns(limits, flex []int, room int) {
	left := flex
	for len(left) > 0 {
		share := max(room/len(left), minFlexWidth)
		var next []int
		for _, i := range left {
			if limits[i] <= share {
				room -= limits[i]
			} else {
				next = append(next, i)
			}
		}
		if len(next) == len(left) {
			for _, i := range left {
				limits[i] = share
			}
			return
		}
		left = next
	}
}

// longestWord is the widest space-separated word of s.
func longestWord(s string) int {
	w := 0
	for _, f := range strings.Fields(s) {
		w = max(w, utf8.RuneCountInString(f))
	}
	return w
}

// cellWidth is the widest line of a cell, in runes.
func cellWidth(s string) int {
	w := 0
	for _, line := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(line))
	}
	return w
}

// idBreaks are the characters after which a word without spaces may be broken: first those
// of ids and paths, then, when none is in reach, those inside names.
const (
	idBreaks   = "/#@,"
	nameBreaks = "-_.:"
)

// Wrap breaks s into lines of at most width runes: after a space, else after one of idBreaks
// (ids and JSON Pointers), else after one of nameBreaks (file and family names:
// "hf/qwen2vl-" over "classdefault"), and mid-word only when a word has none within a line.
func Wrap(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	var lines []string
	rs := []rune(s)
	for len(rs) > width {
		cut, idCut, nameCut := -1, -1, -1
		for i := width; i > 0; i-- {
			if rs[i-1] == ' ' || rs[i] == ' ' {
				cut = i
				break
			}
			if i > width/3 { // a break point that leaves a very short line is not taken
				if idCut < 0 && strings.ContainsRune(idBreaks, rs[i-1]) {
					idCut = i
				}
				if nameCut < 0 && strings.ContainsRune(nameBreaks, rs[i-1]) {
					nameCut = i
				}
			}
		}
		if cut < 0 {
			cut = idCut
		}
		if cut < 0 {
			cut = nameCut
		}
		if cut <= 0 {
			cut = width
		}
		lines = append(lines, strings.TrimRight(string(rs[:cut]), " "))
		rs = rs[cut:]
		for len(rs) > 0 && rs[0] == ' ' {
			rs = rs[1:]
		}
	}
	if len(rs) > 0 {
		lines = append(lines, string(rs))
	}
	return strings.Join(lines, "\n")
}
