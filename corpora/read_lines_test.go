package corpora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// apiLineRecord returns a request of one user message, n bytes long with its '\n' (n >= 50).
func apiLineRecord(n int, fill string) string {
	const frame = `{"model":"m","messages":[{"role":"user","content":""}]}` + "\n"
	return frame[:len(frame)-5] + strings.Repeat(fill, n-len(frame)) + frame[len(frame)-5:]
}

// apiLineHistory returns the lines of a conversation re-sent in full with every turn: the
// k-th line holds k tool results of n bytes of base64 each.
func apiLineHistory(turns, n int) string {
	var lines, msgs []string
	for k := range turns {
		msgs = append(msgs, fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":"%s"}`, k, strings.Repeat("iVBORw0KGgo", n/11)))
		lines = append(lines, `{"model":"m","messages":[{"role":"user","content":"look"},`+strings.Join(msgs, ",")+`]}`)
	}
	return strings.Join(lines, "\n") + "\n"
}

// apiLineInputs returns request logs whose lines end at and around every multiple of size
// (a read boundary of a reader reading size bytes at a time) and the lines' other edges: CRLF,
// empty lines, a last line without its '\n', a line past the record cap (apiLineMaxRecord)
// between good ones, lines that re-send the one before, a document, a broken line.
func apiLineInputs(size int) map[string]string {
	size = max(size, 200)
	var boundaries strings.Builder
	for _, n := range []int{size - 1, size, size + 1, 2*size - 1, 2 * size, 2*size + 1, 3*size + 7} {
		boundaries.WriteString(apiLineRecord(max(n, 60), "x"))
		boundaries.WriteString(apiLineRecord(max(n, 60)+1, "y")) // the next one ends one byte later
	}
	long := apiLineRecord(apiLineMaxRecord(size)+100, "z")
	history := apiLineHistory(4, size+5)
	good := apiLineRecord(80, "g")
	return map[string]string{
		"boundaries":        boundaries.String(),
		"no final newline":  boundaries.String() + strings.TrimSuffix(apiLineRecord(2*size+3, "e"), "\n"),
		"final newline cut": strings.TrimSuffix(boundaries.String(), "\n"),
		"crlf":              strings.ReplaceAll(boundaries.String()+history, "\n", "\r\n"),
		"empty lines":       "\n\n" + strings.ReplaceAll(boundaries.String(), "\n", "\n\n \n") + "\n\n",
		"too long":          good + long + good + long + history,
		"too long first":    long + good + history,
		"too long last":     good + strings.TrimSuffix(long, "\n"),
		"history":           history + history,
		"document":          "{\n \"model\": \"m\",\n \"messages\": [{\"role\": \"user\", \"content\": \"" + strings.Repeat("d", 2*size) + "\"}]\n}\n" + good,
		"broken":            good + `{"messages":[}` + "\n" + history,
		"broken first":      `{"messages":[}` + "\n" + good + apiLineRecord(2*size+1, "f") + good, // read as a document: under the cap
	}
}

// apiLineMaxRecord is the record cap of the tests that read apiLineInputs(size).
func apiLineMaxRecord(size int) int { return 8*max(size, 200) + 1000 }

// apiReadWithSize reads input with a chat reader reading size bytes at a time from r (the
// input when nil), taking re-sent messages from lines of 100 bytes on (or never: off); its
// record cap is that of apiLineInputs(capFor).
func apiReadWithSize(t testing.TB, input string, r io.Reader, size, capFor int, off bool) (*Collector, error) {
	t.Helper()
	var c Collector
	rd := newRequestLogReader("log.jsonl", chatAPI(), &c)
	rd.readSize, rd.maxRecord = size, apiLineMaxRecord(capFor)
	rd.resentOff, rd.resentFrom = off, 100
	if r == nil {
		r = &sizedReader{r: strings.NewReader(input), left: int64(len(input))}
	}
	err := rd.read(context.Background(), r)
	return &c, err
}

// apiSameRead fails unless got and want hold deep-equal conversations and the same problems.
func apiSameRead(t testing.TB, what string, got, want *Collector, gotErr, wantErr error) {
	t.Helper()
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
	}
	if len(got.Problems) != len(want.Problems) {
		t.Fatalf("%s: problems:\n%s\nwant:\n%s", what, apiShortProblems(got), apiShortProblems(want))
	}
	for i := range want.Problems {
		if got.Problems[i].Error() != want.Problems[i].Error() || got.Problems[i].Loc != want.Problems[i].Loc {
			t.Fatalf("%s: problem %d: %v, want %v", what, i, got.Problems[i], want.Problems[i])
		}
	}
	if len(got.Conversations) != len(want.Conversations) {
		t.Fatalf("%s: %d conversations, want %d", what, len(got.Conversations), len(want.Conversations))
	}
	for i := range want.Conversations {
		if !reflect.DeepEqual(got.Conversations[i], want.Conversations[i]) {
			t.Fatalf("%s: conversation %d differs:\n%.500v\nwant:\n%.500v", what, i, got.Conversations[i], want.Conversations[i])
		}
	}
}

