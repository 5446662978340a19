package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// faultSamples are the inputs of the fault tests: a few sample conversations, with and
// without pictures, so that each run is short.
var faultSamples = []string{"openai-chat-text-only.json", "mcp-stdio-2024-11-05.jsonl", "openai-responses-gif.json"}

// faultFlags are short deadlines, so that each fault is found in about a second.
var faultFlags = []string{"--engine", "http", "--no-cache", "--arms", "before,after", "--count-timeout", "2s", "--idle-timeout", "500ms", "--server-wait", "2s", "--retries", "2"}

// replayFault runs replay against url with the fault flags and returns the exit code, stdout,
// stderr and the report written to dir.
func replayFault(t *testing.T, dir, url string, extra ...string) (int, string, string, *results.Report) {
	t.Helper()
	args := []string{"replay", "--out", dir, "--format", "csv", "--endpoint", url}
	args = append(append(args, faultFlags...), extra...)
	for _, f := range faultSamples {
		args = append(args, filepath.Join("..", "..", "corpora", "samples", f))
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &IOStreams{Out: &out, ErrOut: &errOut})
	var r *results.Report
	if raw, err := os.ReadFile(filepath.Join(dir, "results.json")); err == nil {
		r = &results.Report{}
		if err := json.Unmarshal(raw, r); err != nil {
			t.Errorf("results.json: %v", err) // Errorf: called from goroutines too
			r = nil
		}
	}
	return code, out.String(), errOut.String(), r
}

// figures are the measured figures of a report, by case and arm.
func figures(r *results.Report) map[string]string {
	out := map[string]string{}
	if r == nil {
		return out
	}
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			out[c.ID+" "+a.Arm] = fmt.Sprintf("prompt %d text %d rows %d context %d fits %v %s", a.PromptTokens, a.TextTokens, a.ImageRows, a.Context, a.Fits, a.Verdict)
		}
		if c.Error != "" {
			out[c.ID+" error"] = c.Error
		}
	}
	return out
}

// errLines are the lines on stderr that are neither warnings nor a server capability said once.
func errLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		// a server's lack of a capability is said once, like a warning, whenever the first
		// request needing it is sent: before or after a fault, as the load has it; a note of a
		// long wait is progress (one per WaitNote over the engine, as many as a loaded machine
		// makes the healthy requests wait), not a line of the failure
		if l != "" && !strings.Contains(l, "warning:") && !strings.Contains(l, "their arms keep the computed counts") && !isWaitNote(l) {
			out = append(out, l)
		}
	}
	return out
}

// isWaitNote reports whether l is the engine's note of a request that waits long.
func isWaitNote(l string) bool {
	return strings.HasPrefix(l, "strata-eval: waiting ") && strings.Contains(l, " for http")
}

// TestFaultyServer replays a few samples against a server that injects one fault after a few
// healthy answers. Each fault gives: the right figures for what was measured, and none for
// the rest; exit 1 within seconds (a server restarted within --server-wait: exit 0 and every
// figure); at most 3 lines on stderr besides warnings; no tables when nothing was measured;
// nothing sent to the host a redirect names; and --resume against the healed server then gives
// the figures of a clean run.
func TestFaultyServer(t *testing.T) {
	off := testOffline(t)
	server := testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true, Props: true, Context: 8192}
	clean := testserver.New(server)
	defer clean.Close()
	code, _, stderr, want := replayFault(t, t.TempDir(), clean.URL)
	if code != ExitOK || want == nil || len(want.Cases) != len(faultSamples) {
		t.Fatalf("clean run: exit %d: %s", code, stderr)
	}
	wantFigures := figures(want)
	// the faults run four at a time (most of their time is waiting), each a subtest for its
	// report
	problems := make([][]string, len(testserver.Faults))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, fault := range testserver.Faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			problems[i] = faultProblems(t, server, fault, wantFigures)
		}()
	}
	wg.Wait()
	for i, fault := range testserver.Faults {
		t.Run(fault, func(t *testing.T) {
			for _, p := range problems[i] {
				t.Error(p)
			}
		})
	}
}

