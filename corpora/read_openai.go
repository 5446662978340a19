package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"
)

// This file holds what the three request-body readers (OpenAI Chat Completions, OpenAI
// Responses, Anthropic Messages) share: splitting a file into records (one request object, a
// JSON array of requests, JSON Lines, proxy-log envelopes), numbering requests, locating
// problems; and the Chat Completions reader itself.

// apiMaxRecordBytes caps one record: a line of JSON Lines, a whole multi-line document, or one
// httprr request. A line longer than this is reported and skipped; memory stays bounded.
const apiMaxRecordBytes = 1 << 30

// apiFormat describes one request-body format.
type apiFormat struct {
	format Format
	// isRequest tells a request body from an envelope around one.
	isRequest func(f jwFields) bool
	// parse fills p.conv from the request body.
	parse func(p *apiParse, req jwNode, f jwFields) *ReadError
	// messages is the member of a request that holds its history, one element a message
	// (resent.go).
	messages string
}

// chatAPI is the OpenAI Chat Completions request format.
func chatAPI() apiFormat {
	return apiFormat{format: FormatOpenAIChat, isRequest: apiHas("messages"), parse: parseChatRequest, messages: "messages"}
}

// apiHas returns a predicate that is true when an object has one of the keys.
func apiHas(keys ...string) func(jwFields) bool {
	return func(f jwFields) bool {
		for _, k := range keys {
			if _, ok := f.has(k); ok {
				return true
			}
		}
		return false
	}
}

// sniffOpenAIChat: a Chat Completions body has messages (tried last: other formats have them too).
func sniffOpenAIChat(f fileHead) bool { return f.has(`"messages"`) }

func readOpenAIChat(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return newAPILogReader(name, chatAPI(), e).read(ctx, r)
}

// apiLogReader reads a file of recorded request bodies of one format.
type apiLogReader struct {
	name      string
	base      string // file base name, for conversation ids
	format    apiFormat
	e         Emitter
	maxRecord int
	readSize  int // the size of a read (apiLineInput)
	next      int // index of the next request in the file
	// lineScratch gathers a line longer than the bufio buffer (see readLine); spareLine is the
	// next one while a line read into it is kept (see borrowed).
	lineScratch, spareLine []byte
	// left, when the input knows its size, says how many bytes are left in it (readLine).
	left *sizedReader
	// runs, when not nil, counts the base64 runs of tool text streamed past (and may set
	// their length); see newSpiller.
	runs LargeRunOptions
	// line is the last line read and spilled the spiller that streamed payloads or runs past
	// in it (nil when none was): a request's size is then the one it had in the file.
	line    []byte
	spilled *lineSpiller
	// borrowed says that the last line read lies in the reader's own buffer, to be copied
	// (all of it, or what it does not re-send: resent.go). Lines of resentFrom bytes or more
	// are read so unless resentOff; memo is what the reader keeps of the last line, and
	// recording what the parse of the line in hand keeps for the next.
	borrowed   bool
	resentOff  bool
	resentFrom int
	memo       *resentMemo
	same       int // how many first bytes the line in hand shares with memo's (compareWithLast)
	recording  *resentParse
	// resentTaken counts the messages taken from a line before (for tests).
	resentTaken int
}

func newAPILogReader(name string, format apiFormat, e Emitter) *apiLogReader {
	return &apiLogReader{name: name, base: name, format: format, e: e, maxRecord: apiMaxRecordBytes, runs: largeRunOptions(e),
		resentFrom: resentDefaultFrom, readSize: apiReadSize}
}

