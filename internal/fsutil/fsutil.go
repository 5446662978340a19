// Package fsutil holds the file helpers the commands and the runner share: atomic writes
// and safe file names.
package fsutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileMode and DirMode are the modes output files and folders are created with; the umask
// decides what they end up with (0644 and 0755 under the usual 022), the same for every file a
// command writes (docs/decisions.md).
const (
	FileMode os.FileMode = 0o666
	DirMode  os.FileMode = 0o777
)

// Create creates (or truncates) an output file with FileMode, as os.Create does.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, FileMode)
}

// MkdirAll makes an output folder and its parents with DirMode.
func MkdirAll(path string) error { return os.MkdirAll(path, DirMode) }

// WriteAtomic writes a file through a temporary file beside it and a rename, so that a
// reader never sees a half-written file. The file gets FileMode under the umask, like any
// other output (os.CreateTemp would make it 0600). What write writes is buffered (templates
// write a report in thousands of small pieces, each a system call unbuffered).
func WriteAtomic(path string, write func(io.Writer) error) error {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// createTemp creates a new file beside path, named after it, with FileMode.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			return f, err
		}
	}
}

// SafeName turns a case id (or any text) into a safe file name: no separators, no dot-dot,
// at most 150 bytes.
func SafeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		out = "_"
	}
	if len(out) > 150 {
		out = out[:150]
	}
	return out
}
