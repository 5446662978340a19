package corpora

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// agentMaxLine is the most of a line of an agent's session file that is held once its large
// base64 payloads are streamed past (a picture's data, a base64 run in a tool's text: each
// kept as a stand-in of a few hundred bytes); a line holding more is reported and skipped.
const agentMaxLine = 256 << 20

// agentLines calls fn with each non-blank line of a coding agent's session file (JSON Lines)
// and its location (file and line). A line past spillLength is followed as JSON as it is read,
// and each base64 payload or run in it over LargeBase64Bytes is streamed past (counted by the
// emitter's RunCounter, as the request-log readers do), so a line of any size whose bulk is
// base64 is read holding no more than the rest of it. A line that still holds more than
// agentMaxLine is reported and skipped; fn's error stops the reading. fn is also given toFile,
// which maps an offset in the line as read (with stand-ins) to the column in the file's line.
func agentLines(ctx context.Context, name string, r io.Reader, e Emitter, fn func(line []byte, loc Location, toFile func(int64) int64) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	runs := largeRunOptions(e)
	var buf []byte
	for num := 1; ; num++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if cap(buf) > spillActivate {
			buf = nil // a long line's buffer is not kept for the lines after it
		}
		line, spiller, tooLong, rerr := agentLine(br, buf[:0], runs, agentMaxLine)
		buf = line
		if rerr != nil && rerr != io.EOF {
			return &ReadError{Loc: Location{File: name, Line: num}, Err: rerr}
		}
		loc := Location{File: name, Line: num}
		switch {
		case tooLong:
			e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("line holds more than %d MiB besides its base64 payloads: skipped", agentMaxLine>>20)})
		case len(trimSpace(line)) > 0:
			lead := int64(len(line) - len(bytes.TrimLeft(line, " \t\r\n")))
			toFile := func(off int64) int64 { return off }
			if spiller != nil {
				toFile = func(off int64) int64 { return spiller.inputOffset(off+lead) - lead }
			}
			if err := fn(trimSpace(line), loc, toFile); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
	}
}

// agentLine reads one line into buf, following it as JSON past spillLength (textRunSpiller, its
// spiller: nil for a line read as it is). tooLong says that what it holds passed maxLine: the
// rest of it was read past.
func agentLine(br *bufio.Reader, buf []byte, runs LargeRunOptions, maxLine int) (line []byte, spiller *lineSpiller, tooLong bool, err error) {
	for {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		switch {
		case tooLong:
		case spiller != nil:
			buf = spiller.feed(buf, chunk)
		case len(buf)+len(chunk) > spillLength(runs):
			// A run is held until it is long enough to be streamed past: the buffer is made
			// once for that (what is not written of it is never resident).
			spiller = textRunSpiller(runs)
			out := make([]byte, 0, max(2*len(buf)+len(chunk), spiller.runLimit()+2*spillActivate))
			buf = spiller.feed(spiller.feed(out, buf), chunk)
		default:
			buf = append(buf, chunk...)
		}
		if !tooLong && len(buf) > maxLine {
			tooLong, buf = true, nil
		}
		if err != bufio.ErrBufferFull {
			return buf, spiller, tooLong, err
		}
	}
}

// agentRecords decodes each line of a session file into a record of type R and hands it to
// record with its location; a line that does not decode is reported and skipped.
func agentRecords[R any](ctx context.Context, name string, r io.Reader, e Emitter, record func(rec R, loc Location) error) error {
	return agentLines(ctx, name, r, e, func(line []byte, loc Location, toFile func(int64) int64) error {
		var rec R
		if rerr := agentRecord(line, loc, &rec); rerr != nil {
			mapLineOffsets(rerr, loc.File, loc.Line, toFile) // a column after a stand-in counts what it stands for
			e.Problem(rerr)
			return nil
		}
		return record(rec, loc)
	})
}

