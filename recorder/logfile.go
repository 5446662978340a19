// Package recorder records what clients really send: an HTTP reverse proxy that appends each
// exchange to an httprr trace, and an MCP stdio tap that writes a JSON Lines transcript. Both
// write only whole records, so a file stays readable by replay whatever stops the recorder.
package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// ErrNotRecording says that the file named for a recording exists and is not one of the
// recorder's kind.
var ErrNotRecording = errors.New("exists and is not a recording of this kind: name a new file")

// logFile is a recording opened for appending whole records: append writes one record at the
// end of the file under a lock and, when the write fails half way, truncates the file back to
// where the record began.
type logFile struct {
	mu   sync.Mutex
	f    *os.File
	path string
	size int64
}

// openLog opens (creating with mode 0600) the recording at path for appending. A new or empty
// file gets header first; an existing one must start with it. wholeEnd says where the last
// whole record of an existing file ends: a torn record after it (the recorder killed while
// appending) is cut off, and cut says how many bytes that was.
func openLog(path, header string, wholeEnd func(r io.ReaderAt, size int64) (int64, error)) (l *logFile, cut int64, err error) {
	l, err = openLogFile(path, header)
	if err != nil || l.size == 0 {
		return l, 0, err
	}
	end, err := wholeEnd(l.f, l.size)
	if err != nil {
		l.f.Close()
		return nil, 0, fmt.Errorf("%s: %w (%w)", path, err, ErrNotRecording)
	}
	if end < l.size {
		if err := l.f.Truncate(end); err != nil {
			l.f.Close()
			return nil, 0, err
		}
		cut, l.size = l.size-end, end
	}
	return l, cut, nil
}

func openLogFile(path, header string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	l := &logFile{f: f, path: path, size: st.Size()}
	if header == "" {
		return l, nil
	}
	if l.size == 0 {
		if err := l.append(func(w io.Writer) error { _, err := io.WriteString(w, header); return err }); err != nil {
			f.Close()
			return nil, err
		}
		return l, nil
	}
	head := make([]byte, len(header))
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, []byte(header)) {
		f.Close()
		return nil, fmt.Errorf("%s does not start with %q: %w", path, bytes.TrimSpace([]byte(header)), ErrNotRecording)
	}
	return l, nil
}

// append writes one record at the end of the file: all of it, or (on any error, the
// callback's included) nothing.
func (l *logFile) append(write func(w io.Writer) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("recording closed")
	}
	if _, err := l.f.Seek(l.size, io.SeekStart); err != nil {
		return err
	}
	cw := &countingWriter{w: l.f}
	err := write(cw)
	if err != nil {
		if terr := l.f.Truncate(l.size); terr != nil {
			return fmt.Errorf("%w (and truncating %s back failed: %v)", err, l.path, terr)
		}
		return err
	}
	l.size += cw.n
	return nil
}

// Close closes the file; records being appended finish first.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// countingWriter counts the bytes written through it. ReadFrom lets io.Copy from a spool file
// reach the file's own ReadFrom (copy_file_range on Linux).
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) ReadFrom(r io.Reader) (int64, error) {
	n, err := io.Copy(c.w, r)
	c.n += n
	return n, err
}

// newSpool returns an anonymous file beside the recording (created 0600 and unlinked at once,
// so that nothing is left behind whatever ends the process) that holds one record's bytes
// until the record is complete.
func newSpool(recording string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(recording), ".strata-record-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// lineEnd is the wholeEnd of a JSON Lines file: just after its last newline.
func lineEnd(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := r.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// httprrEnd is the wholeEnd of an httprr trace: the end of its last whole record, found from
// the records' length lines. A length line that cannot be read before the file's end means the
// file is not a trace the recorder may append to.
func httprrEnd(r io.ReaderAt, size int64) (int64, error) {
	off := int64(len(httprrHeader))
	buf := make([]byte, 64)
	for off < size {
		n, err := r.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return 0, err
		}
		nl := bytes.IndexByte(buf[:n], '\n')
		if nl < 0 {
			if off+int64(n) >= size {
				return off, nil // a length line torn at the end
			}
			return 0, fmt.Errorf("the record at byte %d has no length line", off)
		}
		var reqLen, respLen int64
		if _, err := fmt.Sscanf(string(buf[:nl]), "%d %d", &reqLen, &respLen); err != nil || reqLen < 0 || respLen < 0 {
			return 0, fmt.Errorf("the record at byte %d has no length line", off)
		}
		next := off + int64(nl) + 1 + reqLen + respLen
		if next > size {
			return off, nil // a record torn at the end
		}
		off = next
	}
	return off, nil
}
