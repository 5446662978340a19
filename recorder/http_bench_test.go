package recorder

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRecordHTTPAddedLatency: the time the recorder adds to one request on loopback (a
// 4 KiB Chat Completions body, a small JSON answer with usage): each iteration sends the
// request to the upstream directly and through the recorder, and added-µs/req is the
// difference of the two means. allocs/op counts the client, the proxy and the upstream.
func BenchmarkRecordHTTPAddedLatency(b *testing.B) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":1000,"completion_tokens":1}}`)
	}))
	defer upstream.Close()
	base, _, _, _ := startRecorder(b, upstream.URL)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", 4<<10) + `"}]}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	post := func(url string) time.Duration {
		start := time.Now()
		resp, err := client.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start)
	}
	post(upstream.URL)
	post(base)
	b.ReportAllocs()
	b.ResetTimer()
	var direct, recorded time.Duration
	for i := 0; i < b.N; i++ {
		direct += post(upstream.URL)
		recorded += post(base)
	}
	b.ReportMetric(float64(recorded-direct)/float64(b.N)/1e3, "added-µs/req")
	b.ReportMetric(float64(direct)/float64(b.N)/1e3, "direct-µs/req")
}

// TestRecordHTTPLargeBody streams a request of $STRATA_RECORD_BIG MB (opt in: 200, or 1000 for
// the 1 GB case) through the recorder: it reaches the upstream whole, the trace holds it whole,
// and the Go heap stays under 64 MiB all along (the body goes through a spool on disk).
func TestRecordHTTPLargeBody(t *testing.T) {
	mb, err := strconv.Atoi(os.Getenv("STRATA_RECORD_BIG"))
	if err != nil || mb <= 0 {
		t.Skip("set STRATA_RECORD_BIG=200 (MB) to stream a large request through the recorder")
	}
	var got atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
		io.WriteString(w, `{"usage":{"prompt_tokens":1}}`)
	}))
	defer upstream.Close()
	base, out, log, stop := startRecorder(t, upstream.URL)

	head := `{"model":"m","messages":[{"role":"user","content":"`
	tail := `"}]}`
	size := int64(mb) << 20
	body := io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('A'), size-int64(len(head)+len(tail))), strings.NewReader(tail))

	var peak atomic.Uint64
	sampling := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-sampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", body)
	req.ContentLength = size
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	st := stop()
	close(sampling)
	elapsed := time.Since(start)
	if got.Load() != size || st.Recorded != 1 {
		t.Fatalf("upstream got %d of %d bytes; stats %+v; log %s", got.Load(), size, st, log)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() < size {
		t.Fatalf("trace of %d bytes (%v), want more than %d", fi.Size(), err, size)
	}
	t.Logf("%d MB through the recorder in %v (%.0f MB/s), trace %d bytes, peak Go heap in use %.1f MiB",
		mb, elapsed.Round(time.Millisecond), float64(mb)/elapsed.Seconds(), fi.Size(), float64(peak.Load())/(1<<20))
	if peak.Load() > 64<<20 {
		t.Errorf("peak heap %d bytes, want under 64 MiB", peak.Load())
	}
}

// repeatReader reads as an endless run of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
