//go:build unix

package cli

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputFilesFollowTheUmask: every file replay writes (results.*, report.html, cases.jsonl,
// the --dump files) is created 0666 and every folder 0777 under the umask, one rule for all: 0644
// and 0755 under 022, 0664 and 0775 under 002.
func TestOutputFilesFollowTheUmask(t *testing.T) {
	for _, c := range []struct {
		umask      int
		file, fold fs.FileMode
	}{{0o022, 0o644, 0o755}, {0o002, 0o664, 0o775}} {
		dir := t.TempDir()
		old := syscall.Umask(c.umask)
		code, _, errOut := runCLI(t, "replay", "--summary", "--out", filepath.Join(dir, "out"), "--dump", filepath.Join(dir, "dump"),
			"--arms", "after", "../../corpora/samples/openai-chat-tiny-png.json")
		syscall.Umask(old)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		files := 0
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := c.file
			if d.IsDir() {
				want = c.fold
			} else {
				files++
			}
			if info.Mode().Perm() != want {
				t.Errorf("umask %03o: %s is %04o, want %04o", c.umask, path, info.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if files < 6 {
			t.Errorf("umask %03o: %d files written, want results.json, .md, .csv, cases.jsonl, report.html and the dump", c.umask, files)
		}
	}
}
