package corpora

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// This file holds how the request-log reader reads its lines: in reads of apiReadSize, a long
// line straight into a buffer of its own, a huge one followed as JSON so that its large
// payloads are streamed past.

// apiReadSize is the size of the reads of a request log: a long line is read straight into its
// buffer up to this much at a time, and no more than this is ever read past a line's end (and
// copied over to the next).
const apiReadSize = 64 << 10

// apiLineInput is what a request-log reader reads its lines from: the bytes read past the last
// line (pending), then the rest of r. Its buffer (of one read) serves the lines that fit in it,
// as a bufio.Reader would; a longer line is read straight into the line's buffer (readInto).
type apiLineInput struct {
	r   io.Reader
	buf []byte // buf[off:] is pending
	off int
	err error // what ended r (io.EOF at its end), once met
}

// errLineFull says that the line goes on past the bytes readSlice returned.
var errLineFull = errors.New("line longer than the read buffer")

// newAPILineInput reads r in reads of up to size bytes (fewer when r says it holds less).
func newAPILineInput(r io.Reader, size int) *apiLineInput {
	if s, ok := r.(*sizedReader); ok {
		size = int(min(int64(size), max(s.left+1, 4<<10)))
	}
	return &apiLineInput{r: r, buf: make([]byte, 0, size)}
}

// readSize is the most a read brings.
func (in *apiLineInput) readSize() int { return cap(in.buf) }

// pending returns the bytes read and not yet returned.
func (in *apiLineInput) pending() []byte { return in.buf[in.off:] }

// readSlice returns the next line with its '\n' as it lies in the input's buffer (valid until
// the next read), as bufio.Reader.ReadSlice does: with the error that ended the input when the
// input ends first (io.EOF: the last line, maybe empty), or with errLineFull and the whole
// buffer when the line is longer than the buffer.
func (in *apiLineInput) readSlice() ([]byte, error) {
	searched := 0
	for {
		p := in.buf[in.off:]
		if i := bytes.IndexByte(p[searched:], '\n'); i >= 0 {
			in.off += searched + i + 1
			return p[:searched+i+1], nil
		}
		searched = len(p)
		switch {
		case in.err != nil:
			in.off = len(in.buf)
			return p, in.err
		case len(p) == cap(in.buf):
			in.off = len(in.buf)
			return p, errLineFull
		}
		n := copy(in.buf[:cap(in.buf)], p)
		in.buf, in.off = in.buf[:n], 0
		n = in.read(in.buf[n:cap(in.buf)])
		in.buf = in.buf[:len(in.buf)+n]
	}
}

// readInto reads the next bytes of a line longer than the input's buffer into p (at most
// readSize bytes, when nothing is pending) and returns those of the line, as readSlice does:
// up to the '\n' (what follows it is pending), or with errLineFull when the line goes on.
// known(got) says how many first bytes of what was read are known to hold no '\n'.
func (in *apiLineInput) readInto(p []byte, known func(got []byte) int) ([]byte, error) {
	if in.err != nil {
		return nil, in.err
	}
	got := p[:in.read(p)]
	from := min(max(known(got), 0), len(got))
	if i := bytes.IndexByte(got[from:], '\n'); i >= 0 {
		i += from
		in.buf, in.off = append(in.buf[:0], got[i+1:]...), 0
		return got[:i+1], nil
	}
	if in.err != nil {
		return got, in.err
	}
	return got, errLineFull
}

// read reads into p from r, keeping r's error; it returns a count above 0 or sets the error.
func (in *apiLineInput) read(p []byte) int {
	for range 100 {
		n, err := in.r.Read(p)
		if err != nil {
			in.err = err
		}
		if n > 0 || err != nil {
			return n
		}
	}
	in.err = io.ErrNoProgress
	return 0
}

// Read reads what is pending, then r (a document is read whole through it).
func (in *apiLineInput) Read(p []byte) (int, error) {
	if pending := in.pending(); len(pending) > 0 {
		n := copy(p, pending)
		in.off += n
		return n, nil
	}
	if in.err != nil {
		return 0, in.err
	}
	if n := in.read(p); n > 0 {
		return n, nil
	}
	return 0, in.err
}

// apiLineTooLongError reports a line past the record cap.
type apiLineTooLongError struct{ size int }

func (e *apiLineTooLongError) Error() string {
	return fmt.Sprintf("line longer than %d bytes; skipped", e.size)
}

