package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/syncbuf"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// recordPNG is the picture the tests' MCP server and client exchange.
func recordPNG() []byte { return testimages.PNG(320, 200, 26) }

// mcpPictureServer is an MCP server of the official Go SDK on stdio, with one tool,
// "screenshot", whose result is a text block and a PNG image block (the test binary runs it
// as the command mcp-picture-server).
func mcpPictureServer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "picture-server", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "screenshot", Description: "Capture the screen"},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Screenshot of display 1"},
				&mcp.ImageContent{Data: recordPNG(), MIMEType: "image/png"},
			}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-picture-server:", err)
		return 1
	}
	return 0
}

// TestRecordMCPWithSDK: the official Go SDK's client starts `strata-eval record mcp -- SERVER`
// with its CommandTransport, where SERVER is the SDK's server above; the screenshot tool's
// picture arrives whole through the tap, and replay of the transcript finds that picture (its
// sha256) in the tool result and lifts it out of the after arm's text.
func TestRecordMCPWithSDK(t *testing.T) {
	if _, err := exec.LookPath("mcp-picture-server"); err != nil {
		t.Skipf("the test binary's commands are not on PATH: %v", err)
	}
	out := filepath.Join(t.TempDir(), "screenshot.jsonl")
	var stderr bytes.Buffer
	cmd := exec.Command("strata-eval", "record", "mcp", "--out", out, "--", "mcp-picture-server")
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "record-test", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "screenshot", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want 2", len(res.Content))
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || !bytes.Equal(img.Data, recordPNG()) {
		t.Fatalf("the picture did not arrive whole: %T", res.Content[1])
	}
	if err := session.Close(); err != nil {
		t.Fatalf("close: %v (stderr: %s)", err, stderr.String())
	}

	sum := sha256.Sum256(recordPNG())
	want := hex.EncodeToString(sum[:])
	code, errOut, r := replayLive(t, t.TempDir(), out)
	if code != ExitOK || r == nil || len(r.Cases) != 1 {
		t.Fatalf("replay: exit %d, %s", code, errOut)
	}
	found := map[string]bool{}
	for _, a := range r.Cases[0].Arms {
		for _, p := range a.Pictures {
			if p.SHA256 == want && p.Width == 320 && p.Height == 200 {
				found[a.Arm] = true
			}
		}
	}
	if !found["before"] || !found["after"] {
		t.Fatalf("replay did not find the picture (sha256 %s) in both arms: %v", want, found)
	}
	data, _ := os.ReadFile(out)
	if n := bytes.Count(data, []byte("\n")); n < 4 || !bytes.Contains(data, []byte(`"dir":"server->client","message":{"jsonrpc":"2.0","id":`)) {
		t.Fatalf("transcript of %d lines:\n%.2000s", n, data)
	}
}

// sseAdapter answers a Chat Completions request with "stream":true as llama-server streams
// one: the answer of next (asked without stream) in a content delta, then a last chunk with
// the usage and timings, then [DONE]. Other requests go to next as they are.
func sseAdapter(t *testing.T, next string) http.Handler {
	u, _ := url.Parse(next)
	direct := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]json.RawMessage
		if json.Unmarshal(body, &req) != nil || string(req["stream"]) != "true" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			direct.ServeHTTP(w, r)
			return
		}
		delete(req, "stream")
		plain, _ := json.Marshal(req)
		preq, _ := http.NewRequestWithContext(r.Context(), "POST", next+r.URL.Path, bytes.NewReader(plain))
		preq.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(preq)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var full struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
			Usage   json.RawMessage `json:"usage"`
			Timings json.RawMessage `json:"timings"`
		}
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&full) != nil || len(full.Choices) == 0 {
			t.Errorf("the upstream answered the streamed request %d", resp.StatusCode)
			http.Error(w, "bad upstream answer", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		delta, _ := json.Marshal(full.Choices[0].Message.Content)
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s}}],\"object\":\"chat.completion.chunk\"}\n\n", delta)
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"delta\":{}}],\"object\":\"chat.completion.chunk\",\"usage\":%s,\"timings\":%s}\n\ndata: [DONE]\n\n", full.Usage, full.Timings)
	})
}

var recordListening = regexp.MustCompile(`record http: (http://127\.0\.0\.1:\d+) → `)