// borrows says whether a line of n bytes is read into the reader's own buffer (see borrowed).
func (rd *apiLogReader) borrows(n int) bool { return !rd.resentOff && n >= rd.resentFrom }

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
func (rd *apiLogReader) readLine(in *apiLineInput) ([]byte, error) {
	rd.line, rd.spilled, rd.borrowed, rd.same = nil, nil, false, 0
	chunk, err := in.readSlice()
	if err != errLineFull {
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
			for err == errLineFull {
				_, err = in.readSlice()
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, &apiLineTooLongError{size: rd.maxRecord}
		}
		if !direct {
			buf = rd.room(buf, len(buf)+len(chunk), len(buf)+len(chunk), in)
		}
		switch {
		case spiller != nil:
			buf = spiller.feed(buf, chunk)
		case len(buf)+len(chunk) > rd.spillFrom():
			// From here on the line is followed as JSON, and an image's payload over
			// LargeBase64Bytes, or a base64 run of a string of that length, is streamed past
			// (as in an MCP transcript). In place: the spiller never writes past what it has
			// read (a marker is shorter than the run it stands for), but for the short runs of
			// tests.
			spiller = rd.newSpiller()
			out := buf[:0]
			if spiller.limit > 0 {
				out = make([]byte, 0, cap(buf))
			}
			if direct { // one input, as it lies in buf
				buf = spiller.feed(out, buf[:len(buf)+len(chunk)])
			} else {
				buf = spiller.feed(spiller.feed(out, buf), chunk)
			}
		case direct: // compared with the last line as it was read
			buf = buf[:len(buf)+len(chunk)]
		default:
			buf = append(buf, chunk...)
			rd.compareWithLast(len(buf)-len(chunk), chunk) // while the chunk is in the cache
		}
		if err == errLineFull {
			// A line followed as JSON is fed from the input's buffer: a marker written in
			// place may be longer than what the spiller read of the chunk that ends its run.
			if direct = spiller == nil; direct {
				if len(buf) == cap(buf) {
					buf = rd.room(buf, len(buf), len(buf)+in.readSize(), in)
				}
				at := len(buf)
				chunk, err = in.readInto(buf[at:min(cap(buf), at+in.readSize())], func(got []byte) int {
					// what the line shares with the last one holds no '\n': the newline is
					// looked for only after it
					rd.compareWithLast(at, got)
					return rd.same - at
				})
			} else {
				chunk, err = in.readSlice()
			}
			continue
		}
		if spiller != nil && len(spiller.shifts) > 0 {
			// a payload was streamed past: the buffer sized for the whole line is not kept
			if cap(buf) > apiOwnLine && cap(buf) > 4*len(buf) {
				buf = bytes.Clone(buf)
			}
			rd.line, rd.spilled = buf, spiller
			return buf, err
		}
		if cap(buf) > apiOwnLine || spiller != nil {
			return buf, err
		}
		if rd.borrows(len(buf)) {
			rd.borrowScratch()
			return buf, err
		}
		rd.lineScratch = buf[:0]
		return bytes.Clone(buf), err // not make+copy: append's fresh slice is not zeroed first
	}
}