// TestAPIReadSizesReadTheSame: however many bytes a read brings (one, a few, the default), and
// whatever the reader under it returns (a byte at a time, half of what is asked, the end with
// the last bytes), every input reads as it does from a buffer that holds it whole: the bytes a
// read brings past a line's end are the next line's first ones.
func TestAPIReadSizesReadTheSame(t *testing.T) {
	for _, size := range []int{1, 2, 7, 100, 4096, apiReadSize} {
		for name, input := range apiLineInputs(size) {
			for _, off := range []bool{false, true} {
				want, wantErr := apiReadWithSize(t, input, nil, len(input)+1, size, off)
				if len(want.Conversations)+len(want.Problems) == 0 {
					t.Fatalf("%s: nothing read", name)
				}
				got, err := apiReadWithSize(t, input, nil, size, size, off)
				apiSameRead(t, fmt.Sprintf("%s, reads of %d, resent off %v", name, size, off), got, want, err, wantErr)
			}
			if size > 4096 {
				continue // a byte at a time through reads of 64 KiB: as slow as it sounds
			}
			for wrap, r := range map[string]io.Reader{
				"one byte": iotest.OneByteReader(strings.NewReader(input)),
				"half":     iotest.HalfReader(strings.NewReader(input)),
				"data+EOF": iotest.DataErrReader(strings.NewReader(input)),
				"empty":    &apiEmptyReads{r: strings.NewReader(input)},
			} {
				want, wantErr := apiReadWithSize(t, input, nil, len(input)+1, size, false)
				got, err := apiReadWithSize(t, input, r, size, size, false)
				apiSameRead(t, fmt.Sprintf("%s, reads of %d, %s", name, size, wrap), got, want, err, wantErr)
			}
		}
	}
}

// apiEmptyReads returns nothing (and no error) every other read.
type apiEmptyReads struct {
	r    io.Reader
	skip bool
}

func (e *apiEmptyReads) Read(p []byte) (int, error) {
	if e.skip = !e.skip; e.skip {
		return 0, nil
	}
	return e.r.Read(p)
}

// TestAPIReadLineSplitsLines: readLine returns every line of the input as it is, its '\n'
// included (the last one with io.EOF, and without it when the input ends without one), a line
// past the record cap as an error, whatever the read size; and it carries over no more than
// one read.
func TestAPIReadLineSplitsLines(t *testing.T) {
	for _, size := range []int{1, 3, 64, 4096, apiReadSize} {
		for name, input := range apiLineInputs(size) {
			rd := newRequestLogReader("log.jsonl", chatAPI(), &Collector{})
			rd.maxRecord, rd.resentFrom = apiLineMaxRecord(size), 100
			in := newAPILineInput(iotest.HalfReader(strings.NewReader(input)), size)
			want := strings.SplitAfter(input, "\n")
			for i, w := range want {
				line, err := rd.readLine(in)
				if len(in.pending()) > size {
					t.Fatalf("%s, reads of %d: %d bytes carried over", name, size, len(in.pending()))
				}
				var tooLong *apiLineTooLongError
				switch {
				case len(w) > rd.maxRecord:
					if !errors.As(err, &tooLong) {
						t.Fatalf("%s, reads of %d: line %d of %d bytes: %v, want it too long", name, size, i+1, len(w), err)
					}
					continue
				case i == len(want)-1 && err != io.EOF, i < len(want)-1 && err != nil:
					t.Fatalf("%s, reads of %d: line %d: error %v", name, size, i+1, err)
				}
				if string(line) != w {
					t.Fatalf("%s, reads of %d: line %d is %.80q… (%d bytes), want %.80q… (%d bytes)", name, size, i+1, line, len(line), w, len(w))
				}
				rd.giveBack(line)
			}
		}
	}
}

// apiGrowingFile is an Emitter that appends more to its file when the first conversation is
// read: the file grows while it is read.
type apiGrowingFile struct {
	Collector
	path, more string
}

func (g *apiGrowingFile) Conversation(c *Conversation) error {
	if len(g.Conversations) == 0 {
		f, err := os.OpenFile(g.path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.WriteString(g.more); err != nil {
			return err
		}
	}
	return g.Collector.Conversation(c)
}

// TestAPIReadFileThatGrows: a request log that grows while it is read (the lines appended
// longer than the reads, the first of them crossing the file's size when it was opened) reads
// as the whole file does, and its digest is the whole file's.
func TestAPIReadFileThatGrows(t *testing.T) {
	first := apiLineRecord(100, "a")
	start := first + strings.TrimSuffix(apiLineRecord(3*apiReadSize, "b"), "\n")
	more := "\n" + apiLineHistory(3, 150<<10) + apiLineRecord(70, "c")
	path := filepath.Join(t.TempDir(), "grows.jsonl")
	if err := os.WriteFile(path, []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &apiGrowingFile{path: path, more: more}
	h := sha256.New()
	n, whole, err := ReadFileDigest(context.Background(), path, "", g, h)
	want := sha256.Sum256([]byte(start + more))
	if !whole || n != int64(len(start+more)) || !bytes.Equal(h.Sum(nil), want[:]) {
		t.Errorf("digest of %d bytes (whole %v), want %d", n, whole, len(start+more))
	}
	var all Collector
	wantErr := ReadFile(context.Background(), path, "", &all)
	apiSameRead(t, "a file that grew", &g.Collector, &all, err, wantErr)
	if len(all.Conversations) != 6 {
		t.Errorf("%d conversations, want 6", len(all.Conversations))
	}
}

// FuzzAPIReadSizes: any input reads the same whatever the size of the reads.
func FuzzAPIReadSizes(f *testing.F) {
	for _, input := range apiLineInputs(200) {
		f.Add([]byte(input), uint16(7))
	}
	f.Add([]byte(apiLineRecord(90, "x")+"\r\n\n"+apiLineRecord(60, "y")), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		input := string(data)
		for _, off := range []bool{false, true} {
			want, wantErr := apiReadWithSize(t, input, nil, len(input)+1, 200, off)
			got, err := apiReadWithSize(t, input, nil, 1+int(size)%300, 200, off)
			apiSameRead(t, fmt.Sprintf("reads of %d", 1+int(size)%300), got, want, err, wantErr)
		}
	})
}