// faultProblems replays against a server injecting fault, then resumes against it healed,
// and returns what went wrong.
func faultProblems(t *testing.T, server testserver.Config, fault string, wantFigures map[string]string) []string {
	var out []string
	fail := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: server, Fault: fault, After: 3, RestartAfter: 500 * time.Millisecond})
	if err != nil {
		return []string{err.Error()}
	}
	defer srv.Close()
	dir := t.TempDir()
	start := time.Now()
	code, stdout, stderr, r := replayFault(t, dir, srv.URL)
	took := time.Since(start)
	wantCode := ExitError
	if fault == testserver.FaultRestart {
		wantCode = ExitOK
	}
	if code != wantCode || took > 15*time.Second {
		fail("exit %d after %v, want %d within seconds:\n%s", code, took, wantCode, stderr)
	}
	if lines := errLines(stderr); len(lines) > 3 {
		fail("%d lines on stderr besides warnings:\n%s", len(lines), stderr)
	}
	measured := 0
	for k, v := range figures(r) {
		if strings.HasSuffix(k, " error") {
			continue
		}
		measured++
		if wantFigures[k] != v {
			fail("%s: %s, want %s", k, v, wantFigures[k])
		}
	}
	if measured == 0 && stdout != "" {
		fail("nothing measured, yet stdout:\n%s", stdout)
	}
	if code != ExitOK && fault != testserver.FaultPropsBusy && (!strings.Contains(stderr, "--resume") || !strings.Contains(stderr, "measured")) {
		fail("the error does not say how many cases were measured, nor how to resume:\n%s", stderr)
	}
	if n := len(srv.Other.Requests()); n != 0 {
		fail("the host the redirect names received %v", srv.Other.Requests())
	}

	srv.Heal()
	code, _, stderr, r = replayFault(t, dir, srv.URL, "--resume")
	if code != ExitOK {
		fail("resume: exit %d:\n%s", code, stderr)
	}
	if diff := diffFigures(figures(r), wantFigures); diff != "" {
		fail("resumed run differs from a clean one:\n%s", diff)
	}
	return out
}

// TestPropsUnreadableNeedsCtx: a /props that answers 429 and 503 every time stops the run
// (nothing printed on stdout) unless --ctx gives the context, which a warning then says is used.
func TestPropsUnreadableNeedsCtx(t *testing.T) {
	srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true, Props: true, Context: 8192},
		Fault: testserver.FaultPropsBusy})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, stdout, stderr, _ := replayFault(t, t.TempDir(), srv.URL, "--server-wait", "300ms")
	if code != ExitError || stdout != "" || !strings.Contains(stderr, "cannot read the server's context from /props") || !strings.Contains(stderr, "--ctx") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr, r := replayFault(t, t.TempDir(), srv.URL, "--server-wait", "300ms", "--ctx", "8192")
	if code != ExitOK || r == nil || r.Config.Context != 8192 || !strings.Contains(stderr, "warning: cannot read the server's context from /props") {
		t.Errorf("with --ctx: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestNoServerIsOneLine: an endpoint where nothing listens stops the run with one line that
// names the endpoint, the cause and the fix, with or without --ctx, on either API, within
// 2 s: a connection refused before the server ever answered is not waited out (only
// --server-wait waits for a server that is starting).
func TestNoServerIsOneLine(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true})
	url := srv.URL
	srv.Close() // nothing listens there now
	for _, extra := range [][]string{{"--server-wait", "0s"}, {"--server-wait", "0s", "--ctx", "8192"}, {"--server-wait", "0s", "--api", "ollama"}, {"--server-wait", "300ms"}} {
		start := time.Now()
		code, stdout, stderr, _ := replayFault(t, t.TempDir(), url, extra...)
		took := time.Since(start)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != ExitError || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, url) ||
			!strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, "start the server, or give --endpoint") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", extra, code, stdout, stderr)
		}
		if extra[1] == "0s" && took > 2*time.Second {
			t.Errorf("%v: the line came after %v, want at most 2 s", extra, took)
		}
	}
}

