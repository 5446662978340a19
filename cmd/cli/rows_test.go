package cli

import (
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