// agentRequest is a session's request rebuilt as its API's body: {"model": model, key: [lead,
// then the spooled values of refs]}.
func agentRequest(sp *spool, model, key string, lead []byte, refs []spoolRef) ([]byte, error) {
	m, _ := json.Marshal(model)
	k, _ := json.Marshal(key)
	size := len(m) + len(k) + len(lead) + 16
	for _, ref := range refs {
		size += int(ref.n) + 1
	}
	b := make([]byte, 0, size) // the values are read back straight into the body
	b = append(append(append(append(append(b, `{"model":`...), m...), ','), k...), `:[`...)
	b = append(b, lead...)
	for i, ref := range refs {
		if i > 0 || lead != nil {
			b = append(b, ',')
		}
		var err error
		if b, err = sp.appendTo(b, ref); err != nil {
			return nil, err
		}
	}
	return append(b, `]}`...), nil
}

// agentEmit reads a rebuilt body with the reader of its API and emits it as a conversation of
// format f with the provider's usage and the note of what the session does not record; a body
// that does not read is a located problem.
func agentEmit(e Emitter, name string, api apiFormat, body []byte, loc Location, id string, f Format, provider string, usage *ServerUsage, note string) error {
	conv, problems, rerr := apiParseRequest(api, jwNode{raw: body, loc: loc, embedded: true}, id, nil, nil)
	for _, p := range problems {
		e.Problem(p)
	}
	if rerr != nil {
		e.Problem(rerr)
		return nil
	}
	conv.Format, conv.Provider, conv.ServerUsage = f, provider, usage
	conv.Notes = append(conv.Notes, note)
	if err := e.Conversation(conv); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// trimSpace is bytes.TrimSpace for the ASCII white space JSON allows around a value.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// agentRecord decodes one line of a session file into v, or returns a located error: the
// line:column of a syntax error, the column of a value of the wrong type.
func agentRecord(line []byte, loc Location, v any) *ReadError {
	if rerr := jwCheck(jwNode{raw: line, loc: loc}); rerr != nil {
		return rerr
	}
	err := json.Unmarshal(line, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		loc.Offset = max(te.Offset-1, 0)
		return &ReadError{Loc: loc, Err: fmt.Errorf("%s is a JSON %s, want %s", te.Field, te.Value, te.Type)}
	}
	return &ReadError{Loc: loc, Err: err}
}

// spool keeps values read early in a file for use later without holding them all in memory:
// past spoolInMemory bytes they go to a temporary file, deleted by close.
type spool struct {
	mem  []byte
	file *os.File
	size int64
}

// spoolRef is where a value sits in a spool.
type spoolRef struct{ off, n int64 }

// spoolInMemory is how much a spool holds in memory before it moves to a temporary file.
const spoolInMemory = 16 << 20

// put stores b and returns its place.
func (s *spool) put(b []byte) (spoolRef, error) {
	ref := spoolRef{off: s.size, n: int64(len(b))}
	if s.file == nil && s.size+int64(len(b)) > spoolInMemory {
		f, err := os.CreateTemp("", "strata-eval-spool-*")
		if err != nil {
			return ref, fmt.Errorf("spooling a session's records: %w", err)
		}
		if _, err := f.Write(s.mem); err != nil {
			f.Close()
			os.Remove(f.Name())
			return ref, fmt.Errorf("spooling a session's records: %w", err)
		}
		s.file, s.mem = f, nil
	}
	if s.file != nil {
		if _, err := s.file.WriteAt(b, ref.off); err != nil {
			return ref, fmt.Errorf("spooling a session's records: %w", err)
		}
	} else {
		s.mem = append(s.mem, b...)
	}
	s.size += int64(len(b))
	return ref, nil
}

// get returns the value at ref (a fresh copy when spooled to disk).
func (s *spool) get(ref spoolRef) ([]byte, error) {
	if s.file == nil {
		return s.mem[ref.off : ref.off+ref.n : ref.off+ref.n], nil
	}
	return s.appendTo(nil, ref)
}

// appendTo appends the value at ref to b; from disk, it is read straight into b's free room.
func (s *spool) appendTo(b []byte, ref spoolRef) ([]byte, error) {
	if s.file == nil {
		return append(b, s.mem[ref.off:ref.off+ref.n]...), nil
	}
	n := len(b)
	b = slices.Grow(b, int(ref.n))[:n+int(ref.n)]
	if _, err := s.file.ReadAt(b[n:], ref.off); err != nil {
		return nil, fmt.Errorf("reading back a spooled record: %w", err)
	}
	return b, nil
}

// close deletes the spool's temporary file, if any.
func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
}
