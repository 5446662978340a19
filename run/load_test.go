package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// TestSymlinksFollowedAndTold: a folder's links to files and folders are followed wherever they
// point, each real file is read once, a loop ends, and a broken link or a FIFO is told, not
// skipped silently.
func TestSymlinksFollowedAndTold(t *testing.T) {
	rec := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	root, elsewhere := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "a.json"), rec, 0o644))
	must(os.WriteFile(filepath.Join(elsewhere, "outside.json"), rec, 0o644))
	must(os.MkdirAll(filepath.Join(elsewhere, "more"), 0o755))
	must(os.WriteFile(filepath.Join(elsewhere, "more", "m.json"), rec, 0o644))
	must(os.Symlink(filepath.Join(elsewhere, "outside.json"), filepath.Join(root, "link-outside.json")))
	must(os.Symlink(filepath.Join(elsewhere, "more"), filepath.Join(root, "linked-folder")))
	must(os.Symlink("a.json", filepath.Join(root, "same-as-a.json")))
	must(os.Symlink("nowhere.json", filepath.Join(root, "broken.json")))
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(os.Symlink("..", filepath.Join(root, "sub", "loop")))
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.json"), 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}

	var notes bytes.Buffer
	var ids []string
	load, err := Load(context.Background(), []string{root}, "", &notes, func(c *corpora.Conversation) error {
		ids = append(ids, strings.TrimPrefix(c.ID, root+string(filepath.Separator)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, " "); got != "a.json#0 link-outside.json#0 linked-folder/m.json#0" {
		t.Errorf("conversations read: %s", got)
	}
	if len(load.Problems) != 1 || !strings.Contains(load.Problems[0].Error(), "broken.json: broken symbolic link to nowhere.json") {
		t.Errorf("problems %v, want the broken link", load.Problems)
	}
	for _, want := range []string{"same-as-a.json: the same file as", "sub/loop: a link to a folder already read", "pipe.json: not a regular file"} {
		if !strings.Contains(notes.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, notes.String())
		}
	}
}
