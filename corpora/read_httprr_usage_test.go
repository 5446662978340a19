package corpora

import (
	"bytes"
	"compress/gzip"
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestHTTPRRServerUsage: the usage a server reported in the recorded response of an httprr
// record reaches the conversation, from a JSON body (with llama.cpp timings), an OpenAI stream,
// an Anthropic stream (cache reads and writes counted in) and a gzip body; an error response
// reports none.
func TestHTTPRRServerUsage(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	for _, tt := range []struct {
		name, resp string
		want       *ServerUsage
	}{
		{"json", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" +
			`{"choices":[],"usage":{"prompt_tokens":812,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":3}},"timings":{"prompt_ms":12.5,"predicted_ms":40}}`,
			&ServerUsage{Status: 200, PromptTokens: 812, CompletionTokens: 5, CachedTokens: 3, PromptMS: 12.5, PredictedMS: 40}},
		{"openai stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n",
			&ServerUsage{Status: 200, PromptTokens: 90, CompletionTokens: 2}},
		{"anthropic stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\r\n" +
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":20,\"cache_creation_input_tokens\":5,\"output_tokens\":1}}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n",
			&ServerUsage{Status: 200, PromptTokens: 125, CompletionTokens: 7, CachedTokens: 20}},
		{"gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gz(`{"usage":{"input_tokens":44,"output_tokens":1}}`),
			&ServerUsage{Status: 200, PromptTokens: 44, CompletionTokens: 1}},
		{"error", "HTTP/1.1 500 Internal Server Error\r\n\r\n{\"usage\":{\"prompt_tokens\":1}}", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := "POST http://127.0.0.1:8080/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n" +
				`{"model":"m","messages":[{"role":"user","content":"hi"}]}`
			trace := httprrHeader + "\n" + strconv.Itoa(len(req)) + " " + strconv.Itoa(len(tt.resp)) + "\n" + req + tt.resp
			var col Collector
			if err := Read(context.Background(), "t.httprr", strings.NewReader(trace), "", &col); err != nil || len(col.Problems) > 0 || len(col.Conversations) != 1 {
				t.Fatalf("read: %v, %v, %d conversations", err, col.Problems, len(col.Conversations))
			}
			got := col.Conversations[0].ServerUsage
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Fatalf("usage %+v, want %+v", got, tt.want)
			}
		})
	}
}
