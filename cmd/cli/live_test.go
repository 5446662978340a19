package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// replayLive runs `strata-eval replay` with args and returns the exit code, stderr and the
// report it wrote to --out (dir).
func replayLive(t *testing.T, dir string, args ...string) (int, string, *results.Report) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"replay", "--out", dir, "--format", "csv"}, args...)
	code := Run(context.Background(), args, &IOStreams{Out: &out, ErrOut: &errOut})
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return code, errOut.String(), nil
	}
	var r results.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return code, errOut.String(), &r
}

func testOffline(t *testing.T) *engine.Offline {
	t.Helper()
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base"})
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// TestServerWithoutPicturesSaidOnce replays the sample corpus against a server that takes no
// pictures (llama-server without --mmproj): no case fails, the refusal is said once on stderr
// and once in the report with the number of arms it cost, those arms keep their computed
// counts, and every other arm is counted by the server.
func TestServerWithoutPicturesSaidOnce(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true, NoPictures: true})
	defer srv.Close()
	code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--no-cache")
	if code != ExitOK || r == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stderr, "the server does not take pictures"); n != 1 {
		t.Errorf("stderr says it %d times, want once:\n%s", n, stderr)
	}
	var said int
	for _, w := range r.Config.Warnings {
		if strings.Contains(w, "the server does not take pictures") && strings.Contains(w, "image input is not supported") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the report says it %d times, want once: %q", said, r.Config.Warnings)
	}
	var kept, counted int
	for _, c := range r.Cases {
		if c.Error != "" {
			t.Errorf("case %s failed: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			switch {
			case a.CountDiff == nil:
				kept++
				if a.TextSource != results.SourceTokenizer || a.SeesPicture {
					t.Errorf("%s %s: source %q, sees picture %v, want the computed count and no picture seen", c.ID, a.Arm, a.TextSource, a.SeesPicture)
				}
			default:
				counted++
			}
		}
	}
	if kept == 0 || counted == 0 {
		t.Errorf("%d arms kept the computed counts and %d were counted by the server, want both", kept, counted)
	}
	if !strings.Contains(strings.Join(r.Config.Warnings, "\n"), ": "+itoa(kept)+" arm(s) with pictures") {
		t.Errorf("the warning does not count the %d arms: %q", kept, r.Config.Warnings)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestConcurrencyNotCappedByJobs: with -j 1 and --concurrency 4, four requests are in flight.
func TestConcurrencyNotCappedByJobs(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true, Delay: 100 * time.Millisecond})
	defer srv.Close()
	code, stderr, _ := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--no-cache", "-j", "1", "--concurrency", "4", "--arms", "after")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := srv.MaxInFlight(); n != 4 {
		t.Errorf("%d requests in flight at most, want 4", n)
	}
}

