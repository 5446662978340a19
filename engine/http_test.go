package engine

import (
	"context"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/replay"
)

// sampleRequest returns the last request of a sample conversation.
func sampleRequest(t *testing.T, file string) corpora.Request {
	t.Helper()
	var col corpora.Collector
	data, err := corpora.SampleFS().Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	if err := corpora.Read(context.Background(), file, data, "", &col); err != nil {
		t.Fatal(err)
	}
	if len(col.Conversations) == 0 {
		t.Fatalf("%s: no conversation", file)
	}
	req, ok := col.Conversations[0].LastRequest()
	if !ok {
		t.Fatalf("%s: no request", file)
	}
	return req
}

func newOffline(t testing.TB) *Offline {
	t.Helper()
	off, err := NewOffline(OfflineConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func applyArm(t *testing.T, name string, server replay.ServerSide, req corpora.Request) *replay.Result {
	t.Helper()
	res, err := replay.Arm{Name: name, Settings: replay.Settings{Client: replay.ClientRecorded, Server: server}}.Apply(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHTTPCountMatchesOffline sends the before and after arms of a sample with a picture in a
// tool result to a server that counts with the offline engine: the server's counts equal the
// computed ones, and the image rows measured by difference equal the computed rows.
func TestHTTPCountMatchesOffline(t *testing.T) {
	off := newOffline(t)
	req := sampleRequest(t, "openai-chat-aisdk5-calltoolresult.json")
	for _, tc := range []struct {
		name        string
		inputTokens bool
		method      string
	}{
		{"input_tokens endpoint", true, CountInputTokens},
		{"usage of a one-token completion", false, CountUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testserver.New(testserver.Config{Counter: PromptTokens(off), InputTokens: tc.inputTokens, Timings: true})
			defer srv.Close()
			h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL + "/v1"}, Model: "qwen3-vl"})
			if err != nil {
				t.Fatal(err)
			}
			for _, arm := range []struct {
				name   string
				server replay.ServerSide
			}{{"before", replay.ServerLegacy}, {"after", replay.ServerLift}} {
				res := applyArm(t, arm.name, arm.server, req)
				want, err := off.Count(context.Background(), res.Messages, req.Conversation.Tools)
				if err != nil {
					t.Fatal(err)
				}
				got, err := h.ServerCount(context.Background(), Request{Messages: res.Messages, Tools: req.Conversation.Tools})
				if err != nil {
					t.Fatalf("%s: %v", arm.name, err)
				}
				if got.Method != tc.method || got.TextSource != "server" {
					t.Errorf("%s: method %q source %q, want %q server", arm.name, got.Method, got.TextSource, tc.method)
				}
				if got.PromptTokens != want.PromptTokens {
					t.Errorf("%s: server counted %d, computed %d", arm.name, got.PromptTokens, want.PromptTokens)
				}
				// The difference also holds the template's framing around each picture (a
				// separator between parts): at most a few tokens a picture.
				if got.ImageRows < want.ImageRows || got.ImageRows > want.ImageRows+4*len(want.Images) {
					t.Errorf("%s: server rows %d, computed %d", arm.name, got.ImageRows, want.ImageRows)
				}
				if arm.name == "after" && (got.ImageRows == 0 || got.RowsSource != "server") {
					t.Errorf("after: rows %d source %q, want rows measured by difference", got.ImageRows, got.RowsSource)
				}
			}
		})
	}
}
