package cli

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/results"
)

// AgentFlags are replay's flags that find a coding agent's sessions.
type AgentFlags struct {
	// Agent names the agent whose sessions are replayed (a name of agentTable).
	Agent string
	// Since keeps the sessions written since a date (YYYY-MM-DD) or for a duration (36h, 7d).
	Since string
	// Project keeps the sessions of projects whose folder contains this text.
	Project string
}

// codingAgent is a coding agent whose session files replay --agent finds: the format of its
// sessions, the folder it keeps them in, and the project folder a session belongs to.
type codingAgent struct {
	name   string
	format corpora.Format
	// folder is the default folder of the sessions: $env/sub (env set), else ~/home/sub.
	env, home, sub string
	// project returns the project folder of the session at path under root.
	project func(root, path string) string
	// suffix ends the name of a session file ("": .jsonl).
	suffix string
	// export, for an agent that keeps its sessions in no folder of files, says how a session
	// is obtained as a file to replay instead ("": the agent has a folder).
	export string
}

// agentTable lists the agents --agent knows.
func agentTable() []codingAgent {
	return []codingAgent{
		{name: "claude-code", format: corpora.FormatClaudeCode, env: "CLAUDE_CONFIG_DIR", home: ".claude", sub: "projects", project: firstFolder},
		{name: "codex", format: corpora.FormatCodex, env: "CODEX_HOME", home: ".codex", sub: "sessions", project: codexProject},
		{name: "gemini-cli", format: corpora.FormatGeminiCLI, home: ".gemini", sub: "tmp", project: firstFolder},
		{name: "cline", format: corpora.FormatCline, env: "CLINE_DATA_DIR", home: ".cline/data", sub: "sessions", project: clineProject, suffix: ".messages.json"},
		{name: "opencode", format: corpora.FormatOpencode, export: "OpenCode keeps its sessions in SQLite, not in files: " +
			"replay the JSON of `opencode export <session-id>` instead"},
	}
}

// agentNames names the agents --agent finds the sessions of, comma-separated.
func agentNames() string {
	var names []string
	for _, a := range agentTable() {
		if a.export == "" {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, ", ")
}

// firstFolder is the project folder of a session kept under a folder per project: Claude
// Code's (the project's path with every / a -) or Gemini CLI's (the project's name).
func firstFolder(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first
}

// codexProject is the project folder of a Codex rollout: the cwd its session_meta names.
func codexProject(_, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	var rec struct {
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	_ = json.Unmarshal(line, &rec)
	return rec.Payload.Cwd
}

// clineProject is the project folder of a Cline session: the cwd its <id>.json beside the
// messages names.
func clineProject(_, path string) string {
	b, err := os.ReadFile(strings.TrimSuffix(path, ".messages.json") + ".json")
	if err != nil {
		return ""
	}
	var meta struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(b, &meta)
	return meta.Cwd
}

// agentSessions finds the session files of --agent under the paths given, else under the
// agent's default folder, keeping those --since and --project select, oldest first. It returns
// them and their format.
func (f AgentFlags) agentSessions(paths []string, now time.Time) ([]string, corpora.Format, error) {
	var ag *codingAgent
	for _, a := range agentTable() {
		if a.name == f.Agent {
			ag = &a
		}
	}
	if ag == nil {
		return nil, "", usageErrorf("--agent %q: the agents are %s", f.Agent, agentNames())
	}
	if ag.export != "" {
		return nil, "", usageErrorf("--agent %s: %s", ag.name, ag.export)
	}
	since, err := parseSince(f.Since, now)
	if err != nil {
		return nil, "", err
	}
	if len(paths) == 0 {
		dir := ""
		if ag.env != "" {
			dir = os.Getenv(ag.env)
		}
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, "", fmt.Errorf("--agent %s: the home folder: %w", ag.name, err)
			}
			dir = filepath.Join(home, ag.home)
		}
		paths = []string{filepath.Join(dir, ag.sub)}
	}
	type found struct {
		path string
		mod  time.Time
	}
	var all []found
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "tool-results" { // what Claude Code spilled: read through the session
					return filepath.SkipDir
				}
				return nil
			}
			if suffix := cmp.Or(ag.suffix, ".jsonl"); !strings.HasSuffix(d.Name(), suffix) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.ModTime().Before(since) {
				return nil
			}
			if f.Project != "" && !strings.Contains(strings.ToLower(ag.project(root, path)), strings.ToLower(f.Project)) {
				return nil
			}
			all = append(all, found{path, info.ModTime()})
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", withExitCode(ExitInputs, fmt.Errorf("--agent %s: no folder %s: give the sessions' folder as PATH%s", ag.name, root, ag.envHint()))
		}
		if err != nil {
			return nil, "", withExitCode(ExitInputs, fmt.Errorf("--agent %s: %w", ag.name, err))
		}
	}
	if len(all) == 0 {
		return nil, "", withExitCode(ExitInputs, fmt.Errorf("--agent %s: no session under %s%s", ag.name, strings.Join(paths, ", "), f.selection()))
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.path
	}
	return out, ag.format, nil
}