// TestResumeKeepsOneContext: resuming with a context other than the one the cases were
// measured with is refused (exit 2), naming both.
func TestResumeKeepsOneContext(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true})
	defer srv.Close()
	dir := t.TempDir()
	if code, _, stderr, _ := replayFault(t, dir, srv.URL, "--ctx", "32768"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr, _ := replayFault(t, dir, srv.URL, "--resume")
	if code != ExitUsage || !strings.Contains(stderr, "measured with a context of 32768 tokens") || !strings.Contains(stderr, "this run's is 262144") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

func diffFigures(got, want map[string]string) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if got[k] != want[k] {
			fmt.Fprintf(&b, "  %s: %q, want %q\n", k, got[k], want[k])
		}
	}
	return b.String()
}

// TestLiveLlamaServerStopped: a real llama-server stopped mid-run, with SIGTERM (it closes its
// port but keeps the connections it has open while it shuts down) or SIGSTOP (it answers
// nothing), is given up within seconds: exit 1 well within 30 s, at most 3 lines on stderr
// besides warnings, the figures measured are right; --resume against a healthy server then gives
// the figures of a clean run. Skipped without the llama-server binary.
func TestLiveLlamaServerStopped(t *testing.T) {
	bin, _, model := liveSetup(t, tinymodel.Options{})
	clean := startLlamaServer(t, bin, model)
	common := []string{"--engine", "http", "--no-cache", "--tokenizer", model, "--answer", "--max-tokens", "16", "--arms", "before,after"}
	// The clean run and the resume wait as long as a busy machine needs (the sample's
	// 1.4-million-token requests); the stopped run keeps the default wait it is judged by.
	patient := []string{"--count-timeout", "2m"}
	code, stderr, want := replayLive(t, t.TempDir(), slices.Concat([]string{"--endpoint", clean}, patient, common)...)
	if code != ExitOK || want == nil {
		t.Fatalf("clean run: exit %d:\n%s", code, tail(stderr, 3000))
	}
	wantFigures := figures(want)
	for _, stop := range []struct {
		name string
		sig  syscall.Signal
	}{{"SIGTERM", syscall.SIGTERM}, {"SIGSTOP", syscall.SIGSTOP}} {
		sig := stop.sig
		t.Run(stop.name, func(t *testing.T) {
			url, proc := llamaserver.StartProcess(t, bin, model, "--threads", "2", "--parallel", "2")
			dir := t.TempDir()
			type result struct {
				code   int
				stderr string
				r      *results.Report
			}
			done := make(chan result, 1)
			go func() {
				c, s, r := replayLive(t, dir, append([]string{"--endpoint", url}, common...)...)
				done <- result{c, s, r}
			}()
			var res result
			for written := false; !written; {
				select {
				case res = <-done:
					t.Skipf("the run ended (exit %d) before the server could be stopped mid-run", res.code)
				case <-time.After(20 * time.Millisecond):
					info, err := os.Stat(filepath.Join(dir, "cases.jsonl"))
					written = err == nil && info.Size() > 0
				}
			}
			stopped := time.Now()
			if err := proc.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case res = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the run still waits two minutes after its server was stopped")
			}
			took := time.Since(stopped)
			t.Logf("exit %d %v after %s", res.code, took.Round(100*time.Millisecond), stop.name)
			if res.code != ExitError || took > 30*time.Second {
				t.Errorf("exit %d %v after %s, want %d within 30 s:\n%s", res.code, took, stop.name, ExitError, res.stderr)
			}
			if lines := errLines(res.stderr); len(lines) > 3 {
				t.Errorf("%d lines on stderr besides warnings:\n%s", len(lines), res.stderr)
			}
			for k, v := range figures(res.r) {
				if !strings.HasSuffix(k, " error") && wantFigures[k] != v {
					t.Errorf("%s: %s, want %s", k, v, wantFigures[k])
				}
			}
			code, stderr, r := replayLive(t, dir, slices.Concat([]string{"--endpoint", clean, "--resume"}, patient, common)...)
			if code != ExitOK {
				t.Fatalf("resume: exit %d:\n%s", code, tail(stderr, 3000))
			}
			if diff := diffFigures(figures(r), wantFigures); diff != "" {
				t.Errorf("resumed run differs from a clean one:\n%s", diff)
			}
		})
	}
}