// room returns buf (the line's first bytes) grown to hold at least need bytes, when it holds
// fewer; have is how many bytes of the line were read. When the input says how many bytes are
// left, the rest bounds the line: one buffer, filled once, when the line is huge or the rest
// is at most 8 times what is read (a file that grew since it was opened goes on doubling).
func (rd *apiLogReader) room(buf []byte, have, need int, in *apiLineInput) []byte {
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

// read splits the input into records. When the first non-blank line is a whole JSON value the
// input is JSON Lines (one request, or one array of requests, a line); otherwise it is read
// as one (multi-line) document, a stream of JSON values.
func (rd *apiLogReader) read(ctx context.Context, r io.Reader) error {
	rd.left, _ = r.(*sizedReader)
	br := newAPILineInput(r, rd.readSize)
	var prefix []byte
	lineNo := 0
	for {
		line, err := rd.readLine(br)
		var tooLong *apiLineTooLongError
		if errors.As(err, &tooLong) {
			lineNo++
			rd.e.Problem(&ReadError{Loc: Location{File: rd.name, Line: lineNo}, Err: err})
			rd.next++
			return rd.lineMode(ctx, br, lineNo)
		}
		if err != nil && err != io.EOF {
			return &ReadError{Loc: Location{File: rd.name, Line: lineNo + 1}, Err: err}
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		lineNo++
		t := apiTrim(line)
		if len(t) == 0 {
			prefix = append(prefix, line...)
			if err == io.EOF {
				return nil
			}
			continue
		}
		if jwValid(t) || !(t[0] == '{' || t[0] == '[' || t[0] == '"') {
			if herr := rd.handleLine(ctx, line, lineNo); herr != nil {
				return herr
			}
			if err == io.EOF {
				return nil
			}
			return rd.lineMode(ctx, br, lineNo)
		}
		limit := int64(rd.maxRecord-len(prefix)-len(line)) + 1
		size := int64(len(prefix) + len(line) + 512)
		if rd.left != nil { // the document is the rest of the file: read into one buffer of its size
			size = int64(len(prefix)+len(line)+len(br.pending())) + min(rd.left.left, limit) + 1
		}
		data := append(append(make([]byte, 0, size), prefix...), line...)
		data, rerr := readAllInto(data, io.LimitReader(br, limit))
		if rerr != nil {
			return &ReadError{Loc: Location{File: rd.name, Line: lineNo}, Err: rerr}
		}
		if len(data) > rd.maxRecord {
			return &ReadError{Loc: Location{File: rd.name}, Err: fmt.Errorf("document larger than %d bytes", rd.maxRecord)}
		}
		return rd.documentMode(ctx, data)
	}
}

// lineMode reads the remaining lines of a JSON Lines file; lineNo is the number of the last line read.
func (rd *apiLogReader) lineMode(ctx context.Context, br *apiLineInput, lineNo int) error {
	for {
		line, err := rd.readLine(br)
		var tooLong *apiLineTooLongError
		switch {
		case errors.As(err, &tooLong):
			lineNo++
			rd.e.Problem(&ReadError{Loc: Location{File: rd.name, Line: lineNo}, Err: err})
			rd.next++
			continue
		case err != nil && err != io.EOF:
			return &ReadError{Loc: Location{File: rd.name, Line: lineNo + 1}, Err: err}
		case len(line) == 0 && err == io.EOF:
			return nil
		}
		lineNo++
		if herr := rd.handleLine(ctx, line, lineNo); herr != nil {
			return herr
		}
		if err == io.EOF {
			return nil
		}
	}
}

// handleLine reads one line of JSON Lines.
func (rd *apiLogReader) handleLine(ctx context.Context, line []byte, lineNo int) error {
	lead := len(line) - len(bytes.TrimLeft(bytes.TrimPrefix(line, []byte("\ufeff")), " \t\r\n")) // bytes before the value
	t := apiTrim(line)
	if rd.borrowed {
		rd.borrowed = false
		return rd.handleBorrowed(ctx, line, t, lead, lineNo)
	}
	rd.setMemo(nil)
	if len(t) == 0 {
		return nil
	}
	return rd.handleRecord(ctx, jwNode{raw: t, loc: Location{File: rd.name, Line: lineNo, Offset: int64(lead)}})
}

// documentMode reads a whole document held in memory: one or more JSON values.
func (rd *apiLogReader) documentMode(ctx context.Context, data []byte) error {
	rd.line, rd.spilled = nil, nil // the document is read whole, nothing streamed past
	rd.borrowed = false            // its lines are its own: none re-sends what the last did
	pos := 0
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		pos = 3
	}
	for {
		start := jwSkipSpace(data, pos)
		if start >= len(data) {
			return nil
		}
		// A valid value is found in place (encoding/json's Decoder would copy the document
		// into a buffer of its own); only a broken one is handed to the Decoder, for its error.
		end, err := jwValueEnd(data, start)
		if err != nil || !jwValid(data[start:end]) {
			dec := json.NewDecoder(bytes.NewReader(data[start:]))
			if err := dec.Decode(new(jwSyntaxOnly)); err != nil {
				errOff := len(data)
				var se *json.SyntaxError
				if errors.As(err, &se) {
					errOff = min(start+int(max(se.Offset-1, 0)), len(data)) // the byte that broke the syntax
				}
				line, col := apiLineCol(data, errOff)
				startLine, _ := apiLineCol(data, start)
				rd.e.Problem(&ReadError{Loc: Location{File: rd.name, Line: line, Offset: int64(col)},
					Err: fmt.Errorf("invalid JSON in the value starting at line %d: %w", startLine, err)})
				rd.next++
				// Go on line by line after the line the broken value started on: a JSON Lines
				// file whose first line is broken looks like a document until here.
				nl := bytes.IndexByte(data[start:], '\n')
				if nl < 0 {
					return nil
				}
				return rd.fallbackLines(ctx, data[start+nl+1:], startLine+1)
			}
			end = start + int(dec.InputOffset())
		}
		rec := jwNode{raw: data[start:end], loc: Location{File: rd.name, Offset: int64(start)}}
		if err := rd.handleRecord(ctx, rec); err != nil {
			return err
		}
		pos = end
	}
}

// fallbackLines reads what follows a broken value as JSON Lines, taking only lines that start
// with '{' or '[' in column 1 (the inner lines of a pretty-printed document are indented, so
// they are not mistaken for records).
func (rd *apiLogReader) fallbackLines(ctx context.Context, data []byte, lineNo int) error {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl+1], data[nl+1:]
		} else {
			data = nil
		}
		if len(line) > 0 && (line[0] == '{' || line[0] == '[') {
			if err := rd.handleLine(ctx, line, lineNo); err != nil {
				return err
			}
		}
		lineNo++
	}
	return nil
}

