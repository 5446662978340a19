// Package ollamaserver finds the Ollama binary that `make ollama` builds and starts it on
// loopback, with a models folder of its own, for the tests that compare counts with a real
// Ollama. Tests only: it imports package testing.
package ollamaserver

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
)

// Env names an Ollama binary; without it Find looks where `make ollama` puts it.
const Env = "STRATA_EVAL_OLLAMA"

// Version is the Ollama release `make ollama` builds.
const Version = "v0.17.4"

// Find returns the Ollama binary ($STRATA_EVAL_OLLAMA, else what `make ollama` built under
// ${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}/ollama/<Version>/bin), or skips the test
// saying what to build.
func Find(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("skipping the live Ollama test: $%s: %v", Env, err)
		}
		return p
	}
	bin := filepath.Join(llamaserver.CacheDir(t, "Ollama"), "ollama", Version, "bin", "ollama")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("skipping the live Ollama test: no %s (run `make ollama`, 5-10 min, or set $%s)", bin, Env)
	}
	return bin
}

// Server is a running Ollama.
type Server struct {
	URL string // http://127.0.0.1:PORT
	bin string
	env []string
	log string
}

// Start starts `ollama serve` on a free loopback port with an empty models folder in a
// temporary folder, waits until it answers and returns it; it is stopped when the test ends.
func Start(t testing.TB, bin string, extraEnv ...string) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	s := &Server{URL: "http://" + host, bin: bin, log: filepath.Join(dir, "ollama.log")}
	s.env = append(os.Environ(), "OLLAMA_HOST="+host, "OLLAMA_MODELS="+filepath.Join(dir, "models"),
		"HOME="+dir, "OLLAMA_NOPRUNE=1")
	s.env = append(s.env, extraEnv...)
	logFile, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = s.env
	ownGroup(cmd)
	exited := llamaserver.Spawn(t, cmd, logFile)
	t.Cleanup(func() { killGroup(cmd) }) // before Spawn's: the runners go with the server
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("ollama exited (%v) before it was ready:\n%s", err, s.Log())
		default:
		}
		if resp, err := http.Get(s.URL + "/api/version"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
	}
	t.Fatalf("ollama not ready after a minute:\n%s", s.Log())
	return nil
}

// Create runs `ollama create name -f modelfile` against the server.
func (s *Server) Create(t testing.TB, name, modelfile string) {
	t.Helper()
	cmd := exec.Command(s.bin, "create", name, "-f", modelfile)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ollama create %s: %v\n%s", name, err, out)
	}
}

// Log is the end of the server's log.
func (s *Server) Log() string {
	data, _ := os.ReadFile(s.log)
	return llamaserver.Tail(string(data), 3000)
}

// Modelfile writes a Modelfile for the GGUF at model with the Go template tmpl into dir and
// returns its path.
func Modelfile(t testing.TB, dir, model, tmpl string) string {
	t.Helper()
	if strings.Contains(tmpl, `"""`) {
		t.Fatalf("a Modelfile template cannot hold \"\"\"")
	}
	path := filepath.Join(dir, "Modelfile")
	text := fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"%s\"\"\"\n", model, tmpl)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FullLog is the server's whole log.
func (s *Server) FullLog() string {
	data, _ := os.ReadFile(s.log)
	return string(data)
}
