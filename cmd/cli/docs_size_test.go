package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// docsSizeCaps are the most bytes the pages a newcomer reads first may hold, so that each is
// read in one sitting: detail goes to the page of its area, not onto these.
var docsSizeCaps = []struct {
	page string
	max  int
}{
	{"README.md", 12 << 10},
	{"docs/decisions.md", 25 << 10},
	{"docs/performance.md", 12 << 10},
}

// TestDocsSizeCaps: the README, decisions.md and performance.md stay within their caps.
func TestDocsSizeCaps(t *testing.T) {
	for _, c := range docsSizeCaps {
		info, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(c.page)))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > int64(c.max) {
			t.Errorf("%s holds %d bytes, over its cap of %d: move detail to the page of its area", c.page, info.Size(), c.max)
		}
	}
}
