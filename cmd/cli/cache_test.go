package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

// TestCacheCommand: after a replay against a server that says what it runs, `cache` lists
// the entries under that server with their size; --clear empties the cache.
func TestCacheCommand(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true, Props: true, Context: 1 << 20})
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "responses")
	if code, _, errOut := runCLI(t, "replay", "--engine", "http", "--endpoint", srv.URL, "--cache-dir", dir,
		"../../corpora/samples/openai-chat-text-only.json"); code != ExitOK {
		t.Fatalf("replay: exit %d:\n%s", code, errOut)
	}
	code, out, errOut := runCLI(t, "cache", "--cache-dir", dir)
	if code != ExitOK || !strings.Contains(out, "response cache "+dir+": ") || !strings.Contains(out, "b0000-test at "+srv.URL) {
		t.Fatalf("cache: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "cache", "--cache-dir", dir, "--clear")
	if code != ExitOK || !strings.Contains(out, ": 0 entr(ies), 0.0 MB") || !strings.Contains(errOut, "entr(ies) removed") {
		t.Errorf("cache --clear: exit %d:\n%s%s", code, out, errOut)
	}
}
