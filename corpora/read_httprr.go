package corpora

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// httprrHeader is the first line of an httprr trace.
const httprrHeader = "httprr trace v1"

// sniffHTTPRR: an httprr trace starts with its version line.
func sniffHTTPRR(f fileHead) bool { return f.startsWith("httprr trace v1") }

func readHTTPRR(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return httprrReader{name: name, base: name, e: e, maxRecord: apiMaxRecordBytes}.read(ctx, r)
}

// httprrReader reads a langchaingo httprr trace: a header line, then records, each a line
// "<request bytes> <response bytes>\n" followed by the raw HTTP request and the raw HTTP
// response (lengths count bytes; header lines may end in CRLF or LF). Every request whose body
// is an OpenAI Chat, OpenAI Responses or Anthropic Messages request becomes one conversation
// (id "<file>#<record index>"); other records are skipped. Headers are read only to find the
// body and its encoding; none is copied anywhere (API keys live there).
type httprrReader struct {
	name      string
	base      string
	e         Emitter
	maxRecord int
}

func (h httprrReader) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.ReadSlice('\n')
	if err != nil && err != io.EOF {
		return &ReadError{Loc: Location{File: h.name, Line: 1}, Err: fmt.Errorf("httprr header: %w", err)}
	}
	if strings.TrimRight(string(head), "\r\n") != httprrHeader {
		return &ReadError{Loc: Location{File: h.name, Line: 1}, Err: fmt.Errorf("not an httprr trace: first line is not %q", httprrHeader)}
	}
	line := 2 // line number of the next byte
	offset := int64(len(head))
	for idx := 0; ; idx++ {
		if err := ctx.Err(); err != nil {
			return &ReadError{Loc: Location{File: h.name, Line: line}, Err: err}
		}
		lenLine, err := br.ReadSlice('\n')
		if len(lenLine) == 0 && err == io.EOF {
			return nil
		}
		here := Location{File: h.name, Line: line}
		if err != nil && err != io.EOF {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = errors.New("record length line too long")
			}
			return &ReadError{Loc: here, Err: fmt.Errorf("httprr record %d: %w", idx, err)}
		}
		reqLen, respLen, perr := h.parseLengths(lenLine)
		if perr != nil {
			return &ReadError{Loc: here, Err: fmt.Errorf("httprr record %d at byte %d: %w", idx, offset, perr)}
		}
		line++
		offset += int64(len(lenLine))
		var req bytes.Buffer
		req.Grow(min(reqLen, 1<<20))
		if n, err := io.CopyN(&req, br, int64(reqLen)); err != nil {
			return &ReadError{Loc: Location{File: h.name, Line: line}, Err: fmt.Errorf("httprr record %d: request truncated after %d of %d bytes", idx, n, reqLen)}
		}
		reqLine := line
		line += bytes.Count(req.Bytes(), []byte("\n"))
		offset += int64(reqLen)
		counter := &httprrLineCounter{}
		var resp bytes.Buffer // kept when small enough to read the server's usage from it
		sink := io.Writer(counter)
		if respLen <= httprrMaxUsageResponse {
			resp.Grow(respLen)
			sink = io.MultiWriter(counter, &resp)
		}
		if n, err := io.CopyN(sink, br, int64(respLen)); err != nil {
			return &ReadError{Loc: Location{File: h.name, Line: line}, Err: fmt.Errorf("httprr record %d: response truncated after %d of %d bytes", idx, n, respLen)}
		}
		line += counter.lines
		offset += int64(respLen)
		if err := h.record(idx, reqLine, req.Bytes(), resp.Bytes()); err != nil {
			return err
		}
	}
}

// parseLengths reads "<request bytes> <response bytes>".
func (h httprrReader) parseLengths(b []byte) (reqLen, respLen int, err error) {
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0, fmt.Errorf("expected \"<request bytes> <response bytes>\", found %q", httprrShorten(b))
	}
	reqLen, err1 := strconv.Atoi(fields[0])
	respLen, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil || reqLen < 0 || respLen < 0 {
		return 0, 0, fmt.Errorf("bad record lengths %q", httprrShorten(b))
	}
	if reqLen > h.maxRecord || respLen > h.maxRecord {
		return 0, 0, fmt.Errorf("record larger than %d bytes", h.maxRecord)
	}
	return reqLen, respLen, nil
}

// httprrShorten cuts a line for an error message.
func httprrShorten(b []byte) string {
	s := strings.TrimRight(string(b), "\r\n")
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// httprrLineCounter discards bytes, counting newlines.
type httprrLineCounter struct{ lines int }

func (c *httprrLineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte("\n"))
	return len(p), nil
}

// httprrRequest is the part of a recorded HTTP request the reader uses.
type httprrRequest struct {
	method   string
	url      *url.URL
	chunked  bool
	encoding string // Content-Encoding, lower-cased
	isClaude bool   // an anthropic-version header was sent
	body     []byte
	bodyLine int // 0-based count of lines before the body
}

// parseRequest splits a raw HTTP request into request line, the few headers used, and body.
func httprrParseRequest(raw []byte) (httprrRequest, error) {
	var req httprrRequest
	rest := raw
	first := true
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return req, errors.New("HTTP request without a blank line after its headers")
		}
		ln := strings.TrimRight(string(rest[:nl]), "\r")
		rest = rest[nl+1:]
		req.bodyLine++
		if first {
			parts := strings.Fields(ln)
			if len(parts) < 2 {
				return req, fmt.Errorf("bad HTTP request line %q", httprrShorten([]byte(ln)))
			}
			u, err := url.Parse(parts[1])
			if err != nil {
				return req, fmt.Errorf("bad request URL: %w", err)
			}
			req.method, req.url, first = parts[0], u, false
			continue
		}
		if ln == "" {
			break
		}
		k, v, _ := strings.Cut(ln, ":")
		v = strings.ToLower(strings.TrimSpace(v))
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "transfer-encoding":
			req.chunked = strings.Contains(v, "chunked")
		case "content-encoding":
			req.encoding = v
		case "anthropic-version":
			req.isClaude = true
		}
	}
	req.body = rest
	return req, nil
}

