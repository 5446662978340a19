package recorder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// MCPOptions configure RecordMCP.
type MCPOptions struct {
	// Out is the transcript, created 0600 or appended to.
	Out string
	// Server is the MCP server's command line.
	Server []string
	// Stdin, Stdout and Stderr are the client's side: what the client writes to the server,
	// where the server's answers go, and where the server's stderr and the recorder's own
	// lines go.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Now stamps each frame (time.Now when nil).
	Now func() time.Time
	// StopGrace is how long the server has to exit after an interrupt once ctx is done, before
	// it is killed (3 s when 0).
	StopGrace time.Duration
}

// ServerExitError says the MCP server exited with a failure status.
type ServerExitError struct {
	Server string
	Err    error
}

func (e *ServerExitError) Error() string { return fmt.Sprintf("MCP server %s: %v", e.Server, e.Err) }
func (e *ServerExitError) Unwrap() error { return e.Err }

// mcpInMemory is the longest frame a transcript line is built from in memory; a longer one is
// spooled to disk and written into its line as it was relayed (not checked as JSON).
const mcpInMemory = 64 << 20

// RecordMCP starts the MCP server, relays the client's stdio to it and back byte for byte, and
// appends every frame, both directions, to the transcript opts.Out as a JSON Lines envelope
// {"ts":…,"dir":"client->server"|"server->client","message":FRAME} that replay reads as an MCP
// stdio transcript (mcp-jsonl). A line that is not JSON is relayed and recorded as a JSON
// string under "message", which replay reports as a problem located at its line. The server's
// stderr passes through. It returns when the server has exited (after the client closed its
// stdin, or on its own) or ctx is done; a *ServerExitError when the server failed.
func RecordMCP(ctx context.Context, opts MCPOptions) error {
	if len(opts.Server) == 0 {
		return errors.New("no MCP server command")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	log, cut, err := openLog(opts.Out, "", lineEnd)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	defer log.Close()
	if cut > 0 {
		fmt.Fprintf(opts.Stderr, "record mcp: %s ended in a torn line (%d bytes, the recorder was killed while writing it): cut off\n", opts.Out, cut)
	}

	cmd, toServer, fromServer, err := startMCPServer(ctx, opts)
	if err != nil {
		return err
	}
	return relayMCP(ctx, opts, log, cmd, toServer, fromServer)
}

// startMCPServer starts the server command with pipes to its stdin and from its stdout; when ctx
// is done it is interrupted, then killed after opts.StopGrace.
func startMCPServer(ctx context.Context, opts MCPOptions) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.CommandContext(ctx, opts.Server[0], opts.Server[1:]...)
	cmd.Stderr = opts.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = opts.StopGrace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 3 * time.Second
	}
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start the MCP server: %w", err)
	}
	return cmd, toServer, fromServer, nil
}

// relayMCP relays the client's stdio to the started server cmd and back, recording each frame in
// log, until the server has exited or ctx is done (RecordMCP).
func relayMCP(ctx context.Context, opts MCPOptions, log *logFile, cmd *exec.Cmd, toServer io.WriteCloser, fromServer io.Reader) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil && err != nil {
			firstErr = err
		}
	}
	c2s := &frameTap{log: log, dir: "client->server", now: opts.Now}
	s2c := &frameTap{log: log, dir: "server->client", now: opts.Now}
	go func() { // the client's side: ends when the client closes stdin; never waited for
		err := relay(toServer, opts.Stdin, c2s)
		toServer.Close()
		if err != nil && !errors.Is(err, os.ErrClosed) {
			fail(fmt.Errorf("client to server: %w", err))
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := relay(opts.Stdout, fromServer, s2c); err != nil {
			fail(fmt.Errorf("server to client: %w", err))
		}
	}()
	relayed := make(chan struct{})
	go func() { wg.Wait(); close(relayed) }()
	select {
	case <-relayed:
	case <-ctx.Done(): // the server is interrupted, then killed after StopGrace; Wait closes its pipes
	}
	waitErr := cmd.Wait()
	<-relayed
	for _, t := range []*frameTap{c2s, s2c} {
		fail(t.finish(ctx.Err() == nil))
	}
	if ctx.Err() != nil {
		return nil // the recorder was stopped: the transcript holds every frame completed
	}
	if waitErr != nil {
		return &ServerExitError{Server: opts.Server[0], Err: waitErr}
	}
	mu.Lock()
	defer mu.Unlock()
	return firstErr
}

