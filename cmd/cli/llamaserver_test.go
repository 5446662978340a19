package cli

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// findLlamaServer returns the llama-server of the release the llama engine binds, or skips.
func findLlamaServer(t *testing.T) string { return llamaserver.Find(t, engine.LlamaRelease) }

// startLlamaServer starts llama-server with model (two threads, two slots) for the test.
func startLlamaServer(t *testing.T, bin, model string) string {
	return llamaserver.Start(t, bin, model, "--threads", "2", "--parallel", "2")
}

func tail(s string, n int) string { return llamaserver.Tail(s, n) }

// knownServerDiffs are the arm requests where llama-server's prompt is not the computed one,
// keyed "case arm" (the case id relative to the repository root), with server − computed:
// none since the renderer renders what llama-server renders (issue 11). The test fails when a
// listed difference changes, so the list cannot go stale.
var knownServerDiffs = map[string]int{}

// TestLiveLlamaServer replays the sample corpus and the real recordings (corpora/testdata/real
// and corpora/testdata/mcp) against a real llama-server of the release the llama engine binds,
// serving the tiny Qwen3 model, with the http engine (--tokenizer the same GGUF), the offline
// engine and the llama engine: on every case and arm whose request carries no picture, the
// server's prompt tokens equal the computed ones (server − computed = 0) and the offline and
// llama engines' counts equal the server's. The server has no projector, so requests with
// pictures are refused by it (said once) and keep their computed counts. Skipped when the
// binary, the tokenizer or the llama.cpp libraries are absent.
func TestLiveLlamaServer(t *testing.T) {
	bin, root, model := liveSetup(t, tinymodel.Options{})
	libs, libErr := engine.FindLlamaLibs(filepath.Join(root, ".cache", "llama-libs", "linux-x64"))
	url := startLlamaServer(t, bin, model)

	for _, corpus := range liveCorpora(root) {
		t.Run(corpus.name, func(t *testing.T) {
			common := append([]string{"--tokenizer", model, "--turns", "all"}, corpus.paths...)
			offline := liveRun(t, "offline", common)
			served := liveRun(t, "http", append(liveHTTPArgs(url), common...))
			server := serverCounts(t, root, offline, served)
			compareWithServer(t, corpus.name+" corpus, http engine (its computed counts)", server, served, func(a results.ArmCase) (int, bool) {
				if a.Computed == nil {
					return 0, false
				}
				return a.Computed.PromptTokens, true
			})
			compareWithServer(t, corpus.name+" corpus, offline engine", server, offline, promptTokens)
			if libErr != nil {
				t.Logf("llama engine not run: %v", libErr)
				return
			}
			llama := liveRun(t, "llama", append([]string{"--engine", "llama", "--model", model, "--llama-lib", libs, "--gpu-layers", "none"}, common...))
			compareWithServer(t, corpus.name+" corpus, llama engine", server, llama, promptTokens)
		})
	}
}

// TestLiveLlamaServerAddsBOS: with a vocabulary that adds a BOS to every prompt
// (tokenizer.ggml.add_bos_token) and the Qwen template, which writes none, llama-server counts
// one token more than the template renders; with the template writing {{ bos_token }} first,
// the server takes that one off and adds its own, so it counts what the template renders. The
// offline count and the http engine's computed count follow both, so server − computed stays
// 0 on the sample corpus.
func TestLiveLlamaServerAddsBOS(t *testing.T) {
	for _, prefix := range []string{"", "{{ bos_token }}"} {
		t.Run("template prefix "+strconv.Quote(prefix), func(t *testing.T) { liveAddBOS(t, prefix) })
	}
}

// liveSetup finds llama-server (skipping the test without it or the Qwen3 tokenizer) and
// returns it, the repository root and the tiny model built with opts.
func liveSetup(t *testing.T, opts tinymodel.Options) (bin, root, model string) {
	t.Helper()
	bin = findLlamaServer(t)
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skipf("skipping the live llama-server test: Qwen3 tokenizer absent: %v", err)
	}
	model, err = tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, opts)
	if err != nil {
		t.Fatal(err)
	}
	return bin, root, model
}

func liveAddBOS(t *testing.T, templatePrefix string) {
	bin, root, model := liveSetup(t, tinymodel.Options{AddBOS: true, TemplatePrefix: templatePrefix})
	url := startLlamaServer(t, bin, model)
	common := []string{"--tokenizer", model, "--turns", "all"}
	offline := liveRun(t, "offline", common)
	served := liveRun(t, "http", append(liveHTTPArgs(url), common...))
	server := serverCounts(t, root, offline, served)
	compareWithServer(t, "add_bos model, offline engine", server, offline, promptTokens)
	compareWithServer(t, "add_bos model, http engine (its computed counts)", server, served, func(a results.ArmCase) (int, bool) {
		if a.Computed == nil {
			return 0, false
		}
		return a.Computed.PromptTokens, true
	})
	libs, err := engine.FindLlamaLibs(filepath.Join(root, ".cache", "llama-libs", "linux-x64"))
	if err != nil {
		t.Logf("llama engine not run: %v", err)
		return
	}
	llama := liveRun(t, "llama", append([]string{"--engine", "llama", "--model", model, "--llama-lib", libs, "--gpu-layers", "none"}, common...))
	compareWithServer(t, "add_bos model, llama engine", server, llama, promptTokens)
}

