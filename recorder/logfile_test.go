package recorder

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenLogCutsTornRecord: a recording whose last record was torn (the recorder killed while
// appending it) is cut back to its last whole record when opened again; a file that is not a
// recording of the kind is refused, untouched.
func TestOpenLogCutsTornRecord(t *testing.T) {
	dir := t.TempDir()
	record := "5 6\nreq..resp.."
	for _, tt := range []struct {
		name, header, whole, torn string
		end                       func(r io.ReaderAt, size int64) (int64, error)
	}{
		{"httprr length line", httprrHeader, httprrHeader + record, "12 3", httprrEnd},
		{"httprr body", httprrHeader, httprrHeader + record + record, "5 6\nreq", httprrEnd},
		{"jsonl", "", "{\"a\":1}\n{\"b\":2}\n", "{\"c\":", lineEnd},
		{"jsonl first line", "", "", "{\"c\":", lineEnd},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.whole+tt.torn), 0o600); err != nil {
				t.Fatal(err)
			}
			l, cut, err := openLog(path, tt.header, tt.end)
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			data, _ := os.ReadFile(path)
			want := tt.whole
			if want == "" {
				want = tt.header
			}
			if string(data) != want || cut != int64(len(tt.torn)) {
				t.Fatalf("cut %d, file %q, want %q", cut, data, want)
			}
		})
	}
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte("my notes\n"), 0o644)
	if _, _, err := openLog(path, httprrHeader, httprrEnd); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("err = %v, want ErrNotRecording", err)
	}
	os.WriteFile(path, []byte(httprrHeader+"x y\nabc"), 0o644)
	if _, _, err := openLog(path, httprrHeader, httprrEnd); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("err = %v, want ErrNotRecording", err)
	}
	if data, _ := os.ReadFile(path); string(data) != httprrHeader+"x y\nabc" {
		t.Fatalf("a refused file was changed: %q", data)
	}
}