// readLine returns the next line with its '\n' (if any). A line longer than the cap is
// consumed and reported as *apiLineTooLongError. io.EOF comes with the last (partial) line.
//
// The records' bytes are referenced by the conversations (Message.Raw, payloads, long texts:
// jwNode.text), so each line needs a buffer of its own. A line that lies whole in the input's
// pending bytes (apiLineInput) is copied out of them once. A longer one is read straight into
// its buffer: what was pending, then reads of up to apiReadSize into the buffer's free tail,
// each searched for the '\n' (what a read brought past it is carried over to the next line).
// That buffer grows by doubling; one of up to apiOwnLine bytes is the reader's scratch (kept
// from line to line) and is copied once into a slice of its exact size, a longer one is
// returned as is (its unused capacity is never written, so never resident). When the input
// says how many bytes are left (a regular file: sizedReader) and the line is past
// apiMaxScratch, or the rest is at most 8 times what is read, the buffer is made once of that
// size (capped at the record cap), so a huge line is read once and held once. A line past
// spillActivate is followed as JSON (lineSpiller, in place, fed from the input's own buffer
// from there on): an image payload over LargeBase64Bytes, or a base64 run of that length in
// any string (a picture in a tool's text, counted as it streams: newSpiller), is streamed past
// and a stand-in kept, and a buffer left mostly empty by that is not kept.
func (rd *requestLogReader) readLine(in *apiLineInput) ([]byte, error) {
	rd.line, rd.spilled, rd.borrowed, rd.same = nil, nil, false, 0
	chunk, err := in.readSlice()
	if err != errLineFull {
		return rd.pendingLine(chunk, err)
	}
	return rd.longLine(in, chunk)
}

// pendingLine returns a line that lies whole in the input's pending bytes (chunk), copied out of
// them: into the reader's scratch when the next line may re-send it (borrows), else into a slice
// of its own.
func (rd *requestLogReader) pendingLine(chunk []byte, err error) ([]byte, error) {
	if len(chunk) > rd.maxRecord {
		return nil, &apiLineTooLongError{size: rd.maxRecord}
	}
	if rd.borrows(len(chunk)) {
		buf := append(rd.lineScratch[:0], chunk...)
		rd.compareWithLast(0, buf)
		rd.borrowScratch()
		return buf, err
	}
	return append([]byte(nil), chunk...), err
}

// longLine reads a line longer than the input's buffer, whose first bytes are chunk, into a
// buffer of its own (readLine).
func (rd *requestLogReader) longLine(in *apiLineInput, chunk []byte) ([]byte, error) {
	err := errLineFull
	var spiller *lineSpiller // set once the line is long enough to hold a large payload
	if rd.lineScratch == nil {
		rd.lineScratch, rd.spareLine = rd.spareLine, nil
	}
	buf := rd.lineScratch[:0]
	rd.lineScratch = nil // given back below when it stays the scratch
	total := 0           // bytes of the line read
	direct := false      // chunk was read straight into buf's free tail, right after its bytes
	for {
		if total += len(chunk); total > rd.maxRecord {
			return nil, rd.skipLine(in, err)
		}
		if !direct {
			buf = rd.room(buf, len(buf)+len(chunk), len(buf)+len(chunk), in)
		}
		switch {
		case spiller != nil:
			buf = spiller.feed(buf, chunk)
		case len(buf)+len(chunk) > rd.spillFrom():
			spiller, buf = rd.startSpilling(buf, chunk, direct)
		case direct: // compared with the last line as it was read
			buf = buf[:len(buf)+len(chunk)]
		default:
			buf = append(buf, chunk...)
			rd.compareWithLast(len(buf)-len(chunk), chunk) // while the chunk is in the cache
		}
		if err != errLineFull {
			return rd.keepLine(buf, spiller), err
		}
		// A line followed as JSON is fed from the input's buffer: a marker written in place may
		// be longer than what the spiller read of the chunk that ends its run.
		if direct = spiller == nil; direct {
			buf, chunk, err = rd.readDirect(in, buf)
		} else {
			chunk, err = in.readSlice()
		}
	}
}