// apiLineCol returns the 1-based line of data[off] and its 0-based byte offset in that line.
func apiLineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = off - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

// handleRecord reads one top-level value: a request, an envelope, or an array of them.
func (rd *apiLogReader) handleRecord(ctx context.Context, rec jwNode) error {
	if err := jwCheck(rec); err != nil {
		rd.e.Problem(err)
		rd.next++
		return nil
	}
	switch rec.kind() {
	case '[':
		return rec.elements(func(_ int, v jwNode) error { return rd.handleRequest(ctx, v) })
	case '{', '"':
		return rd.handleRequest(ctx, rec)
	}
	rd.e.Problem(rec.errorf("expected a request object or an array of requests, found %s", rec.kindName()))
	rd.next++
	return nil
}

// handleRequest reads one request and emits its conversation; a bad request is reported and
// skipped. Only the emitter's own error (or cancellation) stops the reader.
func (rd *apiLogReader) handleRequest(ctx context.Context, n jwNode) error {
	if err := ctx.Err(); err != nil {
		return &ReadError{Loc: n.loc, Err: err}
	}
	id := fmt.Sprintf("%s#%d", rd.base, rd.next)
	rd.next++
	rs := rd.recording
	rd.recording = nil // for the line's request only
	conv, problems, rerr := apiParseRequest(rd.format, n, id, rd.recordedSize, rs)
	if rd.spilled != nil && n.loc.Line > 0 {
		// places after a stand-in are moved to where they are in the file
		toFile := rd.spilled.inputOffset
		mapLineOffsets(conv, rd.name, n.loc.Line, toFile)
		mapLineOffsets(&problems, rd.name, n.loc.Line, toFile)
		mapLineOffsets(rerr, rd.name, n.loc.Line, toFile)
	}
	for _, p := range problems {
		rd.e.Problem(p)
	}
	if rerr != nil {
		rd.e.Problem(rerr)
		return nil
	}
	if rs != nil {
		rs.emitted = true
	}
	if err := rd.e.Conversation(conv); err != nil {
		return fmt.Errorf("read %s: %w", rd.name, err)
	}
	return nil
}

// recordedSize is the size raw, a value of the last line read, had in the file: its length,
// with what stands for each payload or run streamed past in it counted as the characters the
// file holds there.
func (rd *apiLogReader) recordedSize(raw []byte) int64 {
	start := cap(rd.line) - cap(raw) // raw is a part of the line when it lies in it
	if rd.spilled == nil || start < 0 || start+len(raw) > len(rd.line) || len(raw) == 0 || &rd.line[start] != &raw[0] {
		return int64(len(raw))
	}
	return rd.spilled.inputOffset(int64(start+len(raw))) - rd.spilled.inputOffset(int64(start))
}

// apiParseRequest reads one request body (or envelope) into a conversation (recordedSize, when
// not nil, gives the size a value had in the file). problems are
// located issues that did not stop the request (a broken data URL, say).
func apiParseRequest(format apiFormat, n jwNode, id string, recordedSize func(raw []byte) int64, rs *resentParse) (*Conversation, []*ReadError, *ReadError) {
	req, f, rerr := apiUnwrap(n, format)
	if rerr != nil {
		return nil, nil, rerr
	}
	if rs != nil && (len(req.raw) != len(n.raw) || unsafe.SliceData(req.raw) != unsafe.SliceData(n.raw)) {
		// an envelope: its messages are not taken or remembered
		if len(rs.take) > 0 {
			rs.failed = true
			return nil, nil, n.errorf("%w", errResentMismatch)
		}
		rs = nil
	}
	size := int64(len(req.raw))
	if recordedSize != nil {
		size = recordedSize(req.raw)
	}
	p := &apiParse{
		conv:      &Conversation{ID: id, Format: format.format, Source: req.loc, Bytes: size, Messages: []Message{}},
		callNames: map[string]string{},
		resent:    rs,
	}
	if rerr := format.parse(p, req, f); rerr != nil {
		return nil, p.problems, rerr
	}
	return p.conv, p.problems, nil
}

// apiEnvelopeKeys are the members of a proxy-log record that may hold the request body.
var apiEnvelopeKeys = [...]string{"request", "body", "request_body", "requestBody"}

