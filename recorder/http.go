package recorder

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// httprrHeader starts every trace the HTTP recorder writes.
const httprrHeader = "httprr trace v1\n"

// HTTPOptions configure RecordHTTP.
type HTTPOptions struct {
	// Listen is the address the proxy listens on (127.0.0.1:8081).
	Listen string
	// Upstream is the server the proxy forwards to (http://127.0.0.1:8080).
	Upstream *url.URL
	// Out is the httprr trace, created 0600 or appended to.
	Out string
	// Log receives one line per exchange not recorded and the recorder's own lines.
	Log io.Writer
	// Ready, when set, is called with the address listened on once the proxy accepts
	// connections.
	Ready func(addr string)
	// ShutdownGrace is how long exchanges in flight may finish once ctx is done (2 s when 0).
	ShutdownGrace time.Duration
}

// HTTPStats counts what a recording session did.
type HTTPStats struct {
	Recorded, NotRecorded int64
}

// RecordHTTP runs the recording proxy until ctx is done. Every request is forwarded to the
// upstream unchanged (the Host header names the upstream) and its response streamed back
// unchanged, each read flushed at once (SSE included); each complete exchange is appended to
// the httprr trace opts.Out as one record, written whole or not at all. Request and response
// bodies pass through a spool file on disk, never held in memory. Headers that carry
// credentials (Authorization, API keys, cookies) are left out of the recording and URLs in it
// are redacted as replay redacts them. An upstream that cannot be reached is answered 502 with
// a line on opts.Log. Ending ctx is the normal way to stop: the exchanges in flight get
// ShutdownGrace to finish and are recorded if they do.
func RecordHTTP(ctx context.Context, opts HTTPOptions) (HTTPStats, error) {
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return HTTPStats{}, fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	log, cut, err := openLog(opts.Out, httprrHeader, httprrEnd)
	if err != nil {
		ln.Close()
		return HTTPStats{}, fmt.Errorf("trace: %w", err)
	}
	defer log.Close()
	p := newProxy(opts, log)
	if cut > 0 {
		p.logf("%s ended in a torn record (%d bytes, the recorder was killed while writing it): cut off", opts.Out, cut)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return p.stats(), err
	case <-ctx.Done():
	}
	grace := opts.ShutdownGrace
	if grace == 0 {
		grace = 2 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	p.wg.Wait() // exchanges being appended finish (or are truncated away) before the file closes
	return p.stats(), nil
}

// proxy is the recording reverse proxy.
type proxy struct {
	rp       *httputil.ReverseProxy
	upstream *url.URL
	log      *logFile
	out      io.Writer
	outMu    sync.Mutex
	wg       sync.WaitGroup

	recorded, notRecorded atomic.Int64
}

func newProxy(opts HTTPOptions, log *logFile) *proxy {
	p := &proxy{upstream: opts.Upstream, log: log, out: opts.Log}
	if p.out == nil {
		p.out = io.Discard
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DisableCompression = true // Accept-Encoding goes as the client sent it, or not at all
	transport.MaxIdleConnsPerHost = 64
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(opts.Upstream)
			ex := exchangeOf(pr.In.Context())
			if pr.Out.Body != nil && pr.Out.Body != http.NoBody && ex != nil {
				ex.req.body = pr.Out.Body
				pr.Out.Body = &ex.req
			}
			if ex != nil {
				ex.url = pr.Out.URL.String()
			}
		},
		Transport:     transport,
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			if ex := exchangeOf(resp.Request.Context()); ex != nil {
				ex.begin(resp)
			}
			return nil
		},
		ErrorHandler: p.upstreamError,
	}
	return p
}

func (p *proxy) stats() HTTPStats {
	return HTTPStats{Recorded: p.recorded.Load(), NotRecorded: p.notRecorded.Load()}
}

// logf writes one line to the recorder's log.
func (p *proxy) logf(format string, args ...any) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	fmt.Fprintf(p.out, "record http: "+format+"\n", args...)
}

type exchangeKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.wg.Add(1)
	ex := &exchange{p: p, in: r, start: time.Now()}
	if r.ContentLength == 0 {
		ex.req.eof = true
	} else if err := ex.req.open(p.log.path, r.Header.Get("Content-Encoding")); err != nil {
		ex.fail("spool: %v", err)
	}
	// The request body goes on being read (by the transport, towards the upstream) while the
	// response is written: without full duplex the server would drain and close the request
	// body when the response head is written, and the transport, failing to read the rest of
	// it, would close the upstream connection under the response being relayed.
	_ = http.NewResponseController(w).EnableFullDuplex()
	defer func() {
		// The ReverseProxy panics with http.ErrAbortHandler when it cannot relay the whole
		// response (the client went away, or the upstream's body broke off); the exchange is
		// not recorded, and the panic ends the connection.
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				if r.Context().Err() != nil {
					ex.fail("the client went away before the whole response was sent")
				} else {
					ex.fail("the upstream's response broke off before its end")
				}
				ex.discard()
			}
			ex.close()
			p.wg.Done()
			panic(v)
		}
		// The record is appended once the handler has returned, so that the client has the end
		// of the response without waiting for it; RecordHTTP waits for it before closing.
		go func() {
			defer p.wg.Done()
			defer ex.close()
			ex.done()
		}()
	}()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
}