// decodedBody undoes chunked transfer encoding and gzip content encoding.
func (req httprrRequest) decodedBody(limit int) ([]byte, error) {
	body := req.body
	if req.chunked {
		b, err := httprrDechunk(body, limit)
		if err != nil {
			return nil, fmt.Errorf("chunked body: %w", err)
		}
		body = b
	}
	switch req.encoding {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		b, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		if len(b) > limit {
			return nil, fmt.Errorf("gzip body larger than %d bytes", limit)
		}
		body = b
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", req.encoding)
	}
	return body, nil
}

// apiFor picks the request format from the URL path, else from the body's shape; ok is false
// for requests that are not LLM API calls.
func (req httprrRequest) apiFor(f jwFields) (apiFormat, bool) {
	path := strings.TrimRight(req.url.Path, "/")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return chatAPI(), true
	case strings.HasSuffix(path, "/responses"):
		return responsesAPI(), true
	case strings.HasSuffix(path, "/messages"):
		return anthropicAPI(), true
	}
	_, hasMessages := f.has("messages")
	_, hasInput := f.has("input")
	_, hasSystem := f.has("system")
	switch {
	case hasMessages && (req.isClaude || hasSystem):
		return anthropicAPI(), true
	case hasMessages:
		return chatAPI(), true
	case hasInput && req.method == "POST" && !strings.Contains(path, "embeddings"):
		return responsesAPI(), true
	}
	return apiFormat{}, false
}

// record reads one httprr request into a conversation.
func (h httprrReader) record(idx, line int, raw, rawResp []byte) error {
	here := Location{File: h.name, Line: line}
	req, err := httprrParseRequest(raw)
	if err != nil {
		h.e.Problem(&ReadError{Loc: here, Err: fmt.Errorf("httprr record %d: %w", idx, err)})
		return nil
	}
	body, err := req.decodedBody(h.maxRecord)
	if err != nil {
		h.e.Problem(&ReadError{Loc: here, Err: fmt.Errorf("httprr record %d: %w", idx, err)})
		return nil
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil // GET, or not a JSON request: not an LLM call
	}
	line += req.bodyLine
	lead := 0 // offsets count from the body's first byte (of the decoded body when it was encoded)
	if !req.chunked && req.encoding == "" {
		lead = len(req.body) - len(bytes.TrimLeft(req.body, " \t\r\n"))
	}
	root := jwNode{raw: body, loc: Location{File: h.name, Line: line, Offset: int64(lead)}}
	if rerr := jwCheck(root); rerr != nil {
		rerr.Err = fmt.Errorf("httprr record %d: %w", idx, rerr.Err)
		h.e.Problem(rerr)
		return nil
	}
	f, err := root.fields()
	if err != nil {
		h.e.Problem(asReadError(root, err))
		return nil
	}
	format, ok := req.apiFor(f)
	if !ok {
		return nil
	}
	conv, problems, rerr := apiParseRequest(format, root, fmt.Sprintf("%s#%d", h.base, idx), nil, nil)
	for _, p := range problems {
		h.e.Problem(p)
	}
	if rerr != nil {
		rerr.Err = fmt.Errorf("httprr record %d: %w", idx, rerr.Err)
		h.e.Problem(rerr)
		return nil
	}
	conv.Provider = req.url.Hostname()
	conv.ServerUsage = httprrUsage(rawResp, h.maxRecord)
	// The note names the endpoint without its query, which may carry a key.
	conv.Notes = append([]string{fmt.Sprintf("httprr record %d: %s %s://%s%s", idx, req.method, req.url.Scheme, req.url.Host, req.url.Path)}, conv.Notes...)
	if err := h.e.Conversation(conv); err != nil {
		return fmt.Errorf("read %s: %w", h.name, err)
	}
	return nil
}

// httprrDechunk undoes HTTP/1.1 chunked transfer encoding (trailers are ignored). It works on
// the bytes in memory and consumes at least one line per chunk, so malformed input can only
// fail; with net/http/httputil's chunked reader FuzzReadHTTPRR stalled (cause not pinned down).
func httprrDechunk(b []byte, limit int) ([]byte, error) {
	var out []byte
	for {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return nil, errors.New("chunk size line without a newline")
		}
		sizeField, _, _ := strings.Cut(strings.TrimRight(string(b[:nl]), "\r"), ";")
		size, err := strconv.ParseUint(strings.TrimSpace(sizeField), 16, 63)
		if err != nil {
			return nil, fmt.Errorf("bad chunk size %q", httprrShorten([]byte(sizeField)))
		}
		b = b[nl+1:]
		if size == 0 {
			return out, nil
		}
		if size > uint64(len(b)) {
			return nil, fmt.Errorf("chunk of %d bytes, only %d left", size, len(b))
		}
		if len(out)+int(size) > limit {
			return nil, fmt.Errorf("body larger than %d bytes", limit)
		}
		out = append(out, b[:size]...)
		b = b[size:]
		b = bytes.TrimPrefix(b, []byte("\r"))
		if !bytes.HasPrefix(b, []byte("\n")) {
			return nil, errors.New("chunk not followed by a line end")
		}
		b = b[1:]
	}
}
