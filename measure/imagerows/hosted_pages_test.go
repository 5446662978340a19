package imagerows

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// foldQuoted folds a quoted page the way examples.tsv quotes it: the quote marks at the
// start of lines and every run of white space become one space.
func foldQuoted(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, ">"), " "))
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// TestHostedPageExamples holds every worked example of the provider pages, and the figures
// their rule text implies, to ImageRows; each row's quote must be in the quoted page.
func TestHostedPageExamples(t *testing.T) {
	dir := filepath.Join("testdata", "hosted")
	pages := map[string]string{}
	f, err := os.Open(filepath.Join(dir, "examples.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	kinds := map[string]int{}
	families := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 8 {
			t.Fatalf("line %d: %d columns, want 8", line, len(c))
		}
		w, _ := strconv.Atoi(c[1])
		h, _ := strconv.Atoi(c[2])
		want, _ := strconv.Atoi(c[3])
		if _, ok := pages[c[5]]; !ok {
			b, err := os.ReadFile(filepath.Join(dir, c[5]))
			if err != nil {
				t.Fatal(err)
			}
			pages[c[5]] = foldQuoted(string(b))
		}
		if !strings.Contains(pages[c[5]], foldQuoted(c[7])) {
			t.Errorf("line %d: quote %q is not in %s", line, c[7], c[5])
		}
		fam, err := FamilyByName(c[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		got, err := ImageRows(fam, w, h, RowOptions{})
		if err != nil {
			t.Errorf("line %d: %v", line, err)
			continue
		}
		if got.Total != want || got.Resized.String() != strings.Replace(c[4], "x", "×", 1) {
			t.Errorf("line %d: %s %dx%d: %d tokens at %v, the page gives %d at %s", line, c[0], w, h, got.Total, got.Resized, want, c[4])
		}
		kinds[c[6]]++
		families[c[0]] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if kinds["page"] < 25 || len(families) < 20 {
		t.Errorf("only %d page examples over %d families ran", kinds["page"], len(families))
	}
}

// claudeOracle is the vision-coordinates page's reference implementation (its Python tab)
// ported line by line, apart from the implementation: float division and ceil as Python
// does them, round() as round half to even.
func claudeOracle(width, height, maxEdge, maxTokens int) (int, int) {
	ceil28 := func(v int) int { return int(math.Ceil(float64(v) / 28)) }
	fits := func(w, h int) bool {
		return ceil28(w)*28 <= maxEdge && ceil28(h)*28 <= maxEdge && ceil28(w)*ceil28(h) <= maxTokens
	}
	if fits(width, height) {
		return width, height
	}
	if height > width {
		rh, rw := claudeOracle(height, width, maxEdge, maxTokens)
		return rw, rh
	}
	aspect := float64(width) / float64(height)
	lo, hi := 1, width
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if fits(mid, max(int(math.RoundToEven(float64(mid)/aspect)), 1)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, max(int(math.RoundToEven(float64(lo)/aspect)), 1)
}

// TestClaudeReferenceResize compares both tiers' families with the page's reference
// implementation on a grid of sizes, and the oracle with the page's own figures.
func TestClaudeReferenceResize(t *testing.T) {
	for _, ex := range []struct{ w, h, edge, tokens, rw, rh int }{
		{1075, 1520, 1568, 1568, 924, 1307},
		{1920, 1080, 1568, 1568, 1456, 819},
		{2000, 1500, 1568, 1568, 1270, 952}, // the page's table: 1269x952, rounding 952.5 up
		{3840, 2160, 2576, 4784, 2576, 1449},
	} {
		if rw, rh := claudeOracle(ex.w, ex.h, ex.edge, ex.tokens); rw != ex.rw || rh != ex.rh {
			t.Errorf("oracle %dx%d: %dx%d, the page gives %dx%d", ex.w, ex.h, rw, rh, ex.rw, ex.rh)
		}
	}
	var sizes [][2]int
	for _, w := range []int{1, 27, 28, 29, 200, 783, 784, 1000, 1075, 1092, 1269, 1456, 1568, 1569, 2000, 2576, 2577, 3840, 10000} {
		for _, h := range []int{1, 28, 100, 819, 952, 1080, 1092, 1307, 1449, 1520, 2160, 4000, 9999} {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	for i := 0; i < 60; i++ { // a seeded spread of odd sizes
		sizes = append(sizes, [2]int{1 + (i*7919)%6000, 1 + (i*104729)%5000})
	}
	checked := 0
	for _, tier := range []struct {
		family        string
		edge, tokens  int
		differences   int
		differentSize []string
	}{
		{family: "anthropic/claude-legacy", edge: 1568, tokens: 1568},
		{family: "anthropic/opus-4.7-class", edge: 2576, tokens: 4784},
	} {
		fam, err := FamilyByName(tier.family)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sizes {
			rw, rh := claudeOracle(s[0], s[1], tier.edge, tier.tokens)
			want := int(math.Ceil(float64(rw)/28)) * int(math.Ceil(float64(rh)/28))
			got, err := ImageRows(fam, s[0], s[1], RowOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Resized != (PixelSize{rw, rh}) || got.Total != want {
				tier.differences++
				tier.differentSize = append(tier.differentSize, fmt.Sprintf("%dx%d: %v %d, page %dx%d %d", s[0], s[1], got.Resized, got.Total, rw, rh, want))
			}
			checked++
		}
		if tier.differences != 0 {
			t.Errorf("%s: %d of %d sizes differ from the reference implementation: %s", tier.family, tier.differences, len(sizes), strings.Join(tier.differentSize, "; "))
		}
	}
	if len(sizes) < 200 {
		t.Errorf("the grid has %d sizes, want at least 200", len(sizes))
	}
	t.Logf("%d sizes × 2 tiers checked against the reference implementation", checked/2)
}

// TestOpenAIPatchTable: every detail level of the patch table is a family, the family of
// the level auto uses says so, and the budget holds on a large picture.
func TestOpenAIPatchTable(t *testing.T) {
	for _, m := range openAIPatchModels {
		for _, l := range m.levels {
			name := m.name
			if l.detail != "" {
				name += "-" + l.detail
			}
			f, err := FamilyByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if f.Page != m.page || f.Multiplier != m.mult || f.PatchCap != l.budget || f.MaxLongEdge != l.maxSide {
				t.Errorf("%s: %+v does not carry its table row", name, f)
			}
			if l.detail != "" && (l.detail == m.auto) != strings.Contains(f.Note, "(and auto)") {
				t.Errorf("%s: note %q and the auto level %q disagree", name, f.Note, m.auto)
			}
			r, err := ImageRows(f, 20000, 15000, RowOptions{})
			if err != nil {
				t.Fatal(err)
			}
			patches := (r.Resized.Width + 31) / 32 * ((r.Resized.Height + 31) / 32)
			if max(r.Resized.Width, r.Resized.Height) > l.maxSide || (l.budget > 0 && patches > l.budget) {
				t.Errorf("%s 20000x15000: resized %v (%d patches) breaks %d px / %d patches", name, r.Resized, patches, l.maxSide, l.budget)
			}
		}
	}
}

// TestHostedPages: every hosted family names its page, and HostedPages lists each family once.
func TestHostedPages(t *testing.T) {
	listed := map[string]int{}
	for _, p := range HostedPages() {
		for _, n := range p.Families {
			listed[n]++
		}
	}
	for _, f := range hostedFamilies() {
		if f.Page == "" || listed[f.Name] != 1 {
			t.Errorf("%s: page %q, listed %d times", f.Name, f.Page, listed[f.Name])
		}
		if strings.Contains(f.Note, "unverified") {
			t.Errorf("%s: note %q", f.Name, f.Note)
		}
	}
}

// TestDocsHostedTable holds docs/count-and-rows.md's table of the hosted families: each
// hosted family in one row, and each row's "examples checked" the examples.tsv rows of its
// families.
func TestDocsHostedTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "count-and-rows.md"))
	if err != nil {
		t.Fatal(err)
	}
	tsv, err := os.ReadFile(filepath.Join("testdata", "hosted", "examples.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string]int{}
	for _, l := range strings.Split(string(tsv), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			examples[strings.SplitN(l, "\t", 2)[0]]++
		}
	}
	section := string(doc)[strings.Index(string(doc), "### Hosted families"):]
	rowsOf := map[string]int{}
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		want := 0
		for _, name := range strings.Split(cells[0], ", ") {
			name = strings.Trim(name, "`")
			rowsOf[name]++
			want += examples[name]
		}
		if got, _ := strconv.Atoi(cells[len(cells)-1]); got != want {
			t.Errorf("row %s…: %d examples checked, examples.tsv has %d", cells[0][:min(40, len(cells[0]))], got, want)
		}
	}
	for _, f := range hostedFamilies() {
		if rowsOf[f.Name] != 1 {
			t.Errorf("%s is in %d rows of the docs table", f.Name, rowsOf[f.Name])
		}
	}
}