// upstreamError answers a request the upstream did not answer.
func (p *proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r.Context())
	if r.Context().Err() != nil {
		if ex != nil {
			ex.fail("the client went away before the upstream answered")
		}
		return
	}
	if ex != nil {
		ex.fail("upstream %s did not answer: %v; answered 502", p.upstream.Redacted(), err)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "strata-eval record: upstream %s did not answer: %v\n", p.upstream.Redacted(), err)
}

// exchange is one request and its response on their way through the proxy.
type exchange struct {
	p     *proxy
	in    *http.Request
	url   string // the upstream URL the request went to
	start time.Time

	req  bodyTap
	resp bodyTap

	status    int
	proto     string
	header    http.Header
	firstByte time.Duration
	problem   string
}

func (ex *exchange) fail(format string, args ...any) {
	if ex.problem == "" {
		ex.problem = fmt.Sprintf(format, args...)
	}
}

// begin takes the upstream's response head and puts a tap on its body.
func (ex *exchange) begin(resp *http.Response) {
	ex.status, ex.proto, ex.header = resp.StatusCode, resp.Proto, resp.Header.Clone()
	ex.firstByte = time.Since(ex.start)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		ex.fail("a protocol upgrade (%s) is relayed, not recorded", resp.Header.Get("Upgrade"))
		return // the proxy needs the upgraded connection itself as the body
	}
	if err := ex.resp.open(ex.p.log.path, resp.Header.Get("Content-Encoding")); err != nil {
		ex.fail("spool: %v", err)
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		ex.resp.eof = true
		return
	}
	ex.resp.body = resp.Body
	resp.Body = &ex.resp
}

// done appends the exchange when it is whole, or says why it is not recorded.
func (ex *exchange) done() {
	switch {
	case ex.problem != "":
	case ex.status == 0:
		ex.fail("no response")
	case !ex.req.eof:
		ex.fail("the upstream answered before reading the whole request")
	case !ex.resp.eof:
		ex.fail("the response ended early")
	case ex.req.err != nil || ex.resp.err != nil:
		ex.fail("spool: %v", errors.Join(ex.req.err, ex.resp.err))
	}
	if ex.problem == "" {
		if err := ex.p.log.append(ex.write); err != nil {
			ex.fail("write %s: %v", ex.p.log.path, err)
		}
	}
	if cut := ex.req.cutURLs() + ex.resp.cutURLs(); cut > 0 && ex.problem == "" {
		ex.p.logf("%s %s: %d URL(s) longer than %d bytes cut in the record (redacted as far as held)",
			ex.in.Method, corpora.RedactURL(ex.in.URL.RequestURI()), cut, redactHold)
	}
	ex.discard()
}

// discard counts the exchange and says why it is not recorded, when it is not.
func (ex *exchange) discard() {
	if ex.problem == "" {
		ex.p.recorded.Add(1)
		return
	}
	ex.p.notRecorded.Add(1)
	ex.p.logf("%s %s: not recorded: %s", ex.in.Method, corpora.RedactURL(ex.in.URL.RequestURI()), ex.problem)
	ex.problem = "" // said once
}

func (ex *exchange) close() {
	ex.req.close()
	ex.resp.close()
}

// write writes the httprr record: "<request bytes> <response bytes>\n", the request (the
// upstream URL, headers without credentials, the spooled body) and the response (status,
// headers without credentials, a Strata-Record-Timing header, the spooled body).
func (ex *exchange) write(w io.Writer) error {
	var reqHead, respHead strings.Builder
	target := corpora.RedactURL(ex.url)
	fmt.Fprintf(&reqHead, "%s %s HTTP/1.1\r\n", ex.in.Method, target)
	fmt.Fprintf(&reqHead, "Host: %s\r\n", ex.p.upstream.Host)
	writeHeaders(&reqHead, ex.in.Header, ex.req)
	fmt.Fprintf(&reqHead, "Content-Length: %d\r\n\r\n", ex.req.size)

	proto := ex.proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&respHead, "%s %d %s\r\n", proto, ex.status, http.StatusText(ex.status))
	writeHeaders(&respHead, ex.header, ex.resp)
	fmt.Fprintf(&respHead, "Strata-Record-Timing: start=%s; first-byte=%.3fms; total=%.3fms\r\n",
		ex.start.UTC().Format(time.RFC3339Nano), ms(ex.firstByte), ms(time.Since(ex.start)))
	fmt.Fprintf(&respHead, "Content-Length: %d\r\n\r\n", ex.resp.size)

	if _, err := fmt.Fprintf(w, "%d %d\n", int64(reqHead.Len())+ex.req.size, int64(respHead.Len())+ex.resp.size); err != nil {
		return err
	}
	if _, err := io.WriteString(w, reqHead.String()); err != nil {
		return err
	}
	if err := ex.req.copyTo(w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, respHead.String()); err != nil {
		return err
	}
	return ex.resp.copyTo(w)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// hopHeaders are not copied into a record: hop-by-hop headers and those whose value the