// relay copies src to dst, each read written on at once, and shows it to the tap afterwards.
// A recording failure stops the recording, not the relay.
func relay(dst io.Writer, src io.Reader, tap *frameTap) error {
	buf := make([]byte, 64<<10)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return err
			}
			tap.feed(buf[:n])
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// frameTap cuts one direction of the stdio stream into lines (frames) and appends each, whole,
// to the transcript.
type frameTap struct {
	log *logFile
	dir string
	now func() time.Time

	mu   sync.Mutex // feed and finish may run at once when the server exits first
	done bool

	line   []byte   // the current line, while it fits in memory
	spool  *os.File // the current line once it is longer than mcpInMemory
	spoolW *bufio.Writer
	err    error // the first recording error; the tap records nothing after it
}

// feed takes relayed bytes.
func (t *frameTap) feed(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for !t.done && len(p) > 0 && t.err == nil {
		nl := bytes.IndexByte(p, '\n')
		chunk := p
		if nl >= 0 {
			chunk = p[:nl]
		}
		t.add(chunk)
		if nl < 0 {
			return
		}
		t.err = t.endLine()
		p = p[nl+1:]
	}
}

// add appends bytes to the current line, moving it to a spool when it grows too long.
func (t *frameTap) add(b []byte) {
	if t.spool == nil && len(t.line)+len(b) <= mcpInMemory {
		t.line = append(t.line, b...)
		return
	}
	if t.spool == nil {
		spool, err := newSpool(t.log.path)
		if err != nil {
			t.err = fmt.Errorf("spool a long frame: %w", err)
			return
		}
		t.spool, t.spoolW = spool, bufio.NewWriterSize(spool, 1<<20)
		t.spoolW.Write(t.line)
		t.line = t.line[:0]
	}
	if _, err := t.spoolW.Write(b); err != nil {
		t.err = fmt.Errorf("spool a long frame: %w", err)
	}
}

// endLine writes the current line to the transcript.
func (t *frameTap) endLine() error {
	defer func() {
		if cap(t.line) > 1<<20 {
			t.line = nil
		}
		t.line = t.line[:0]
		if t.spool != nil {
			t.spool.Close()
			t.spool, t.spoolW = nil, nil
		}
	}()
	line := bytes.TrimSuffix(t.line, []byte("\r"))
	if t.spool == nil && len(bytes.TrimSpace(line)) == 0 {
		return nil // blank lines carry no frame
	}
	ts := t.now().UTC().Format(time.RFC3339Nano)
	return t.log.append(func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		fmt.Fprintf(bw, `{"ts":%q,"dir":%q,"message":`, ts, t.dir)
		switch {
		case t.spool != nil:
			if err := t.spoolW.Flush(); err != nil {
				return err
			}
			if _, err := t.spool.Seek(0, io.SeekStart); err != nil {
				return err
			}
			r := newScrubber(bw)
			if _, err := io.Copy(r, bufio.NewReaderSize(t.spool, 1<<20)); err != nil {
				return err
			}
			if err := r.Flush(); err != nil {
				return err
			}
		case json.Valid(line):
			if err := writeScrubbed(bw, line); err != nil {
				return err
			}
		default:
			q, _ := json.Marshal(corpora.RedactText(string(unescapeURLs(line))))
			bw.Write(q)
		}
		bw.WriteString("}\n")
		return bw.Flush()
	})
}

// finish records a last line that had no newline (unless the recorder was stopped, which cut
// it) and reports the first recording error.
func (t *frameTap) finish(lastLine bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	if t.spool != nil && !lastLine {
		t.spool.Close()
		t.spool = nil
	}
	if t.err == nil && lastLine && (len(t.line) > 0 || t.spool != nil) {
		t.err = t.endLine()
	}
	if t.err != nil {
		return fmt.Errorf("transcript %s (%s): %w", t.log.path, t.dir, t.err)
	}
	return nil
}
