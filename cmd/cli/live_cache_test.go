package cli

import (
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/internal/testkit/tinyproj"
	"github.com/strata-eval/strata-eval/results"
)

// TestLiveLlamaServerCacheFollowsServer puts real llama-servers of the bound release behind
// one port, one after another, all serving their model under the same alias: the tiny Qwen3
// model with a tiny LLaVA projector, then a projector of another picture size, then another
// model file (one that adds a BOS). After each swap the same replay with the response cache
// (the one folder all runs share) gives, on every arm the server counted, the count a replay
// without the cache gets from the server in place: no figure comes from the cache that
// today's server would not give. The swaps must change some counts, or the test proves
// nothing. Skipped without the binary or the tokenizer.
func TestLiveLlamaServerCacheFollowsServer(t *testing.T) {
	bin, root, model := liveSetup(t, tinymodel.Options{})
	_, _, bosModel := liveSetup(t, tinymodel.Options{AddBOS: true})
	small := llavaProjector(t, 224)
	servers := []struct {
		what, model, projector string
	}{
		{"LLaVA 336 px", model, llavaProjector(t, 336)},
		{"another projector (LLaVA 224 px)", model, small},
		{"another model file", bosModel, small},
	}
	cache := t.TempDir()
	port := llamaserver.FreePort(t)
	sample := filepath.Join(root, "corpora", "samples", "openai-chat-tiny-png.json")
	common := []string{"--tokenizer", model, "--turns", "all", "--count-timeout", "2m", sample}
	var previous map[string]int
	changed := false
	for _, s := range servers {
		url, proc := llamaserver.StartOnPort(t, port, bin, s.model, "--threads", "2", "--parallel", "2",
			"--mmproj", s.projector, "--alias", "tiny")
		cached := serverFigures(t, liveRun(t, "cached", append([]string{"--engine", "http", "--endpoint", url, "--cache-dir", cache}, common...)))
		fresh := serverFigures(t, liveRun(t, "fresh", append(liveHTTPArgs(url), common...)))
		if len(fresh) == 0 {
			t.Fatalf("%s: the server counted no arm", s.what)
		}
		for key, want := range fresh {
			if got, ok := cached[key]; !ok || got != want {
				t.Errorf("%s: %s: the run with the cache gives %d (counted by the server: %v), the server gives %d", s.what, key, got, ok, want)
			}
		}
		for key, n := range previous {
			if fresh[key] != n {
				changed = true
			}
		}
		t.Logf("%s: %d arms, each as the server counts it today", s.what, len(fresh))
		previous = fresh
		stopAndWait(t, proc, port)
	}
	if !changed {
		t.Error("no swap changed a count: the test proves nothing")
	}
}

// llavaProjector writes a tiny LLaVA 1.5 projector with a vision tower (so that llama-server
// takes it) for pictures of size × size pixels.
func llavaProjector(t *testing.T, size int) string {
	t.Helper()
	c, ok := tinyproj.ByName("llava-1.5")
	if !ok {
		t.Fatal("no tiny projector configuration llava-1.5")
	}
	c.Layers, c.ImageSize = 2, size
	path := filepath.Join(t.TempDir(), fmt.Sprintf("llava-%d.gguf", size))
	if err := tinyproj.Write(path, c, tinyproj.Width, 1); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverFigures are the prompt tokens of every arm the server counted, by case and arm.
func serverFigures(t *testing.T, r *results.Report) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, c := range r.Cases {
		if c.Error != "" {
			t.Errorf("case %s failed: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			if a.TextSource == results.SourceServer {
				out[c.ID+" "+a.Arm] = a.PromptTokens
			}
		}
	}
	return out
}

// stopAndWait kills the server and waits until nothing listens on its port.
func stopAndWait(t *testing.T, proc interface{ Kill() error }, port int) {
	t.Helper()
	_ = proc.Kill()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err != nil {
			return
		}
		c.Close()
	}
	t.Fatalf("port %d still answers 30 s after the server was killed", port)
}