// record restates (the body's length).
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Content-Length": true,
}

// secretHeaderWords mark a header that may carry a credential: it is never recorded.
var secretHeaderWords = []string{"auth", "key", "token", "secret", "cookie", "password", "session", "credential", "signature"}

// recordedHeader says whether a header goes into a record.
func recordedHeader(name string) bool {
	if hopHeaders[http.CanonicalHeaderKey(name)] {
		return false
	}
	n := strings.ToLower(name)
	for _, w := range secretHeaderWords {
		if strings.Contains(n, w) {
			return false
		}
	}
	return true
}

// writeHeaders writes the recordable headers, sorted, their values redacted; a body not
// recorded (an encoding the recorder does not read) drops its Content-Encoding.
func writeHeaders(b *strings.Builder, h http.Header, body bodyTap) {
	names := make([]string, 0, len(h))
	for k := range h {
		if recordedHeader(k) && !(body.skipped && http.CanonicalHeaderKey(k) == "Content-Encoding") {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			fmt.Fprintf(b, "%s: %s\r\n", k, strings.NewReplacer("\r", " ", "\n", " ").Replace(corpora.RedactText(v)))
		}
	}
	if body.skipped {
		fmt.Fprintf(b, "Strata-Record-Note: body of %d bytes not recorded (Content-Encoding %s)\r\n", body.seen, body.encoding)
	}
}

// bodyTap reads a body for the proxy and writes what it reads, redacted, to a spool.
type bodyTap struct {
	body     io.ReadCloser
	spool    *spool
	red      *scrubber
	encoding string
	skipped  bool  // the body is encoded (gzip, br…): it is counted, not recorded
	seen     int64 // bytes read
	size     int64 // bytes spooled
	eof      bool
	err      error
}

// open prepares the spool; an encoded body is only counted.
func (t *bodyTap) open(recording, encoding string) error {
	t.encoding = strings.ToLower(strings.TrimSpace(encoding))
	if t.encoding != "" && t.encoding != "identity" {
		t.skipped = true
		return nil
	}
	t.spool = &spool{recording: recording}
	t.red = newScrubber(t.spool)
	return nil
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	t.seen += int64(n)
	if n > 0 && t.red != nil && t.err == nil {
		_, t.err = t.red.Write(p[:n])
	}
	if err == io.EOF {
		t.eof = true
		if t.red != nil && t.err == nil {
			if t.err = t.red.Flush(); t.err == nil {
				t.err = t.spool.finish()
				t.size = t.spool.n
			}
		}
	}
	return n, err
}

func (t *bodyTap) Close() error { return t.body.Close() }

// cutURLs is how many URLs the scrubber cut (see redactor).
func (t *bodyTap) cutURLs() int {
	if t.red == nil {
		return 0
	}
	return t.red.red.cut
}

// copyTo writes the spooled body.
func (t *bodyTap) copyTo(w io.Writer) error {
	if t.spool == nil {
		return nil
	}
	return t.spool.copyTo(w)
}

func (t *bodyTap) close() {
	if t.spool != nil {
		t.spool.close()
	}
}

// spoolInMemory is how much of a body a spool keeps in memory before it moves to disk.
const spoolInMemory = 64 << 10

// spool holds one body until its record is written: in memory up to spoolInMemory, then in
// an anonymous file beside the recording (newSpool).
type spool struct {
	recording string
	mem       []byte
	file      *os.File
	bw        *bufio.Writer
	n         int64
}

func (s *spool) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if s.file == nil && len(s.mem)+len(p) <= spoolInMemory {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.file == nil {
		f, err := newSpool(s.recording)
		if err != nil {
			return 0, err
		}
		s.file, s.bw = f, bufio.NewWriterSize(f, 1<<20)
		if _, err := s.bw.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = nil
	}
	return s.bw.Write(p)
}

// finish flushes what is buffered for the file.
func (s *spool) finish() error {
	if s.bw == nil {
		return nil
	}
	return s.bw.Flush()
}

// copyTo writes the spooled bytes to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := w.Write(s.mem)
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, s.file)
	if err == nil && n != s.n {
		err = fmt.Errorf("spool gave back %d bytes of %d", n, s.n)
	}
	return err
}

func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
	}
}
