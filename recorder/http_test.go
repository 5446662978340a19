package recorder

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/syncbuf"
)

// startRecorder runs RecordHTTP in front of upstream until the test ends; it returns the
// proxy's base URL, the trace path and the recorder's log.
func startRecorder(t testing.TB, upstream string) (base, out string, log *syncbuf.Buffer, stop func() HTTPStats) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "trace.httprr")
	log = &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan HTTPStats, 1)
	go func() {
		st, err := RecordHTTP(ctx, HTTPOptions{Listen: "127.0.0.1:0", Upstream: u, Out: out, Log: log,
			Ready: func(addr string) { ready <- addr }, ShutdownGrace: 500 * time.Millisecond})
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	select {
	case addr := <-ready:
		base = "http://" + addr
	case st := <-done:
		t.Fatalf("recorder ended at once: %+v", st)
	}
	var once sync.Once
	var stats HTTPStats
	stop = func() HTTPStats {
		once.Do(func() { cancel(); stats = <-done })
		return stats
	}
	t.Cleanup(func() { stop() })
	return base, out, log, stop
}

// chatBody is a Chat Completions request with a tool call, its result and a credential in a URL.
const chatBody = `{"model":"m","messages":[{"role":"user","content":"see https://files.test/a.png?X-Amz-Signature=SECRETSIG"},` +
	`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]},` +
	`{"role":"tool","tool_call_id":"c1","content":"done"}]}`

// TestRecordHTTP: a JSON exchange and a streamed (SSE) one go through unchanged, the stream
// flushed event by event; the trace is an httprr trace replay reads, created 0600, with the
// server's usage, and without the Authorization header, the API key or the signed URL's
// signature.
func TestRecordHTTP(t *testing.T) {
	release := make(chan struct{})
	var seen sync.Map
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen.Store(r.URL.Path, string(body)+"|"+r.Header.Get("Authorization"))
		if !bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":321,"completion_tokens":1}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"o\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-release // the client must have the first event before the second is sent
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":322,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer upstream.Close()
	base, out, log, stop := startRecorder(t, upstream.URL)

	req, _ := http.NewRequest("POST", base+"/v1/chat/completions?api_key=SECRETKEY", strings.NewReader(chatBody))
	req.Header.Set("Authorization", "Bearer SECRETBEARER")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(got), `"prompt_tokens":321`) {
		t.Fatalf("response %q", got)
	}
	if v, _ := seen.Load("/v1/chat/completions"); v != chatBody+"|Bearer SECRETBEARER" {
		t.Fatalf("upstream got %q", v)
	}

	stream := strings.Replace(chatBody, `{"model":"m",`, `{"model":"m","stream":true,`, 1)
	resp, err = http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "data: {") {
		t.Fatalf("first event %q, %v", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	if !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("stream rest %q", rest)
	}
	if st := stop(); st.Recorded != 2 || st.NotRecorded != 0 {
		t.Fatalf("stats %+v, log %s", st, log)
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"SECRETKEY", "SECRETBEARER", "SECRETSIG"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the trace holds %s:\n%s", secret, data)
		}
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("trace mode %v, want 0600", st.Mode().Perm())
	}
	var col corpora.Collector
	if err := corpora.ReadFile(context.Background(), out, "", &col); err != nil || len(col.Problems) > 0 {
		t.Fatalf("replay's reader: %v %v", err, col.Problems)
	}
	if len(col.Conversations) != 2 {
		t.Fatalf("%d conversations, want 2", len(col.Conversations))
	}
	for i, want := range []int{321, 322} {
		c := col.Conversations[i]
		if c.Format != corpora.FormatOpenAIChat || c.ServerUsage == nil || c.ServerUsage.PromptTokens != want || len(c.Messages) != 3 {
			t.Errorf("conversation %d: format %s, usage %+v, %d messages", i, c.Format, c.ServerUsage, len(c.Messages))
		}
	}
}

// TestRecordHTTPUpstreamDown: an upstream that refuses connections gets the client a 502 and
// the log one line naming it; nothing is recorded.
func TestRecordHTTPUpstreamDown(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	base, out, log, stop := startRecorder(t, dead.URL)
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "did not answer") {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if st := stop(); st.Recorded != 0 || st.NotRecorded != 1 {
		t.Fatalf("stats %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "POST /v1/chat/completions: not recorded: upstream "+dead.URL+" did not answer") {
		t.Fatalf("log %q", log.String())
	}
	if data, _ := os.ReadFile(out); string(data) != httprrHeader {
		t.Fatalf("trace %q", data)
	}
}

// TestRecordHTTPClientGoesAway: a client that disconnects mid-stream leaves no record, and the
// exchanges before and after it are recorded whole; stopping the recorder with a stream in
// flight leaves a trace of whole records.
func TestRecordHTTPClientGoesAway(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; ; i++ {
			if r.URL.Path == "/short" && i == 2 {
				return
			}
			if _, err := fmt.Fprintf(w, "data: {\"n\":%d}\n\n", i); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}))
	defer upstream.Close()
	base, out, log, stop := startRecorder(t, upstream.URL)
	post := func(path string) *http.Response {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(chatBody))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("/short")
	io.ReadAll(resp.Body)
	resp.Body.Close()

	resp = post("/v1/chat/completions")
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // the client goes away mid-stream
	waitFor(t, func() bool { return strings.Contains(log.String(), "not recorded") })

	resp = post("/short")
	io.ReadAll(resp.Body)
	resp.Body.Close()
	resp = post("/v1/chat/completions") // in flight when the recorder stops
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	st := stop()
	resp.Body.Close()
	if st.Recorded != 2 || st.NotRecorded != 2 {
		t.Fatalf("stats %+v, log:\n%s", st, log)
	}
	var col corpora.Collector
	if err := corpora.ReadFile(context.Background(), out, "", &col); err != nil || len(col.Problems) > 0 || len(col.Conversations) != 2 {
		t.Fatalf("trace: %v %v, %d conversations", err, col.Problems, len(col.Conversations))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// TestRecordHTTPUpstreamBreaksOff: an upstream that closes its connection in the middle of a
// chunked response leaves the exchange unrecorded, and the log says the upstream broke off, not
// that the client went away.
func TestRecordHTTPUpstreamBreaksOff(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		// a chunked response whose first chunk promises more than is sent before the close
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		bw.WriteString("40\r\ndata: {\"n\":0}\n\n")
		bw.Flush()
	}))
	defer upstream.Close()
	base, _, log, stop := startRecorder(t, upstream.URL)
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err == nil {
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	st := stop()
	if st.Recorded != 0 || st.NotRecorded != 1 {
		t.Fatalf("stats %+v, log:\n%s", st, log)
	}
	if got := log.String(); !strings.Contains(got, "not recorded: the upstream's response broke off before its end") {
		t.Fatalf("log:\n%s", got)
	}
}