// apiUnwrap finds the request body in n: n itself, or (up to three levels down) the request,
// body, request_body or requestBody member, which may be an object or a JSON string. Pointers
// into a stringified body continue past the string's own pointer.
func apiUnwrap(n jwNode, format apiFormat) (jwNode, jwFields, *ReadError) {
	for depth := 0; ; depth++ {
		if n.kind() == '"' {
			b, rerr := n.textBytes()
			if rerr != nil {
				return n, jwFields{}, rerr
			}
			inner := jwNode{raw: bytes.TrimSpace(b), loc: n.loc, embedded: true}
			if rerr := jwCheck(inner); rerr != nil {
				rerr.Err = fmt.Errorf("stringified request body: %w", rerr.Err)
				return n, jwFields{}, rerr
			}
			n = inner
		}
		if n.kind() != '{' {
			return n, jwFields{}, n.errorf("expected a %s request object, found %s", format.format, n.kindName())
		}
		f, err := n.fields()
		if err != nil {
			return n, jwFields{}, asReadError(n, err)
		}
		if format.isRequest(f) {
			return n, f, nil
		}
		found := false
		if depth < 3 {
			for _, k := range apiEnvelopeKeys {
				if v, ok := f.has(k); ok && (v.kind() == '{' || v.kind() == '"') {
					n, found = v, true
					break
				}
			}
		}
		if !found {
			return n, jwFields{}, n.errorf("not a %s request: no messages or input member", format.format)
		}
	}
}

// apiParse collects one conversation.
type apiParse struct {
	conv     *Conversation
	problems []*ReadError
	// callNames maps tool call ids to tool names, to name the results (set by nameCall).
	callNames map[string]string
	// resent, when not nil, is what the parse takes from the last line and keeps for the next
	// (resent.go).
	resent *resentParse
}

// note records a reader remark on the conversation.
func (p *apiParse) note(format string, args ...any) {
	p.conv.Notes = append(p.conv.Notes, fmt.Sprintf(format, args...))
}

// opaque keeps a value verbatim: the Part's Text is its raw JSON as recorded.
func apiOpaque(n jwNode) Part {
	return Part{Kind: PartOpaque, Text: string(n.raw), Loc: n.loc}
}

// opaqueNoted keeps a value verbatim and notes why.
func (p *apiParse) opaqueNoted(n jwNode, what string) Part {
	p.note("%s: %s kept opaque (not read)", n.loc.Pointer, what)
	return apiOpaque(n)
}

// imageURL turns an image URL string into a Part: a data URL becomes an image with its bytes
// decoded; anything else a reference that is never fetched. A data URL that does not decode
// is reported as a problem and kept opaque, and the conversation goes on.
func (p *apiParse) imageURL(urlNode jwNode, origin Origin, detail string) (Part, *ReadError) {
	u, rerr := urlNode.textBytes()
	if rerr != nil {
		return Part{}, rerr
	}
	if d, ok := jwParseDataURL(u); ok {
		if l, ok := parseLargeMarker(string(d.Payload)); ok && d.Base64 {
			return p.largeImage(urlNode, l, &Image{DeclaredType: d.MediaType, Origin: origin, Encoding: "data-url", Detail: detail}, "image data URL", "undecodable data URL")
		}
		data, err := d.decode()
		if err != nil {
			p.problems = append(p.problems, urlNode.errorf("image data URL: %v", err))
			return p.opaqueNoted(urlNode, "undecodable data URL"), nil
		}
		img := &Image{Data: data, DeclaredType: d.MediaType, Origin: origin, Encoding: "data-url", Detail: detail}
		return Part{Kind: PartImage, Image: img, Loc: urlNode.loc}, nil
	}
	target := string(u)
	reason := "remote image URL; never fetched"
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		reason = "image URL that is neither a data URL nor http(s); not opened"
	}
	return Part{Kind: PartReference, Ref: &Reference{Kind: "url", Target: target, Origin: origin, Reason: reason}, Loc: urlNode.loc}, nil
}

// base64Image turns a bare base64 field into an image part; bad base64 is reported and kept opaque.
func (p *apiParse) base64Image(dataNode jwNode, mediaType string, origin Origin) (Part, *ReadError) {
	b, rerr := dataNode.textBytes()
	if rerr != nil {
		return Part{}, rerr
	}
	if l, ok := parseLargeMarker(string(b)); ok {
		return p.largeImage(dataNode, l, &Image{DeclaredType: mediaType, Origin: origin, Encoding: "base64"}, "image data", "undecodable base64 image")
	}
	data, err := jwDecodeBase64(b)
	if err != nil {
		p.problems = append(p.problems, dataNode.errorf("image data: %v", err))
		return p.opaqueNoted(dataNode, "undecodable base64 image"), nil
	}
	img := &Image{Data: data, DeclaredType: mediaType, Origin: origin, Encoding: "base64"}
	return Part{Kind: PartImage, Image: img, Loc: dataNode.loc}, nil
}