// recordAgent runs `strata-eval record http` in front of upstream and drives it as an agent
// does, with the API key key: a question with a tool declared, the tool's call and its result
// (carrying a PNG screenshot, as a stringified MCP result as Chatbox sends it, when picture is
// set), and a streamed (SSE) follow-up. It returns the trace and the prompt tokens the server
// reported for each request.
func recordAgent(t *testing.T, upstream, key string, picture bool) (trace string, reported []int) {
	t.Helper()
	trace = filepath.Join(t.TempDir(), "agent.httprr")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errOut := &syncbuf.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"record", "http", "--listen", "127.0.0.1:0", "--upstream", upstream, "--out", trace},
			&IOStreams{Out: io.Discard, ErrOut: errOut})
	}()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(5 * time.Millisecond) {
		if m := recordListening.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("the recorder did not start: %s", errOut.String())
		}
	}

	result := []any{map[string]any{"type": "text", "text": "Screenshot of display 1: a terminal and a browser"}}
	if picture {
		result = append(result, map[string]any{"type": "image", "data": base64.StdEncoding.EncodeToString(recordPNG()), "mimeType": "image/png"})
	}
	toolText, _ := json.Marshal(map[string]any{"content": result})
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "screenshot",
		"description": "Capture the screen", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}}
	msgs := []any{map[string]any{"role": "system", "content": "You are a desktop agent."},
		map[string]any{"role": "user", "content": "What is on my screen?"}}
	send := func(stream bool) string {
		body := map[string]any{"model": "qwen3", "messages": msgs, "tools": tools, "max_tokens": 4}
		if stream {
			body["stream"], body["stream_options"] = true, map[string]any{"include_usage": true}
		}
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", base+"/v1/chat/completions", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, answer)
		}
		m := regexp.MustCompile(`"prompt_tokens":(\d+)`).FindSubmatch(answer)
		if m == nil {
			t.Fatalf("no usage in %s", answer)
		}
		var n int
		fmt.Sscan(string(m[1]), &n)
		reported = append(reported, n)
		return string(answer)
	}
	send(false)
	msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
		"function": map[string]any{"name": "screenshot", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": string(toolText)})
	send(false)
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "A terminal and a browser."},
		map[string]any{"role": "user", "content": "Which browser?"})
	if answer := send(true); !strings.HasPrefix(answer, "data: {") || !strings.HasSuffix(strings.TrimSpace(answer), "data: [DONE]") {
		t.Fatalf("the stream did not come back as sent: %q", answer)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("record http: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "3 exchange(s) recorded") {
		t.Errorf("stderr: %s", errOut.String())
	}
	if data, err := os.ReadFile(trace); err != nil || bytes.Contains(data, []byte(key)) {
		t.Fatalf("the trace cannot be read (%v) or holds the API key", err)
	}
	return trace, reported
}

// recordedUsage reads the trace and checks that each request's recorded usage is what the
// server reported; it returns the recorded prompt tokens by conversation id.
func recordedUsage(t *testing.T, trace string, reported []int) map[string]int {
	t.Helper()
	var col corpora.Collector
	if err := corpora.ReadFile(context.Background(), trace, "", &col); err != nil || len(col.Problems) > 0 || len(col.Conversations) != len(reported) {
		t.Fatalf("trace: %v %v, %d conversations", err, col.Problems, len(col.Conversations))
	}
	recorded := map[string]int{}
	for i, c := range col.Conversations {
		if c.ServerUsage == nil || c.ServerUsage.PromptTokens != reported[i] || c.ServerUsage.PromptMS == 0 {
			t.Fatalf("request %d: recorded usage %+v, the server reported %d", i, c.ServerUsage, reported[i])
		}
		recorded[c.ID] = c.ServerUsage.PromptTokens
	}
	return recorded
}

// checkReplayOfRecording: every arm the server counted has server − computed = 0, and each
// case's before arm counts what the server reported while recording. It returns the number
// of after arms in which the screenshot (320×200) was lifted.
func checkReplayOfRecording(t *testing.T, r *results.Report, recorded map[string]int) (lifted int) {
	t.Helper()
	if len(r.Cases) != len(recorded) {
		t.Fatalf("%d cases, want %d", len(r.Cases), len(recorded))
	}
	for _, c := range r.Cases {
		conv, _, _ := strings.Cut(c.ID, "@")
		for _, a := range c.Arms {
			if a.CountDiff == nil || *a.CountDiff != 0 {
				t.Errorf("%s %s: server − computed %v, want 0", c.ID, a.Arm, a.CountDiff)
			}
			if a.Arm == "before" && a.PromptTokens != recorded[conv] {
				t.Errorf("%s: the before arm counts %d, the server reported %d while recording", c.ID, a.PromptTokens, recorded[conv])
			}
			for _, p := range a.Pictures {
				if a.Arm == "after" && p.Width == 320 {
					lifted++
				}
			}
		}
	}
	return lifted
}

// TestRecordHTTPThenReplay puts `strata-eval record http` in front of an OpenAI-compatible
// server shaped like llama-server (it counts each request with a real engine, reports
// usage.prompt_tokens and timings, streams when asked, and requires an API key) and drives it
// with an agent's request sequence (recordAgent). Replay of the trace with the http engine
// against the same kind of server gives server − computed = 0 on every arm, its before arm
// counts exactly what the server reported while recording, and the screenshot is lifted.
func TestRecordHTTPThenReplay(t *testing.T) {
	const key = "sk-record-test-0123456789"
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), Timings: true, APIKey: key})
	defer srv.Close()
	upstream := httptest.NewServer(sseAdapter(t, srv.URL))
	defer upstream.Close()
	trace, reported := recordAgent(t, upstream.URL, key, true)
	recorded := recordedUsage(t, trace, reported)

	replaySrv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), Timings: true})
	defer replaySrv.Close()
	code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", replaySrv.URL, "--no-cache", trace)
	if code != ExitOK || r == nil {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	if lifted := checkReplayOfRecording(t, r, recorded); lifted != 2 {
		t.Errorf("the screenshot was lifted in %d after arms, want 2 (the tool result and the follow-up)", lifted)
	}
}

// TestLiveRecordLlamaServer is TestRecordHTTPThenReplay against a real llama-server (the tiny
// Qwen3 model, no projector, so the tool result carries no picture): the recorder in front of
// it, then replay of the trace against it with --tokenizer the same GGUF. Skipped without the
// binary (make llama-server) or the tokenizer.
func TestLiveRecordLlamaServer(t *testing.T) {
	bin, _, model := liveSetup(t, tinymodel.Options{})
	url := startLlamaServer(t, bin, model)
	trace, reported := recordAgent(t, url, "sk-unused", false)
	recorded := recordedUsage(t, trace, reported)
	r := liveRun(t, "http", []string{"--engine", "http", "--endpoint", url, "--no-cache", "--tokenizer", model, trace})
	checkReplayOfRecording(t, r, recorded)
}
