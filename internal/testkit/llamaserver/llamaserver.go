// Package llamaserver finds the llama-server binary that `make llama-server` builds and
// starts it on loopback for the tests that compare counts with a real server. Tests only: it
// imports package testing.
package llamaserver

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Env names a llama-server binary; without it Find looks where `make llama-server` puts it.
const Env = "STRATA_EVAL_LLAMA_SERVER"

// Find returns the llama-server binary ($STRATA_EVAL_LLAMA_SERVER, else what `make
// llama-server` built under ${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}/llama-server/
// <release>/bin, any release when release is ""), or skips the test saying what to build.
func Find(t testing.TB, release string) string {
	t.Helper()
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("skipping the live llama-server test: $%s: %v", Env, err)
		}
		return p
	}
	cache := CacheDir(t, "llama-server")
	if release == "" {
		release = "*"
	}
	pattern := filepath.Join(cache, "llama-server", release, "bin", "llama-server")
	bins, _ := filepath.Glob(pattern)
	if len(bins) == 0 {
		t.Skipf("skipping the live llama-server test: no %s (run `make llama-server`, 10-40 min, or set $%s)", pattern, Env)
	}
	return bins[0]
}

// CacheDir is the cache the make targets build into, outside the work tree:
// ${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}; with no home folder the test is skipped,
// naming what (the live test of what) cannot run.
func CacheDir(t testing.TB, what string) string {
	t.Helper()
	if cache := os.Getenv("STRATA_EVAL_CACHE"); cache != "" {
		return cache
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("skipping the live %s test: no home folder: %v", what, err)
	}
	return filepath.Join(home, ".cache", "strata-eval")
}

// Start starts bin on a free loopback port with model and the extra args, waits until it is
// ready (its log is shown when it exits first or is not ready in two minutes) and returns its
// URL; the server is stopped when the test ends.
func Start(t testing.TB, bin, model string, args ...string) string {
	t.Helper()
	url, _ := StartProcess(t, bin, model, args...)
	return url
}

// StartProcess is Start that also returns the server's process, for tests that signal it.
func StartProcess(t testing.TB, bin, model string, args ...string) (string, *os.Process) {
	t.Helper()
	return StartOnPort(t, FreePort(t), bin, model, args...)
}

// FreePort is a loopback port nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartOnPort is StartProcess on the given loopback port, for tests that put another server
// behind the same port.
func StartOnPort(t testing.TB, port int, bin, model string, args ...string) (string, *os.Process) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "llama-server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--model", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--no-webui"}, args...)...)
	exited := Spawn(t, cmd, logFile)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			t.Fatalf("llama-server exited (%v) before it was ready:\n%s", err, Tail(string(log), 3000))
		default:
		}
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, cmd.Process
			}
		}
	}
	log, _ := os.ReadFile(logPath)
	t.Fatalf("llama-server not ready after 2 minutes:\n%s", Tail(string(log), 3000))
	return "", nil
}

// Spawn starts cmd with its output to log and returns the channel its exit arrives on; when
// the test ends the process is killed and log closed.
func Spawn(t testing.TB, cmd *exec.Cmd, log *os.File) <-chan error {
	t.Helper()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		log.Close()
	})
	return exited
}

// Tail is the last n bytes of s, marked as cut when it is longer.
func Tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