// TestContextGivesWayToServer: --ctx above the server's n_ctx warns and takes the server's;
// --force-ctx keeps it. Without --tokenizer the run says that "computed" is o200k while the
// server runs another model.
func TestContextGivesWayToServer(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(testOffline(t)), InputTokens: true, Props: true, Context: 4096})
	defer srv.Close()
	args := []string{"--engine", "http", "--endpoint", srv.URL, "--no-cache", "--arms", "after", "--ctx", "100000"}
	code, stderr, r := replayLive(t, t.TempDir(), args...)
	if code != ExitOK || r == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r.Config.Context != 4096 || !strings.Contains(stderr, "--ctx 100000 is larger than the server's context (n_ctx 4096") {
		t.Errorf("context %d, stderr:\n%s", r.Config.Context, stderr)
	}
	if !strings.Contains(stderr, `"computed" counts use the o200k_base tokenizer while the server runs test-model.gguf`) {
		t.Errorf("no word about the tokenizer:\n%s", stderr)
	}
	if len(r.Config.Warnings) != 2 {
		t.Errorf("warnings %q, want the context and the tokenizer", r.Config.Warnings)
	}
	code, stderr, r = replayLive(t, t.TempDir(), append(args, "--force-ctx")...)
	if code != ExitOK || r == nil || r.Config.Context != 100000 || strings.Contains(stderr, "larger than the server's") {
		t.Errorf("--force-ctx: exit %d, context %v:\n%s", code, r, stderr)
	}

	// a GGUF that is not the one the server names is said too
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skipf("Qwen3 tokenizer absent: %v", err)
	}
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	model, err := tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, tinymodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code, stderr, _ = replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--no-cache", "--arms", "after", "--tokenizer", model)
	if code != ExitOK || !strings.Contains(stderr, "--tokenizer "+filepath.Base(model)+" is not the model the server runs (test-model.gguf)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestServerGoneStopsRunAndResume: a server killed mid-run stops the run within seconds of
// --server-wait: the cases measured are reported, those not measured neither reported nor
// written, the exit status is 1 and the error counts both; --resume against a live server
// measures exactly those cases and cases.jsonl ends with each case once, none failed.
func TestServerGoneStopsRunAndResume(t *testing.T) {
	off := testOffline(t)
	dying := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true, DieAfter: 12})
	defer dying.Close()
	dir := t.TempDir()
	start := time.Now()
	code, stderr, r := replayLive(t, dir, "--engine", "http", "--endpoint", dying.URL, "--no-cache", "--arms", "before,after", "--server-wait", "1s")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v after its server died", d)
	}
	if code != ExitError || r == nil {
		t.Fatalf("exit %d, want %d: %s", code, ExitError, stderr)
	}
	if !strings.Contains(stderr, "the server is gone") || !strings.Contains(stderr, "not (run again with --resume to measure them)") {
		t.Errorf("stderr:\n%s", stderr)
	}
	var failed, ok int
	for _, c := range r.Cases {
		if c.Error != "" {
			failed++ // an arm measured before the server went
			if len(c.Arms) == 0 {
				t.Errorf("case %s is reported with no arm measured: %s", c.ID, c.Error)
			}
		} else {
			ok++
		}
	}
	all := sampleCases(t)
	if ok == 0 || len(r.Cases) >= all {
		t.Fatalf("%d cases reported, %d of them whole: want some, not all %d", len(r.Cases), ok, all)
	}
	failed = all - ok

	live := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true})
	defer live.Close()
	code, stderr, r = replayLive(t, dir, "--engine", "http", "--endpoint", live.URL, "--no-cache", "--arms", "before,after", "--resume")
	if code != ExitOK || r == nil {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "resuming: "+itoa(ok)+" case(s) already in") {
		t.Errorf("resume stderr:\n%s", stderr)
	}
	if got := live.Requests()["/v1/chat/completions/input_tokens"]; got == 0 {
		t.Error("resume sent nothing")
	}
	f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c results.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		seen[c.ID]++
		if c.Error != "" {
			t.Errorf("case %s still failed after resume: %s", c.ID, c.Error)
		}
	}
	if len(seen) != failed+ok {
		t.Errorf("cases.jsonl holds %d cases, want %d", len(seen), failed+ok)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("case %s written %d times", id, n)
		}
	}
}

// TestDumpHasTools: --dump writes the declared tools with the messages, as the model gets them.
func TestDumpHasTools(t *testing.T) {
	dump := t.TempDir()
	code, stderr, _ := replayLive(t, t.TempDir(), "--arms", "after", "--dump", dump, filepath.Join("..", "..", "corpora", "samples", "openai-chat-aisdk5-calltoolresult.json"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dump, "*.after.request.json"))
	if len(files) != 1 {
		t.Fatalf("dumped %q", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) == 0 || len(req.Tools) == 0 || req.Tools[0].Type != "function" || req.Tools[0].Function.Name == "" {
		t.Errorf("dump has %d messages and tools %+v", len(req.Messages), req.Tools)
	}
}

// TestServerTemplateDiffersWarns: a server whose chat template is not --template's (llama-server
// started with --chat-template llama3 takes the word as its whole template) is said once, on
// stderr and in the report, with the first line of the prompt that differs; a server that
// renders as --template does is not; a comparison that fails (the server's template raises)
// says so once.
func TestServerTemplateDiffersWarns(t *testing.T) {
	off := testOffline(t)
	literal := func([]corpora.Message, []corpora.ToolDef) (string, error) { return "llama3", nil }
	failing := func([]corpora.Message, []corpora.ToolDef) (string, error) {
		return "", errors.New("the template raised an exception")
	}
	for name, tt := range map[string]struct {
		apply func([]corpora.Message, []corpora.ToolDef) (string, error)
		warn  bool
	}{"a literal template": {literal, true}, "the same template": {off.Render, false}, "a failing template": {failing, true}} {
		t.Run(name, func(t *testing.T) {
			srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true, ApplyTemplate: tt.apply})
			defer srv.Close()
			code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--no-cache",
				"--turns", "all", filepath.Join("..", "..", "corpora", "samples", "openai-chat-tiny-png.json"))
			if code != ExitOK || r == nil {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want := `the server's chat template is not --template qwen: line 1 of the first request's prompt is "llama3" on the server, "<|im_start|>system" computed`
			if name == "a failing template" {
				want = "the server's chat template could not be compared with --template qwen: "
			}
			warned := 0
			for _, w := range r.Config.Warnings {
				if strings.HasPrefix(w, "the server's chat template") {
					warned++
					if !strings.HasPrefix(w, want) {
						t.Errorf("warning %q, want one starting %q", w, want)
					}
				}
			}
			if n := strings.Count(stderr, "the server's chat template"); n != warned || (warned == 1) != tt.warn || warned > 1 {
				t.Errorf("warned %d time(s) in the report, %d on stderr; want %v once\n%s", warned, n, tt.warn, stderr)
			}
			if n := srv.Requests()["/apply-template"]; n != 1 && name != "a failing template" || n == 0 {
				t.Errorf("/apply-template asked %d times, want once", srv.Requests()["/apply-template"])
			}
		})
	}
}