// selection says what --since and --project kept, for the error of an empty selection.
func (f AgentFlags) selection() string {
	var s []string
	if f.Since != "" {
		s = append(s, "since "+f.Since)
	}
	if f.Project != "" {
		s = append(s, "of a project matching "+strconv.Quote(f.Project))
	}
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, ", ") + ")"
}

// parseSince reads --since: a date (YYYY-MM-DD, local midnight), or a duration back from now
// in hours (36h) or days (7d); "" is no limit.
func parseSince(s string, now time.Time) (time.Time, error) {
	switch {
	case s == "":
		return time.Time{}, nil
	case strings.HasSuffix(s, "d"):
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	default:
		if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			return now.Add(-d), nil
		}
		if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageErrorf("--since %q: want a date (2006-01-02) or a duration (36h, 7d)", s)
}

// toolCost is what the pictures of one tool's results cost over the requests that carry them.
type toolCost struct {
	tool               string
	sessions, requests map[string]bool
	pictures, seen     int
	rows               int
	textChars          int // base64 characters of pictures left in the text
}

// writeAgentSummary prints, for the first arm, a table per session and a table per tool: the
// requests, their prompt tokens and the provider's, and what each tool's pictures cost, most
// costly first (image rows, then base64 characters left as text).
func writeAgentSummary(w io.Writer, r *results.Report, width int) error {
	type session struct {
		file                 string
		requests, pictures   int
		prompt, provider     int64
		providerRequestsSeen int
	}
	sessions := map[string]*session{}
	var order []string
	tools := map[string]*toolCost{}
	for _, c := range r.Cases {
		if len(c.Arms) == 0 {
			continue
		}
		a := c.Arms[0]
		s := sessions[c.File]
		if s == nil {
			s = &session{file: c.File}
			sessions[c.File] = s
			order = append(order, c.File)
		}
		s.requests++
		s.prompt += int64(a.PromptTokens)
		if c.Recorded != nil {
			s.provider += int64(c.Recorded.PromptTokens)
			s.providerRequestsSeen++
		}
		for _, p := range a.Pictures {
			s.pictures++
			if p.Tool != "" {
				addToolPicture(tools, p, c.File, c.ID)
			}
		}
	}
	arm := ""
	if len(r.Cases) > 0 && len(r.Cases[0].Arms) > 0 {
		arm = r.Cases[0].Arms[0].Arm
	}
	st := results.Table{Title: "sessions (arm " + arm + ", every request)",
		Header: []string{"session", "requests", "pictures sent", "prompt tokens", "provider's prompt tokens"},
		Right:  []bool{false, true, true, true, true}}
	for _, f := range order {
		s := sessions[f]
		provider := ""
		if s.providerRequestsSeen > 0 {
			provider = results.Thousands(s.provider)
		}
		st.Rows = append(st.Rows, []string{filepath.Base(f), strconv.Itoa(s.requests), strconv.Itoa(s.pictures), results.Thousands(s.prompt), provider})
	}
	tt := toolCostTable(tools, arm)
	tables := []results.Table{results.FitTable(st, width, results.TextColumns(st))}
	if len(tt.Rows) > 0 {
		tables = append(tables, results.FitTable(tt, width, results.TextColumns(tt)))
	}
	return results.WriteTables(w, tables, false)
}

// addToolPicture adds a picture of the tool's result, sent in request id of the session file,
// to what the tool costs.
func addToolPicture(tools map[string]*toolCost, p results.Picture, file, id string) {
	t := tools[p.Tool]
	if t == nil {
		t = &toolCost{tool: p.Tool, sessions: map[string]bool{}, requests: map[string]bool{}}
		tools[p.Tool] = t
	}
	t.sessions[file], t.requests[id] = true, true
	t.pictures++
	t.rows += p.PromptRows()
	if p.SeenByModel {
		t.seen++
	} else {
		t.textChars += p.Length
	}
}

// toolCostTable is the table of what each tool's pictures cost in the arm, costliest first
// (an image row weighing four base64 characters left as text).
func toolCostTable(tools map[string]*toolCost, arm string) results.Table {
	var costs []*toolCost
	for _, t := range tools {
		costs = append(costs, t)
	}
	sort.Slice(costs, func(i, j int) bool {
		if costs[i].rows*4+costs[i].textChars != costs[j].rows*4+costs[j].textChars {
			return costs[i].rows*4+costs[i].textChars > costs[j].rows*4+costs[j].textChars
		}
		return costs[i].tool < costs[j].tool
	})
	tt := results.Table{Title: "pictures by tool (arm " + arm + ", in every request that sends them; costliest first)",
		Header: []string{"tool", "sessions", "requests", "pictures", "seen by the model", "image rows", "base64 chars as text"},
		Right:  []bool{false, true, true, true, true, true, true}}
	for _, t := range costs {
		tt.Rows = append(tt.Rows, []string{t.tool, strconv.Itoa(len(t.sessions)), strconv.Itoa(len(t.requests)), strconv.Itoa(t.pictures),
			strconv.Itoa(t.seen), results.Thousands(int64(t.rows)), results.Thousands(int64(t.textChars))})
	}
	return tt
}

// envHint names the variable that moves the agent's folder, where it has one.
func (a codingAgent) envHint() string {
	if a.env == "" {
		return ""
	}
	return ", or set " + a.env + " to the agent's folder"
}
