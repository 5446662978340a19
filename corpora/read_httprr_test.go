package corpora

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// httprrRecord frames one request/response pair as the recorder writes it: the User-Agent
// header line ends in LF, the others in CRLF, and the body has no newline after it.
func httprrRecord(method, url string, headers []string, body, response string) string {
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: h\r\nUser-Agent: langchaingo-httprr\nContent-Length: %d\r\n", method, url, len(body))
	for _, h := range headers {
		req.WriteString(h + "\r\n")
	}
	req.WriteString("\r\n" + body)
	resp := "HTTP/2.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + response
	return fmt.Sprintf("%d %d\n%s%s", req.Len(), len(resp), req.String(), resp)
}

func TestReadHTTPRRRealSamples(t *testing.T) {
	type counts struct{ messages, calls, results, opaque int }
	tests := []struct {
		file     string
		format   Format
		provider string
		model    string
		lines    []int // line of each request body in the file
		perConv  []counts
	}{
		{"langchaingo-anthropic-tool-result.httprr", FormatAnthropic, "api.anthropic.com", "claude-sonnet-4-5", []int{12, 46},
			[]counts{{1, 0, 0, 0}, {3, 1, 1, 1}}},
		{"langchaingo-moonshot-openai-compat-tool-result.httprr", FormatOpenAIChat, "api.moonshot.ai", "kimi-k2.5", []int{10, 36},
			[]counts{{1, 0, 0, 0}, {3, 1, 1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(apiRealSamples, tt.file))
			if err != nil {
				t.Skipf("real sample missing: %v", err)
			}
			c, err := apiRead(t, readHTTPRR, "samples/"+tt.file, string(raw))
			if err != nil || len(c.Problems) != 0 {
				t.Fatalf("err %v, problems:\n%s", err, apiShortProblems(c))
			}
			if len(c.Conversations) != len(tt.perConv) {
				t.Fatalf("%d conversations", len(c.Conversations))
			}
			for i, conv := range c.Conversations {
				var got counts
				got.messages = len(conv.Messages)
				for _, m := range conv.Messages {
					for _, p := range m.Parts {
						switch p.Kind {
						case PartToolCall:
							got.calls++
						case PartToolResult:
							got.results++
						case PartOpaque:
							got.opaque++
						}
					}
				}
				if got != tt.perConv[i] {
					t.Errorf("conversation %d: %+v, want %+v", i, got, tt.perConv[i])
				}
				if conv.ID != fmt.Sprintf("samples/%s#%d", tt.file, i) || conv.Format != tt.format || conv.Provider != tt.provider || conv.Model != tt.model {
					t.Errorf("header %q %q %q %q", conv.ID, conv.Format, conv.Provider, conv.Model)
				}
				if conv.Source.Line != tt.lines[i] || conv.Source.File != "samples/"+tt.file {
					t.Errorf("source %+v, want line %d", conv.Source, tt.lines[i])
				}
				js, _ := json.Marshal(conv)
				for _, secret := range []string{"test-api-key", "Authorization", "Bearer", "X-Api-Key"} {
					if bytes.Contains(js, []byte(secret)) || bytes.Contains(conv.Messages[0].Raw, []byte(secret)) {
						t.Errorf("conversation %d carries %q", i, secret)
					}
				}
			}
			last := c.Conversations[1]
			tool := last.Messages[2]
			res := tool.Parts[0].ToolResult
			if tool.Role != RoleTool || !res.IsText || res.Name != "get_weather" {
				t.Errorf("tool message = %+v / %+v", tool, res)
			}
			switch tt.format {
			case FormatAnthropic:
				// The thinking block is kept whole and byte-identical (signature included).
				start := bytes.Index(raw, []byte(`{"type":"thinking"`))
				end := bytes.Index(raw[start:], []byte(`"},{"type":"tool_use"`)) + start + 2
				think := last.Messages[1].Parts[0]
				if think.Text != string(raw[start:end]) || !strings.Contains(think.Text, `"signature":"EtwCCkYICxgCKkCEz+rKTIOYZe9QecQgik+7E+vvKt4yO1gnBuWc27qeE01iRBUIVDCuDDcS9/A//`) {
					t.Errorf("thinking block not kept byte-identical: %q", think.Text)
				}
				if res.Text != `{"temperature": 72, "condition": "sunny"}` || res.CallID != "toolu_01E8myeoMN7KKGeCQnAgGd3F" {
					t.Errorf("tool result = %+v", res)
				}
				if call := last.Messages[1].Parts[1].ToolCall; call.Arguments != `{"location":"Boston"}` {
					t.Errorf("tool call = %+v", call)
				}
			case FormatOpenAIChat:
				if res.Text != `{"temperature": "22°C", "condition": "sunny"}` || res.CallID != "get_weather:0" || tool.Name != "get_weather" {
					t.Errorf("tool result = %+v", res)
				}
				if call := last.Messages[1].Parts[1].ToolCall; call.ID != "get_weather:0" || call.Arguments != `{"location": "Beijing"}` {
					t.Errorf("tool call = %+v", call)
				}
				if r := last.Messages[1].Parts[0]; r.Kind != PartOpaque || !strings.HasPrefix(r.Text, `"The user is asking for the weather in Beijing.`) {
					t.Errorf("reasoning = %+v", r)
				}
			}
		})
	}
}

