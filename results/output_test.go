package results

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReportFormats: the registry names every format once, in help order; --out receives the
// formats that have a file, in that order, and nothing else; each format writes what its own
// writer writes.
func TestReportFormats(t *testing.T) {
	outs := ReportFormats()
	if got := outs.List(); got != "table, markdown, csv, json, html or junit" {
		t.Errorf("List %q", got)
	}
	wantFiles := []string{"results.md", "results.csv", "results.json", "report.html"}
	if got := outs.Files(); !slices.Equal(got, wantFiles) {
		t.Errorf("Files %v, want %v", got, wantFiles)
	}
	if _, err := outs.Lookup("xml"); err == nil || err.Error() != `--format must be table, markdown, csv, json, html or junit, not "xml"` {
		t.Errorf("Lookup of an unknown format: %v", err)
	}
	if f, err := outs.Lookup(""); err != nil || f.Name != FormatTable {
		t.Errorf("the default format is %q (%v), want table", f.Name, err)
	}

	r := &Report{Schema: Schema, Cases: []Case{{ID: "a", Arms: []ArmCase{{Arm: "after", PromptTokens: 7, Fits: true}}}}}
	dir := t.TempDir()
	if err := outs.WriteFiles(dir, r); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if slices.Sort(wantFiles); !slices.Equal(names, wantFiles) {
		t.Errorf("--out holds %v, want %v", names, wantFiles)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	var viaFormat bytes.Buffer
	if err := Write(&viaFormat, r, FormatHTML); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Equal(file, html.Bytes()) || !bytes.Equal(viaFormat.Bytes(), html.Bytes()) {
		t.Errorf("--format html and report.html differ from WriteHTML (%v)", err)
	}
}

// TestJoinWords: prose lists of one, two and more words.
func TestJoinWords(t *testing.T) {
	for _, tt := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := JoinWords(tt.words, "or"); got != tt.want {
			t.Errorf("JoinWords(%v) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