// skipLine consumes the rest of a line past the record cap (err is what its last read returned)
// and reports it as *apiLineTooLongError, or returns the input's error.
func (rd *requestLogReader) skipLine(in *apiLineInput, err error) error {
	for err == errLineFull {
		_, err = in.readSlice()
	}
	if err != nil && err != io.EOF {
		return err
	}
	return &apiLineTooLongError{size: rd.maxRecord}
}

// startSpilling starts following the line as JSON, from buf (the line so far) and chunk (read
// straight after buf's bytes when direct): an image's payload over LargeBase64Bytes, or a base64
// run of a string of that length, is streamed past from here on (as in an MCP transcript). In
// place: the spiller never writes past what it has read (a marker is shorter than the run it
// stands for), but for the short runs of tests.
func (rd *requestLogReader) startSpilling(buf, chunk []byte, direct bool) (*lineSpiller, []byte) {
	spiller := rd.newSpiller()
	out := buf[:0]
	if spiller.limit > 0 {
		out = make([]byte, 0, cap(buf))
	}
	if direct { // one input, as it lies in buf
		return spiller, spiller.feed(out, buf[:len(buf)+len(chunk)])
	}
	return spiller, spiller.feed(spiller.feed(out, buf), chunk)
}

// readDirect reads the line's next bytes straight into buf's free tail (grown when full),
// comparing them with the last line's as they come: what the line shares with the last one
// holds no '\n', so the newline is looked for only after it.
func (rd *requestLogReader) readDirect(in *apiLineInput, buf []byte) ([]byte, []byte, error) {
	if len(buf) == cap(buf) {
		buf = rd.room(buf, len(buf), len(buf)+in.readSize(), in)
	}
	at := len(buf)
	chunk, err := in.readInto(buf[at:min(cap(buf), at+in.readSize())], func(got []byte) int {
		rd.compareWithLast(at, got)
		return rd.same - at
	})
	return buf, chunk, err
}

// keepLine returns the buffer a long line was read into, or what is kept of it: a line whose
// payloads were streamed past does not keep a buffer sized for the whole line; one of up to
// apiOwnLine bytes is copied out of the reader's scratch, which stays the scratch (unless the
// next line may re-send it: borrows).
func (rd *requestLogReader) keepLine(buf []byte, spiller *lineSpiller) []byte {
	if spiller != nil && len(spiller.shifts) > 0 {
		if cap(buf) > apiOwnLine && cap(buf) > 4*len(buf) {
			buf = bytes.Clone(buf)
		}
		rd.line, rd.spilled = buf, spiller
		return buf
	}
	if cap(buf) > apiOwnLine || spiller != nil {
		return buf
	}
	if rd.borrows(len(buf)) {
		rd.borrowScratch()
		return buf
	}
	rd.lineScratch = buf[:0]
	return bytes.Clone(buf) // not make+copy: append's fresh slice is not zeroed first
}

// room returns buf (the line's first bytes) grown to hold at least need bytes, when it holds
// fewer; have is how many bytes of the line were read. When the input says how many bytes are
// left, the rest bounds the line: one buffer, filled once, when the line is huge or the rest
// is at most 8 times what is read (a file that grew since it was opened goes on doubling).
func (rd *requestLogReader) room(buf []byte, have, need int, in *apiLineInput) []byte {
	if need <= cap(buf) {
		return buf
	}
	size := max(need, 2*cap(buf))
	if cap(buf) <= apiMaxScratch && rd.left != nil && rd.left.left > 0 {
		if sized := have + len(in.pending()) + int(min(rd.left.left, int64(rd.maxRecord))); have > apiMaxScratch || sized <= 8*have {
			size = sized
		}
	}
	grown := make([]byte, len(buf), min(size, rd.maxRecord+1))
	copy(grown, buf)
	return grown
}

// apiOwnLine is the largest line buffer a reader keeps for the next line; a line needing more
// keeps its buffer (readLine). Up to spillActivate, so that a line of a few megabytes (a
// request re-sending a conversation's pictures) is copied into the scratch and then once into
// its own slice, not into a buffer that doubles (each doubling zeroed and copied).
const apiOwnLine = spillActivate

// apiMaxScratch is the line length past which readLine sizes the line's buffer from the
// bytes left in the input.
const apiMaxScratch = 64 << 20

// readAllInto appends what r holds to dst as io.ReadAll does, filling dst's capacity first.
func readAllInto(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// apiTrim trims whitespace and a byte order mark around a line.
func apiTrim(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	return bytes.TrimSpace(b)
}