func TestReadHTTPRRSynthetic(t *testing.T) {
	pic := apiTestPNG(t, 40, 30)
	respBody := responsesBody(t, pic)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"model":"m","system":"s","messages":[{"role":"user","content":"zipped"}]}`))
	zw.Close()
	trace := "httprr trace v1\n" +
		httprrRecord("GET", "https://api.openai.com/v1/models", nil, "", `{"data":[]}`) +
		httprrRecord("POST", "https://api.openai.com/v1/responses?api-key=SECRET", []string{"Authorization: Bearer sk-SECRET"}, respBody, `{"id":"resp_1"}`) +
		httprrRecord("POST", "https://proxy.local/llm", []string{"Anthropic-Version: 2023-06-01", "Content-Encoding: gzip"}, gz.String(), `{}`) +
		httprrRecord("POST", "https://api.openai.com/v1/chat/completions", nil, `{"model":"m","messages":{}}`, `{}`) +
		httprrRecord("POST", "https://api.openai.com/v1/embeddings", nil, `{"model":"e","input":"x"}`, `{}`)
	c, err := apiRead(t, readHTTPRR, "t.httprr", trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Error(), "httprr record 3: messages must be an array") || c.Problems[0].Loc.Pointer != "/messages" {
		t.Errorf("problems:\n%s", apiShortProblems(c))
	}
	if len(c.Conversations) != 2 {
		t.Fatalf("%d conversations", len(c.Conversations))
	}
	r := c.Conversations[0]
	if r.ID != "t.httprr#1" || r.Format != FormatOpenAIResponses || len(r.Messages) != 8 {
		t.Errorf("responses conversation %q %q %d", r.ID, r.Format, len(r.Messages))
	}
	if img := r.Messages[4].Parts[0].ToolResult.Parts[1].Image; img == nil || apiSum(img.Data) != apiSum(pic) {
		t.Errorf("picture lost in the httprr body")
	}
	js, _ := json.Marshal(c.Conversations)
	if bytes.Contains(js, []byte("SECRET")) {
		t.Errorf("a key from the URL or headers was copied: %s", js)
	}
	if z := c.Conversations[1]; z.ID != "t.httprr#2" || z.Format != FormatAnthropic || z.Messages[1].Parts[0].Text != "zipped" {
		t.Errorf("gzip conversation = %+v", z)
	}
}

func TestReadHTTPRRBroken(t *testing.T) {
	good := httprrRecord("POST", "https://api.anthropic.com/v1/messages", nil, `{"messages":[{"role":"user","content":"x"}]}`, "{}")
	tests := []struct {
		name    string
		input   string
		convs   int
		wantErr string
	}{
		{"not a trace", "GET / HTTP/1.1\r\n", 0, "t:1: not an httprr trace"},
		{"bad length line", "httprr trace v1\n" + good + "abc def\n", 1, "bad record lengths"},
		{"truncated request", "httprr trace v1\n" + good + "500 10\nPOST https://x", 1, "httprr record 1: request truncated after 14 of 500 bytes"},
		{"truncated response", "httprr trace v1\n" + good[:len(good)-1], 0, "response truncated after"},
		{"absurd length", "httprr trace v1\n99999999999 0\n", 0, "record larger than"},
		{"empty trace", "httprr trace v1\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiRead(t, readHTTPRR, "t", tt.input)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if len(c.Conversations) != tt.convs {
				t.Errorf("%d conversations, want %d", len(c.Conversations), tt.convs)
			}
		})
	}
}

func TestReadHTTPRRCancelled(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(apiRealSamples, "langchaingo-anthropic-tool-result.httprr"))
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var c Collector
	if err := readHTTPRR(ctx, "t", bytes.NewReader(raw), &c); err == nil || len(c.Conversations) != 0 {
		t.Errorf("err = %v, %d conversations", err, len(c.Conversations))
	}
}

func FuzzReadHTTPRR(f *testing.F) {
	for _, name := range []string{"langchaingo-anthropic-tool-result.httprr", "langchaingo-moonshot-openai-compat-tool-result.httprr"} {
		if b, err := os.ReadFile(filepath.Join(apiRealSamples, name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("httprr trace v1\n" + httprrRecord("POST", "https://x/v1/responses", nil, `{"input":"hi"}`, "{}")))
	f.Add([]byte("httprr trace v1\n" + httprrRecord("POST", "https://x/", []string{"Transfer-Encoding: chunked"}, "5\r\n{\"a\":\r\n0\r\n\r\n", "{}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collector
		h := httprrReader{name: "fuzz", base: "fuzz", e: &c, maxRecord: 1 << 20}
		_ = h.read(context.Background(), bytes.NewReader(data))
		apiCheckInvariants(t, &c)
	})
}

func TestHTTPRRDechunk(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"5\r\n{\"a\":\r\n2;ext=1\r\n1}\r\n0\r\n\r\n", `{"a":1}`, ""},
		{"3\nabc\n0\n", "abc", ""},
		{"5\r\n{\";\":\r\n0\r\n\rb", `{";":`, ""}, // garbage after the last chunk is ignored
		{"zz\r\n", "", "bad chunk size"},
		{"9\r\nabc", "", "chunk of 9 bytes, only 3 left"},
		{"3\r\nabcX", "", "not followed by a line end"},
		{"3\r\nabc\r\n", "", "without a newline"},
	}
	for _, tt := range tests {
		got, err := httprrDechunk([]byte(tt.in), 1<<20)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: got %q, %v", tt.in, got, err)
		}
	}
}
