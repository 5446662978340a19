package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// neutralHome is the home folder the kept files name instead of the run's temporary one.
const neutralHome = "/home/user"

// pictureBytes is the size of the picture file the agent reads.
const pictureBytes = 20 << 10

// Case is one run of one agent.
type Case struct {
	Agent     string        // a name of the agents table
	Bin       string        // the agent's executable
	Out       string        // the folder the case is written to
	ShotBytes int           // the size of the MCP screenshot
	ShotWidth int           // the least width of the MCP screenshot
	Subagent  bool          // the model hands the screenshot to a sub-agent
	FileWidth int           // the least width of the picture file the agent reads
	Timeout   time.Duration // how long the agent may run
	Self      string        // agentsim's own executable (the MCP server)
	KeepTemp  bool          // leave the temporary home in place (to look at what the agent wrote)
}

// caseInfo is written to case.json beside the kept files: how they were made.
type caseInfo struct {
	Agent        string   `json:"agent"`
	Version      string   `json:"version"`
	Prompt       string   `json:"prompt"`
	Args         []string `json:"args"`
	ShotBytes    int      `json:"mcp_screenshot_bytes"`
	ShotWidth    int      `json:"mcp_screenshot_width,omitempty"`
	Subagent     bool     `json:"subagent,omitempty"`
	FileWidth    int      `json:"picture_width,omitempty"`
	PictureBytes int      `json:"picture_bytes"`
	ExitCode     int      `json:"exit_code"`
	Requests     int      `json:"requests"`
}

// runCase runs c.Agent once in a fresh home against the scripted model server and writes its
// session files and the request bodies the server received to c.Out.
func runCase(ctx context.Context, c Case) error {
	ag, ok := agents[c.Agent]
	if !ok {
		return fmt.Errorf("unknown agent %q (known: %s)", c.Agent, agentList())
	}
	tmp, err := os.MkdirTemp("", "agentsim")
	if err != nil {
		return fmt.Errorf("temporary folder: %w", err)
	}
	if !c.KeepTemp {
		defer os.RemoveAll(tmp)
	}
	dirs := &caseDirs{home: filepath.Join(tmp, "home"), project: filepath.Join(tmp, "home", "project"),
		mcp: []string{c.Self, "mcp", "-shot-bytes", strconv.Itoa(c.ShotBytes), "-shot-width", strconv.Itoa(c.ShotWidth)}}
	requests := filepath.Join(tmp, "requests")
	for _, d := range []string{dirs.project, requests} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("case folders: %w", err)
		}
	}
	picture := filepath.Join(dirs.project, "screen.png")
	png, err := screenshot(pictureBytes, c.FileWidth, 7)
	if err != nil {
		return err
	}
	if err := os.WriteFile(picture, png, 0o644); err != nil {
		return fmt.Errorf("picture file: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("model server: %w", err)
	}
	srv := &http.Server{Handler: &modelServer{dir: requests, picture: picture, subagent: c.Subagent, log: os.Stderr}}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	args, env, err := ag.setup(dirs, base)
	if err != nil {
		return err
	}
	info := caseInfo{Agent: c.Agent, Prompt: prompt, ShotBytes: c.ShotBytes, ShotWidth: c.ShotWidth, Subagent: c.Subagent, FileWidth: c.FileWidth, PictureBytes: len(png)}
	info.Version = agentVersion(ctx, c.Bin)
	info.Args = args
	runCtx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, c.Bin, args...)
	cmd.Dir = dirs.project
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append([]string{"HOME=" + dirs.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "TERM=dumb"}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		info.ExitCode = exit.ExitCode()
	case err != nil:
		return fmt.Errorf("running %s: %w", c.Agent, err)
	}
	fmt.Fprintf(os.Stderr, "agentsim: %s exited %d\n%s", c.Agent, info.ExitCode, tail(stderr.String(), 2000))
	if ag.export != nil {
		if err := ag.export(ctx, dirs, c.Bin, cmd); err != nil {
			return fmt.Errorf("%s: keeping its sessions: %w", c.Agent, err)
		}
	}

	return writeCase(c.Out, filepath.Join(dirs.home, ag.sessions), requests, stdout.Bytes(), rewriter(tmp, dirs.home), info)
}

// writeCase replaces the folder out with the case: the sessions and requests folders' files,
// the agent's stdout and case.json, paths rewritten by rw.
func writeCase(out, sessions, requests string, stdout []byte, rw *pathRewriter, info caseInfo) error {
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("clearing %s: %w", out, err)
	}
	if err := copyTree(sessions, filepath.Join(out, "sessions"), rw); err != nil {
		return err
	}
	if err := copyTree(requests, filepath.Join(out, "requests"), rw); err != nil {
		return err
	}
	entries, _ := os.ReadDir(requests)
	info.Requests = len(entries)
	if err := os.WriteFile(filepath.Join(out, "stdout.txt"), rw.Replace(stdout), 0o644); err != nil {
		return fmt.Errorf("keeping stdout: %w", err)
	}
	return writeJSON(filepath.Join(out, "case.json"), info)
}

// agentVersion is what `bin --version` prints, trimmed ("" when it fails).
func agentVersion(ctx context.Context, bin string) string {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// pathRewriter replaces the run's temporary paths in kept files and names.
type pathRewriter struct{ old, new [][]byte }

// rewriter maps the temporary home to neutralHome, in plain form, in Claude Code's form of
// a path as a folder name (every / a -) and in OpenCode's form without the leading /, and the
// rest of the temporary folder to /tmp/agentsim.
func rewriter(tmp, home string) *pathRewriter {
	dash := func(p string) string { return strings.ReplaceAll(p, "/", "-") }
	rel := func(p string) string { return strings.TrimPrefix(p, "/") }
	r := &pathRewriter{}
	for _, p := range [][2]string{{home, neutralHome}, {dash(home), dash(neutralHome)}, {tmp, "/tmp/agentsim"}, {dash(tmp), "-tmp-agentsim"},
		{rel(home), rel(neutralHome)}, {rel(tmp), "tmp/agentsim"}} {
		r.old, r.new = append(r.old, []byte(p[0])), append(r.new, []byte(p[1]))
	}
	return r
}

// Replace rewrites b (text only: a file that is not UTF-8 is kept as it is).
func (r *pathRewriter) Replace(b []byte) []byte {
	if !utf8.Valid(b) {
		return b
	}
	for i := range r.old {
		b = bytes.ReplaceAll(b, r.old[i], r.new[i])
	}
	return b
}

// copyTree copies the files under src to dst, rewriting their contents and names; a missing
// src copies nothing.
func copyTree(src, dst string, rw *pathRewriter) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, string(rw.Replace([]byte(rel))))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, rw.Replace(b), 0o644)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}

// writeJSON writes v to path, indented.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
