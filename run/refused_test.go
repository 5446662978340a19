package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

// TestRefusedRequestIsArmError: a server that refuses some requests with an HTTP 500 while it
// answers the others (Ollama's "no input provided" to a conversation without a user turn) does
// not stop the run: every case is measured, each refused arm is an error of its case, the
// refusal is said once on stderr and once in the report, and the circuit stays closed.
func TestRefusedRequestIsArmError(t *testing.T) {
	arms, off := afterArmOffline(t)
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true, Props: true, Context: 1 << 20})
	defer srv.Close()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("weather in Berlin")) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"error":"Failed to create new sequence: no input provided"}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	h, err := engine.NewHTTP(engine.HTTPConfig{Endpoints: []string{front.URL}, Model: "tiny", Backoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	paths := []string{"../corpora/samples/openai-chat-text-only.json", "../corpora/samples/mcp-stdio-2025-11-25.jsonl"}
	rep, err := Run(context.Background(), Config{Paths: paths, Workers: 1, Arms: arms, Offline: off, Engine: h,
		Tokenizer: "o200k_base", Notes: &notes})
	var server *ServerError
	if rep == nil || errors.As(err, &server) {
		t.Fatalf("the run stopped: %v\n%s", err, notes.String())
	}
	refused, measured := 0, 0
	for _, c := range rep.Cases {
		if strings.Contains(c.Error, "no input provided") {
			refused++
		}
		measured += len(c.Arms)
	}
	// the refusal as the arms' error; the template check that the same refusal stopped says so apart
	said := strings.Count(notes.String(), "no input provided") - strings.Count(notes.String(), "could not be compared with --template")
	report := strings.Join(rep.Config.Warnings, "\n")
	if refused == 0 || measured == 0 || said != 1 || !strings.Contains(report, "refused "+strconv.Itoa(refused)+" arm(s) with HTTP 500") {
		t.Errorf("%d case(s) refused, %d arm(s) measured, said %d time(s) on stderr:\n%s\nreport: %s", refused, measured, said, notes.String(), report)
	}
}