func promptTokens(a results.ArmCase) (int, bool) { return a.PromptTokens, true }

// liveHTTPArgs are the http engine's flags against a live llama-server at url: no response
// cache, and two minutes for a count, as the server tokenizes the sample corpus's longest
// requests (1.4 million tokens of base64 left in the text) in seconds on an idle machine and
// may take more than the default 10 s on a busy one.
func liveHTTPArgs(url string) []string {
	return []string{"--engine", "http", "--endpoint", url, "--no-cache", "--count-timeout", "2m"}
}

// liveRun replays with args and returns the report; exit 0 is wanted (a refusal of pictures
// is a warning, not a failure).
func liveRun(t *testing.T, name string, args []string) *results.Report {
	t.Helper()
	code, stderr, r := replayLive(t, t.TempDir(), args...)
	if r == nil {
		t.Fatalf("%s: exit %d, no report: %s", name, code, stderr)
	}
	if code != ExitOK {
		t.Errorf("%s: exit %d: %s", name, code, tail(stderr, 3000))
	}
	return r
}

// carriesPicture says whether an arm's request hands the model a picture (computed rows).
func carriesPicture(a results.ArmCase) bool {
	if a.ImageRows > 0 || a.SeesPicture {
		return true
	}
	for _, p := range a.Pictures {
		if p.SeenByModel {
			return true
		}
	}
	return false
}

// serverCounts returns llama-server's prompt tokens by "case arm" (case ids relative to root)
// for every arm whose request carries no picture (the server has no projector: it refuses
// pictures, and those arms keep their computed counts). A case that failed, or an arm without
// pictures that the server did not count, is an error.
func serverCounts(t *testing.T, root string, offline, served *results.Report) map[string]int {
	t.Helper()
	withPicture := map[string]bool{}
	for _, c := range offline.Cases {
		for _, a := range c.Arms {
			withPicture[armKey(root, c.ID, a.Arm)] = carriesPicture(a)
		}
	}
	out := map[string]int{}
	pictures := 0
	for _, c := range served.Cases {
		if c.Error != "" {
			t.Errorf("http engine: case %s failed: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			key := armKey(root, c.ID, a.Arm)
			switch {
			case withPicture[key]:
				pictures++
			case a.CountDiff == nil || a.TextSource != results.SourceServer:
				t.Errorf("http engine: %s has no picture but no server count", key)
			default:
				out[key] = a.PromptTokens
			}
		}
	}
	t.Logf("llama-server counted %d arm requests; %d with pictures left out", len(out), pictures)
	if len(out) == 0 {
		t.Error("llama-server counted nothing")
	}
	return out
}

// armKey names a case's arm with the case id relative to the repository root.
func armKey(root, id, arm string) string {
	return strings.TrimPrefix(strings.TrimPrefix(id, root), string(filepath.Separator)) + " " + arm
}

// compareWithServer sets an engine's counts (count of each arm of r) beside llama-server's:
// server − computed must be 0 on every arm the server counted, or the difference listed in
// knownServerDiffs. It logs the figures: requests compared, the sum of server − computed, and
// every arm that differs.
func compareWithServer(t *testing.T, what string, server map[string]int, r *results.Report, count func(results.ArmCase) (int, bool)) {
	t.Helper()
	root, _ := tinymodel.RepoRoot()
	var compared, sum int
	var differ, wrong []string
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			key := armKey(root, c.ID, a.Arm)
			s, ok := server[key]
			if !ok {
				continue
			}
			n, ok := count(a)
			if !ok {
				wrong = append(wrong, key+": no count")
				continue
			}
			compared++
			d := s - n
			sum += d
			if d != 0 {
				differ = append(differ, fmt.Sprintf("%s: server %d, computed %d, %+d", key, s, n, d))
			}
			switch want, known := knownServerDiffs[key]; {
			case d == want:
			case d == 0 && known:
				wrong = append(wrong, fmt.Sprintf("%s: server − computed is 0 now (knownServerDiffs says %+d): delete the entry", key, want))
			default:
				wrong = append(wrong, fmt.Sprintf("%s: server %d, computed %d: %+d, want %+d", key, s, n, d, want))
			}
		}
	}
	sort.Strings(differ)
	sort.Strings(wrong)
	t.Logf("%s: %d arm requests compared, server − computed %+d in all, %d differ%s", what, compared, sum, len(differ), listed(differ))
	if compared != len(server) {
		t.Errorf("%s: %d of the %d arms llama-server counted compared", what, compared, len(server))
	}
	if len(wrong) > 0 {
		t.Errorf("%s: server − computed is not what knownServerDiffs says on %d arm request(s)%s", what, len(wrong), listed(wrong))
	}
}

func listed(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ":\n  " + strings.Join(lines, "\n  ")
}