// largeImage is the image part of a payload streamed past while the line was read (l): img
// with l standing for its bytes, or, when l cannot be decoded, a located problem (what: the
// field) and an opaque part (note).
func (p *apiParse) largeImage(n jwNode, l *LargeBase64, img *Image, what, note string) (Part, *ReadError) {
	if l.Err != "" {
		p.problems = append(p.problems, n.errorf("%s: %s", what, l.Err))
		return p.opaqueNoted(n, note), nil
	}
	img.Large = l
	return Part{Kind: PartImage, Image: img, Loc: n.loc}, nil
}

// apiTextPart returns a text part, or false for an empty string.
func apiTextPart(n jwNode) (Part, bool, *ReadError) {
	s, rerr := n.text()
	if rerr != nil {
		return Part{}, false, rerr
	}
	return Part{Kind: PartText, Text: s, Loc: n.loc}, s != "", nil
}

// apiArguments returns tool-call arguments as JSON text: a string as is, any other JSON
// value compacted (key order kept), null or absent as "".
func apiArguments(n jwNode) (string, *ReadError) {
	switch {
	case n.isNull():
		return "", nil
	case n.kind() == '"':
		return n.text()
	}
	return string(jwCompact(n.raw)), nil
}

// asReadError converts the error of a walk callback back to *ReadError.
func asReadError(n jwNode, err error) *ReadError {
	if err == nil {
		return nil
	}
	var re *ReadError
	if errors.As(err, &re) {
		return re
	}
	return n.errorf("%v", err)
}

// parseChatRequest reads an OpenAI Chat Completions request body.
func parseChatRequest(p *apiParse, req jwNode, f jwFields) *ReadError {
	var rerr *ReadError
	if p.conv.Model, rerr = f.str("model"); rerr != nil {
		return rerr
	}
	if rerr := p.chatTools(f); rerr != nil {
		return rerr
	}
	return p.messages(f, p.chatMessage)
}

// chatTools reads tools (and the deprecated functions) into ToolDefs.
func (p *apiParse) chatTools(f jwFields) *ReadError {
	for _, key := range []string{"tools", "functions"} {
		list, ok := f.has(key)
		if !ok || list.isNull() {
			continue
		}
		err := list.elements(func(_ int, t jwNode) error {
			tf, err := t.fields()
			if err != nil {
				return err
			}
			if fn, ok := tf.has("function"); ok && fn.kind() == '{' {
				if tf, err = fn.fields(); err != nil {
					return err
				}
			}
			def, rerr := apiToolDef(tf, "parameters")
			if rerr != nil {
				return rerr
			}
			if def.Name == "" {
				def.Name, _ = tf.str("type")
			}
			p.conv.Tools = append(p.conv.Tools, def)
			return nil
		})
		if err != nil {
			return asReadError(list, err)
		}
	}
	return nil
}

// apiToolDef reads name, description and the schema member of a tool declaration.
func apiToolDef(f jwFields, schemaKey string) (ToolDef, *ReadError) {
	var def ToolDef
	var rerr *ReadError
	if def.Name, rerr = f.str("name"); rerr != nil {
		return def, rerr
	}
	if def.Description, rerr = f.str("description"); rerr != nil {
		return def, rerr
	}
	if s, ok := f.has(schemaKey); ok && !s.isNull() {
		def.Parameters = json.RawMessage(s.raw)
	}
	return def, nil
}

