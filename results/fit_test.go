package results

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkWrap: every line of Wrap(s, width) fits (unless a break had to cut nothing: width < 1)
// and the lines hold the characters of s, in order, only spaces dropped at the breaks.
func checkWrap(t *testing.T, s string, width int) {
	t.Helper()
	got := Wrap(s, width)
	for _, line := range strings.Split(got, "\n") {
		if width >= 1 && utf8.RuneCountInString(line) > width && strings.Contains(got, "\n") {
			t.Fatalf("Wrap(%q, %d): line %q is longer than %d", s, width, line, width)
		}
	}
	squeeze := func(x string) string { return strings.NewReplacer(" ", "", "\n", "").Replace(x) }
	if squeeze(got) != squeeze(s) {
		t.Fatalf("Wrap(%q, %d) = %q: characters lost or moved", s, width, got)
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"text: the picture reached the server as tool text", 20, "text: the picture\nreached the server\nas tool text"},
		{"line 1 /messages/2/content/0/content/1/source/data", 24, "line 1\n/messages/2/content/0/\ncontent/1/source/data"},
		{"abcdefghijklmnop", 5, "abcde\nfghij\nklmno\np"},
		{"cases seeing a picture", 11, "cases\nseeing a\npicture"},
		// names break after '-', '.' and the like, never mid-word while one is in reach
		{"hf/qwen2vl-classdefault", 20, "hf/qwen2vl-\nclassdefault"},
		{"anthropic-tool-result-webp.json#0@5", 20, "anthropic-tool-\nresult-webp.json#0@5"},
		{"catalog examples/catalog.yaml: providers.local.models.qwen3-8b", 24, "catalog\nexamples/catalog.yaml:\nproviders.local.models.\nqwen3-8b"},
	}
	for _, tt := range tests {
		if got := Wrap(tt.in, tt.width); got != tt.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		checkWrap(t, tt.in, tt.width)
	}
}

func FuzzWrap(f *testing.F) {
	f.Add("omitted: not in the recording (storage-key picture:input-box:8ed72d3c): bytes", 12)
	f.Add("/session:a7a6d3b2/messageForksHash/37b3ef5d/lists/0/messages/0/contentParts/0/result @95", 20)
	f.Add("日本語 のテキスト  and  spaces", 3)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\t") || width > 1000 {
			t.Skip()
		}
		checkWrap(t, s, width)
	})
}

// TestShortID keeps the first 8 hex digits of every UUID.
func TestShortID(t *testing.T) {
	in := "chatbox-exported-data-2026-11-30.json#a7a6d3b2-1ecb-47ec-b68b-046875d62394/fork/37b3ef5d-25f5-4b79-84b4-017f7faa94ef/0@4"
	if got, want := ShortID(in), "chatbox-exported-data-2026-11-30.json#a7a6d3b2/fork/37b3ef5d/0@4"; got != want {
		t.Errorf("ShortID = %q, want %q", got, want)
	}
}

// TestFitTable: a table too wide for the width wraps its flexible columns and renders within
// it; one that fits is left as it is.
func TestFitTable(t *testing.T) {
	tbl := Table{Title: "t", Header: []string{"name", "count", "what happened"}, Right: []bool{false, true, false},
		Rows: [][]string{{"a-rather-long-case-identifier.json#0@12", "1,002", "text: the picture reached the server as tool text, and more words"}}}
	if got := FitTable(tbl, 200, TextColumns(tbl)); got.Rows[0][2] != tbl.Rows[0][2] {
		t.Errorf("a table that fits was wrapped: %q", got.Rows[0][2])
	}
	for _, width := range []int{50, 60, 80} {
		var b strings.Builder
		if err := WriteTables(&b, []Table{FitTable(tbl, width, TextColumns(tbl))}, false); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line of %d: %s", width, n, line)
			}
		}
		if !strings.Contains(b.String(), "1,002") {
			t.Errorf("width %d: the number column was wrapped", width)
		}
	}
}
