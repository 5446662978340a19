package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// This file holds the request-log reader that the three request-body formats (OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages) share: splitting a file into records (one
// request object, a JSON array of requests, JSON Lines, proxy-log envelopes), numbering
// requests, locating problems. Each format's differences are an apiFormat, in its own file
// (read_openai_chat.go, read_openai_responses.go, read_anthropic.go).

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

// requestLogReader reads a file of recorded request bodies of one format.
type requestLogReader struct {
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

func newRequestLogReader(name string, format apiFormat, e Emitter) *requestLogReader {
	return &requestLogReader{name: name, base: name, format: format, e: e, maxRecord: apiMaxRecordBytes, runs: largeRunOptions(e),
		resentFrom: resentDefaultFrom, readSize: apiReadSize}
}

// borrows says whether a line of n bytes is read into the reader's own buffer (see borrowed).
func (rd *requestLogReader) borrows(n int) bool { return !rd.resentOff && n >= rd.resentFrom }

// read splits the input into records. When the first non-blank line is a whole JSON value the
// input is JSON Lines (one request, or one array of requests, a line); otherwise it is read
// as one (multi-line) document, a stream of JSON values.
func (rd *requestLogReader) read(ctx context.Context, r io.Reader) error {
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
func (rd *requestLogReader) lineMode(ctx context.Context, br *apiLineInput, lineNo int) error {
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
func (rd *requestLogReader) handleLine(ctx context.Context, line []byte, lineNo int) error {
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
func (rd *requestLogReader) documentMode(ctx context.Context, data []byte) error {
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
func (rd *requestLogReader) fallbackLines(ctx context.Context, data []byte, lineNo int) error {
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
func (rd *requestLogReader) handleRecord(ctx context.Context, rec jwNode) error {
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
func (rd *requestLogReader) handleRequest(ctx context.Context, n jwNode) error {
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
func (rd *requestLogReader) recordedSize(raw []byte) int64 {
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
