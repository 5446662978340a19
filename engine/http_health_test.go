package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/replay"
)

// TestNoPicturesIsNotRetried sends a request with a picture to a server that takes none
// (llama-server without --mmproj answers HTTP 500 "image input is not supported"): it is sent
// once, not retried; the next request with a picture is not sent at all; a request without one
// is counted as before.
func TestNoPicturesIsNotRetried(t *testing.T) {
	off := newOffline(t)
	srv := testserver.New(testserver.Config{Counter: PromptTokens(off), InputTokens: true, NoPictures: true})
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}, Backoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	req := sampleRequest(t, "openai-chat-aisdk5-calltoolresult.json")
	after := applyArm(t, "after", replay.ServerLift, req)
	if countPictures(after.Messages) == 0 {
		t.Fatal("the sample's after arm carries no picture")
	}
	start := time.Now()
	for i := range 2 {
		_, err := h.ServerCount(context.Background(), Request{Messages: after.Messages, Tools: req.Conversation.Tools})
		if !errors.Is(err, ErrNoPictures) {
			t.Fatalf("count %d: %v, want ErrNoPictures", i, err)
		}
		if !strings.Contains(err.Error(), "the server does not take pictures") || !strings.Contains(err.Error(), "image input is not supported") {
			t.Errorf("count %d: error %q does not say what the server said", i, err)
		}
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("two counts took %v: the 500 was retried", d)
	}
	if n := srv.Requests()["/v1/chat/completions/input_tokens"]; n != 1 {
		t.Errorf("the server received %d requests, want 1 (no retry, the second not sent)", n)
	}
	before := applyArm(t, "before", replay.ServerLegacy, req)
	if countPictures(before.Messages) != 0 {
		t.Fatal("the sample's before arm carries a picture")
	}
	if _, err := h.ServerCount(context.Background(), Request{Messages: before.Messages, Tools: req.Conversation.Tools}); err != nil {
		t.Errorf("a request without pictures: %v", err)
	}
}

// TestPermanentServerErrorIsNotRetried: a 5xx saying the request is not supported is final
// (a refusal of pictures when it names them); a 503 "Loading model" or a crash is retried
// (TestRetries); a 4xx is not classified here.
func TestPermanentServerErrorIsNotRetried(t *testing.T) {
	for _, tc := range []struct {
		status     int
		msg        string
		final      bool
		noPictures bool
	}{
		{500, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj", true, true},
		{500, "audio input is not supported - hint: if this is unexpected, you may need to provide the mmproj", true, true},
		{501, "vision is not enabled on this server", true, true},
		{500, "Infill is not supported by this model: no FIM tokens", true, false},
		{503, "Loading model", false, false},
		{500, "llama_decode failed", false, false},
		{400, "image input is not supported", false, false},
	} {
		err := permanentFailure(&endpoint{display: "http://x"}, "/p", tc.status, tc.msg)
		if (err != nil) != tc.final || errors.Is(err, ErrNoPictures) != tc.noPictures {
			t.Errorf("%d %q: %v, want final %v, no pictures %v", tc.status, tc.msg, err, tc.final, tc.noPictures)
		}
	}
}

// TestServerGoneFailsFast: once a server's port has refused connections three times in a row
// for the server wait, every later request fails at once with ErrServerGone, without being
// sent or waiting out retries; a second endpoint that is still there takes the requests.
func TestServerGoneFailsFast(t *testing.T) {
	off := newOffline(t)
	alive := testserver.New(testserver.Config{Counter: PromptTokens(off), InputTokens: true})
	defer alive.Close()
	dead := testserver.New(testserver.Config{Counter: PromptTokens(off), InputTokens: true})
	deadURL := dead.URL
	dead.Close()
	req := sampleRequest(t, "openai-chat-text-only.json")
	r := Request{Messages: req.Messages, Tools: req.Conversation.Tools}

	h, err := NewHTTP(HTTPConfig{Endpoints: []string{deadURL}, Backoff: 10 * time.Millisecond, MaxRetries: 5, ServerWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ServerCount(context.Background(), r); !errors.Is(err, ErrServerGone) {
		t.Fatalf("first count: %v, want ErrServerGone after three refused connections", err)
	}
	start := time.Now()
	for range 20 {
		if _, err := h.ServerCount(context.Background(), r); !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "not sent") {
			t.Fatalf("later count: %v", err)
		}
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("20 counts on a gone server took %v", d)
	}

	two, err := NewHTTP(HTTPConfig{Endpoints: []string{deadURL, alive.URL}, Backoff: 10 * time.Millisecond, ServerWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var failed int
	for range 8 {
		if _, err := two.ServerCount(context.Background(), r); err != nil {
			failed++
		}
	}
	if failed > 1 {
		t.Errorf("%d of 8 counts failed with one endpoint of two gone, want at most the one that found it gone", failed)
	}
}

// TestNothingListensFailsAtOnce: a server that has never answered and refuses the first
// connection is not waited for (the first refusal says nothing listens there), unless
// StartWait asks to wait for one that is starting; then it is asked until the wait is over.
func TestNothingListensFailsAtOnce(t *testing.T) {
	dead := testserver.New(testserver.Config{Counter: PromptTokens(newOffline(t)), InputTokens: true})
	deadURL := dead.URL
	dead.Close()
	r := Request{Messages: sampleRequest(t, "openai-chat-text-only.json").Messages}
	for _, tc := range []struct {
		start    time.Duration
		min, max time.Duration
	}{{0, 0, 500 * time.Millisecond}, {700 * time.Millisecond, 700 * time.Millisecond, 3 * time.Second}} {
		h, err := NewHTTP(HTTPConfig{Endpoints: []string{deadURL}, Backoff: 10 * time.Millisecond, StartWait: tc.start})
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		_, err = h.ServerCount(context.Background(), r)
		took := time.Since(begin)
		if !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "nothing listens there") || took < tc.min || took > tc.max {
			t.Errorf("StartWait %v: %v after %v, want ErrServerGone within [%v, %v]", tc.start, err, took, tc.min, tc.max)
		}
	}
}