// chatMessage reads one Chat Completions message.
func (p *apiParse) chatMessage(m jwNode) *ReadError {
	f, err := m.fields()
	if err != nil {
		return asReadError(m, err)
	}
	role, rerr := f.str("role")
	if rerr != nil {
		return rerr
	}
	msg := Message{Loc: m.loc, Raw: json.RawMessage(m.raw), Parts: []Part{}}
	if msg.Name, rerr = f.str("name"); rerr != nil {
		return rerr
	}
	content := f.get("content")
	switch role {
	case "system", "developer":
		msg.Role = RoleSystem
		msg.Parts, rerr = p.chatContent(content, OriginUser)
	case "user":
		msg.Role = RoleUser
		msg.Parts, rerr = p.chatContent(content, OriginUser)
	case "assistant":
		msg.Role = RoleAssistant
		rerr = p.chatAssistant(&msg, f)
	case "tool", "function":
		msg.Role = RoleTool
		rerr = p.chatToolResult(&msg, f, role == "function")
	case "":
		return m.errorf("message has no role")
	default:
		return f.get("role").errorf("unknown message role %q", role)
	}
	if rerr != nil {
		return rerr
	}
	p.conv.Messages = append(p.conv.Messages, msg)
	return nil
}

// chatAssistant reads an assistant message: reasoning (opaque), content, refusal, tool calls.
func (p *apiParse) chatAssistant(msg *Message, f jwFields) *ReadError {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if v, ok := f.has(key); ok && !v.isNull() && string(v.raw) != `""` {
			msg.Parts = append(msg.Parts, apiOpaque(v))
		}
	}
	parts, rerr := p.chatContent(f.get("content"), OriginAssistant)
	if rerr != nil {
		return rerr
	}
	msg.Parts = append(msg.Parts, parts...)
	if v, ok := f.has("refusal"); ok && !v.isNull() {
		part, nonEmpty, rerr := apiTextPart(v)
		if rerr != nil {
			return rerr
		}
		if nonEmpty {
			msg.Parts = append(msg.Parts, part)
		}
	}
	if calls, ok := f.has("tool_calls"); ok && !calls.isNull() {
		err := calls.elements(func(_ int, c jwNode) error {
			part, rerr := p.chatToolCall(c)
			if rerr != nil {
				return rerr
			}
			msg.Parts = append(msg.Parts, part)
			return nil
		})
		if err != nil {
			return asReadError(calls, err)
		}
	}
	if fc, ok := f.has("function_call"); ok && !fc.isNull() {
		part, rerr := p.chatFunction(fc, "")
		if rerr != nil {
			return rerr
		}
		msg.Parts = append(msg.Parts, part)
	}
	return nil
}

// chatToolCall reads one tool_calls entry.
func (p *apiParse) chatToolCall(c jwNode) (Part, *ReadError) {
	cf, err := c.fields()
	if err != nil {
		return Part{}, asReadError(c, err)
	}
	id, rerr := cf.str("id")
	if rerr != nil {
		return Part{}, rerr
	}
	fn, ok := cf.has("function")
	if !ok {
		fn, ok = cf.has("custom")
	}
	if !ok {
		return p.opaqueNoted(c, "tool call without a function"), nil
	}
	part, rerr := p.chatFunction(fn, id)
	part.Loc = c.loc
	return part, rerr
}

// chatFunction reads {name, arguments} (or a custom tool's {name, input}).
func (p *apiParse) chatFunction(fn jwNode, id string) (Part, *ReadError) {
	ff, err := fn.fields()
	if err != nil {
		return Part{}, asReadError(fn, err)
	}
	name, rerr := ff.str("name")
	if rerr != nil {
		return Part{}, rerr
	}
	argNode, ok := ff.has("arguments")
	if !ok {
		argNode = ff.get("input")
	}
	args, rerr := apiArguments(argNode)
	if rerr != nil {
		return Part{}, rerr
	}
	if id != "" {
		p.nameCall(id, name)
	}
	return Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}, Loc: fn.loc}, nil
}

// chatToolResult reads a tool (or deprecated function) message.
func (p *apiParse) chatToolResult(msg *Message, f jwFields, legacyFunction bool) *ReadError {
	var rerr *ReadError
	if !legacyFunction {
		if msg.ToolCallID, rerr = f.str("tool_call_id"); rerr != nil {
			return rerr
		}
	}
	name := msg.Name
	if name == "" {
		name = p.callNames[msg.ToolCallID]
	}
	res := &ToolResult{CallID: msg.ToolCallID, Name: name}
	content, ok := f.has("content")
	loc := content.loc
	if !ok {
		loc = msg.Loc
	}
	if done, rerr := apiToolResultContent(res, content, func() ([]Part, *ReadError) { return p.chatContent(content, OriginTool) }); rerr != nil {
		return rerr
	} else if !done {
		return content.errorf("tool message content must be a string or an array of parts, found %s", content.kindName())
	}
	msg.Parts = []Part{{Kind: PartToolResult, ToolResult: res, Loc: loc}}
	return nil
}