// TestCountMismatchSaid: against a server whose chat template renders tools otherwise than
// --template (it counts and renders with ChatML, which writes no tool block, where qwen writes
// one), every arm whose server count differs from the computed one has in results.json the
// first line where the two prompts part, and the run warns once, on stderr and in the report,
// naming the first. A server that does not render on request has the comparison said as not run.
func TestCountMismatchSaid(t *testing.T) {
	served, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Template: "chatml"})
	if err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join("..", "..", "corpora", "samples", "openai-chat-aisdk5-calltoolresult.json")
	for name, tt := range map[string]struct {
		apply func([]corpora.Message, []corpora.ToolDef) (string, error)
		want  func(m *results.CountMismatch) bool
	}{
		"renders": {served.Render, func(m *results.CountMismatch) bool {
			// ChatML closes the system message where qwen goes on with its tool block
			return m.Line > 1 && strings.HasSuffix(m.Server, "<|im_end|>") && !strings.HasSuffix(m.Computed, "<|im_end|>") && m.Note == ""
		}},
		"does not render": {nil, func(m *results.CountMismatch) bool {
			return m.Line == 0 && strings.Contains(m.Note, "renderings not compared: the server does not render its chat template")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(served), InputTokens: true, ApplyTemplate: tt.apply})
			defer srv.Close()
			code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--endpoint", srv.URL, "--no-cache", "--turns", "all", sample)
			if code != ExitOK || r == nil {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var first *results.CountMismatch
			mismatches := 0
			for _, c := range r.Cases {
				for _, a := range c.Arms {
					switch {
					case a.CountDiff == nil || *a.CountDiff == 0:
						if a.Mismatch != nil {
							t.Errorf("case %s arm %s: counts agree and a mismatch %+v", c.ID, a.Arm, a.Mismatch)
						}
					case a.Mismatch == nil || !tt.want(a.Mismatch):
						t.Errorf("case %s arm %s: server − computed %d, mismatch %+v", c.ID, a.Arm, *a.CountDiff, a.Mismatch)
					default:
						mismatches++
						if first == nil {
							first = a.Mismatch
						}
					}
				}
			}
			if mismatches == 0 {
				t.Fatal("no arm's counts differ")
			}
			warned := 0
			for _, w := range r.Config.Warnings {
				if strings.HasPrefix(w, "server − computed is ") {
					warned++
					if !strings.Contains(w, "(the first; every arm whose counts differ has its count_mismatch in results.json)") ||
						first.Line > 0 && !strings.Contains(w, fmt.Sprintf("line %d of the prompt is %q on the server, %q computed", first.Line, first.Server, first.Computed)) ||
						first.Line == 0 && !strings.Contains(w, first.Note) {
						t.Errorf("warning %q does not name a first mismatch (%+v)", w, first)
					}
				}
			}
			if n := strings.Count(stderr, "warning: server − computed is "); warned != 1 || n != 1 {
				t.Errorf("the mismatch warned %d time(s) in the report, %d on stderr; want once\n%s", warned, n, stderr)
			}
		})
	}
}
