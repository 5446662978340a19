package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestDumpIsTheBodySent replays the sample corpus with every arm (a verbatim one included)
// against a loopback server of each API, and checks that every file --dump writes is, byte for
// byte, a body the server received (the server receives more: the engine counts a request with
// pictures once more without them, to split text tokens from image rows).
func TestDumpIsTheBodySent(t *testing.T) {
	config := filepath.Join(t.TempDir(), "arms.yaml")
	if err := os.WriteFile(config, []byte("arms:\n  - name: verbatim\n    client: recorded\n    server: verbatim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for api, path := range map[string]string{"openai": "/v1/chat/completions/input_tokens", "anthropic": "/v1/messages/count_tokens"} {
		t.Run(api, func(t *testing.T) {
			var mu sync.Mutex
			received := map[string]bool{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != path {
					http.NotFound(w, r)
					return
				}
				body, err := io.ReadAll(r.Body)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				received[string(body)] = true
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"input_tokens":%d}`, 100+len(body)%1000)
			}))
			defer srv.Close()
			dump := t.TempDir()
			code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--api", api,
				"--count-method", "input_tokens", "--no-cache", "--config", config,
				"--arms", "before,after,agent,verbatim", "--dump", dump)
			if code != ExitOK || r == nil {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(dump, "*.request.json"))
			if want := 4 * len(r.Cases); len(files) != want {
				t.Fatalf("%d dumps, want %d (4 arms × %d cases)", len(files), want, len(r.Cases))
			}
			dumped := map[string]bool{}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				dumped[string(b)] = true
				if !received[string(b)] {
					t.Errorf("%s is not a body the server received", filepath.Base(f))
				}
			}
		})
	}
}