// apiToolResultContent fills res from a tool result's recorded value when it is a string, null,
// absent (the result is text) or an array (parts reads it); done is false for any other shape,
// which the caller handles or reports.
func apiToolResultContent(res *ToolResult, v jwNode, parts func() ([]Part, *ReadError)) (done bool, rerr *ReadError) {
	switch v.kind() {
	case '"':
		res.Text, rerr = v.text()
		res.IsText = true
	case 'n', 0:
		res.IsText = true
	case '[':
		res.Parts, rerr = parts()
	default:
		return false, nil
	}
	return true, rerr
}

// messages reads the "messages" array of a request, one message at a time.
func (p *apiParse) messages(f jwFields, message func(jwNode) *ReadError) *ReadError {
	msgs := f.get("messages")
	if msgs.kind() != '[' {
		return msgs.errorf("messages must be an array, found %s", msgs.kindName())
	}
	return p.eachMessage(msgs, message)
}

// chatContent reads a Chat Completions content value: absent, null, a string or an array of parts.
func (p *apiParse) chatContent(content jwNode, origin Origin) ([]Part, *ReadError) {
	return apiContentParts(content, "parts", func(el jwNode) (Part, bool, *ReadError) { return p.chatPart(el, origin) })
}

// apiContentParts reads content that is absent, a string (one text part, none when empty), or
// an array whose elements part reads (keep false drops an element); noun names the elements in
// the error for any other shape. Every API reader's content goes through it.
func apiContentParts(content jwNode, noun string, part func(jwNode) (Part, bool, *ReadError)) ([]Part, *ReadError) {
	switch content.kind() {
	case 0, 'n':
		return []Part{}, nil
	case '"':
		p, nonEmpty, rerr := apiTextPart(content)
		if rerr != nil || !nonEmpty {
			return []Part{}, rerr
		}
		return []Part{p}, nil
	case '[':
	default:
		return nil, content.errorf("content must be a string or an array of %s, found %s", noun, content.kindName())
	}
	parts := []Part{}
	err := content.elements(func(_ int, el jwNode) error {
		p, keep, rerr := part(el)
		if rerr != nil {
			return rerr
		}
		if keep {
			parts = append(parts, p)
		}
		return nil
	})
	return parts, asReadError(content, err)
}

// chatPart reads one content part; unknown parts are kept opaque.
func (p *apiParse) chatPart(el jwNode, origin Origin) (Part, bool, *ReadError) {
	if el.kind() == '"' { // a bare string in a content array, as some clients write
		part, _, rerr := apiTextPart(el)
		return part, true, rerr
	}
	if el.kind() != '{' {
		return p.opaqueNoted(el, "content part that is not an object"), true, nil
	}
	f, err := el.fields()
	if err != nil {
		return Part{}, false, asReadError(el, err)
	}
	typ, rerr := f.str("type")
	if rerr != nil {
		return Part{}, false, rerr
	}
	switch typ {
	case "text", "input_text", "output_text":
		part, _, rerr := apiTextPart(f.get("text"))
		return part, true, rerr
	case "refusal":
		part, _, rerr := apiTextPart(f.get("refusal"))
		return part, true, rerr
	case "image_url":
		iu := f.get("image_url")
		detail := ""
		urlNode := iu
		if iu.kind() == '{' {
			iuf, err := iu.fields()
			if err != nil {
				return Part{}, false, asReadError(iu, err)
			}
			urlNode = iuf.get("url")
			if detail, rerr = iuf.str("detail"); rerr != nil {
				return Part{}, false, rerr
			}
		}
		part, rerr := p.imageURL(urlNode, origin, detail)
		return part, true, rerr
	case "file":
		file := f.get("file")
		if file.kind() == '{' {
			ff, err := file.fields()
			if err != nil {
				return Part{}, false, asReadError(file, err)
			}
			if id, _ := ff.str("file_id"); id != "" && ff.get("file_data").isNull() {
				return Part{Kind: PartReference, Loc: ff.get("file_id").loc, Ref: &Reference{Kind: "file", Target: id, Origin: origin,
					Reason: "file id of the provider's file store; not in the recording"}}, true, nil
			}
		}
		return p.opaqueNoted(el, "file part"), true, nil
	case "input_audio":
		return p.opaqueNoted(el, "input_audio part"), true, nil
	}
	return p.opaqueNoted(el, fmt.Sprintf("content part of type %q", typ)), true, nil
}
