package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// step is where the script stands in a conversation: what the model does next.
type step int

const (
	stepSearch step = iota // load the deferred MCP tool with the agent's tool search
	stepShot               // call the MCP server's screenshot tool
	stepRead               // read the picture file with the agent's own tool
	stepAnswer             // answer in text and end the turn
	stepAgent              // hand the screenshot to a sub-agent (Claude Code's Agent tool)
)

// toolNames are an agent's names of the tools the script calls.
type toolNames struct {
	search, shot, read string
}

// nextStep is the script: search for the screenshot tool when the agent defers it (it is not
// offered but the search tool is), call it, read the picture file, answer. offered are the
// tools the request offers, called those the conversation already called.
func nextStep(n toolNames, offered []string, called map[string]bool) (step, string) {
	has := func(name string) bool {
		for _, o := range offered {
			if o == name {
				return true
			}
		}
		return false
	}
	switch {
	case !has(n.read):
		return stepAnswer, "" // a side query of the agent, not the session's turn
	case !called[n.shot] && !has(n.shot) && has(n.search) && !called[n.search]:
		return stepSearch, n.search
	case !called[n.shot] && (has(n.shot) || called[n.search]):
		return stepShot, n.shot
	case !called[n.read]:
		return stepRead, n.read
	}
	return stepAnswer, ""
}

// answerText is the script's last answer.
const answerText = "The screenshot shows the strata-eval page; the file shows the same picture."

// modelServer is the scripted model server: it keeps every request body it receives, in
// order, and answers each with the script's next step in the protocol its path names.
type modelServer struct {
	dir      string // where request bodies are written
	picture  string // the picture file the script reads, as an absolute path
	subagent bool   // the main conversation hands the screenshot to a sub-agent
	mu       sync.Mutex
	n        int
	log      io.Writer
}

// ServeHTTP keeps the body, then answers it.
func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	name, n, err := s.keep(r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprintf(s.log, "agentsim: %s %s (%d bytes) -> %s\n", r.Method, r.URL.Path, len(body), name)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		s.anthropic(w, body, n)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		s.responses(w, body, n)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(w, body, n)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		s.gemini(w, body, geminiModel(r.URL.Path), true)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":generateContent"):
		s.gemini(w, body, geminiModel(r.URL.Path), false)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4)
	default:
		http.Error(w, "agentsim: no such route", http.StatusNotFound)
	}
}

// keep writes a request's body to the next numbered file and returns its name and number (""
// and 0 for a request without a body).
func (s *modelServer) keep(r *http.Request, body []byte) (string, int, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", 0, nil
	}
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	route := strings.Trim(strings.NewReplacer("/", "-", ":", "-").Replace(r.URL.Path), "-")
	name := fmt.Sprintf("%03d-%s.json", n, route)
	if err := os.WriteFile(filepath.Join(s.dir, name), body, 0o644); err != nil {
		return "", 0, fmt.Errorf("keeping request %d: %w", n, err)
	}
	return name, n, nil
}
