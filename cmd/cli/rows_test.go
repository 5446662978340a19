package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// TestRowsHelpNamesHostedSources: rows --help names the page of every hosted family, the
// family under its page.
func TestRowsHelpNamesHostedSources(t *testing.T) {
	code, out, errOut := runCLI(t, "rows", "--help")
	if code != ExitOK {
		t.Fatalf("rows --help: exit %d\n%s", code, errOut)
	}
	sources := out[strings.Index(out, "Sources of the hosted families:"):]
	sources = sources[:strings.Index(sources, "\n\n")]
	pages := imagerows.HostedPages()
	if len(pages) < 5 {
		t.Fatalf("%d hosted pages", len(pages))
	}
	for i, p := range pages {
		at := strings.Index(sources, "  "+p.Page+":\n")
		if at < 0 {
			t.Errorf("rows --help does not name %s", p.Page)
			continue
		}
		block := sources[at:]
		if i+1 < len(pages) {
			if end := strings.Index(block, "  "+pages[i+1].Page+":\n"); end > 0 {
				block = block[:end]
			}
		}
		for _, f := range p.Families {
			if !strings.Contains(block, " "+f+",") && !strings.HasSuffix(strings.TrimSpace(block), " "+f) {
				t.Errorf("rows --help does not list %s under %s", f, p.Page)
			}
		}
	}
}

// TestRowsNamesThePositionItAssumes: for a projector whose rows depend on where the picture sits
// (DeepSeek-V4's lead pads align it to 4 positions), rows counts a picture at the start (3
// pads: 274 + 3) and names the range over the positions, in the table and in JSON.
func TestRowsNamesThePositionItAssumes(t *testing.T) {
	proj := writeProjector(t, "deepseek-v4-vision", 0)
	code, out, errOut := runCLI(t, "rows", "--mmproj", proj, "448x448")
	if code != ExitOK {
		t.Fatalf("rows: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "277") || !strings.Contains(out, "rows counted at prompt position 0 (a picture at the start); 274–277 by position") {
		t.Errorf("rows table does not count 277 rows at position 0 and name 274–277 by position:\n%s", out)
	}
	code, out, errOut = runCLI(t, "rows", "--mmproj", proj, "--format", "json", "448x448")
	if code != ExitOK {
		t.Fatalf("rows --format json: exit %d\n%s", code, errOut)
	}
	var got []rowsRow
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Rows.Rows != 277 || got[0].ByPosition == nil || *got[0].ByPosition != (rowsByPosition{Assumed: 0, Min: 274, Max: 277}) {
		t.Errorf("rows JSON %s: want 277 rows at position 0, 274–277 by position", out)
	}
	code, out, _ = runCLI(t, "rows", "--vision", "llamacpp/qwen2.5vl", "--format", "json", "448x448")
	if code != ExitOK || strings.Contains(out, "by_position") {
		t.Errorf("a family whose rows do not depend on position names a range: %s", out)
	}
}
