package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// prompt is the task every agent is given.
const prompt = "Take a screenshot with the shots MCP server, then look at the picture file screen.png " +
	"in this folder, then say in one sentence what both show."

// agent is one coding agent the simulator runs: how to set it up in a fresh home and how to
// call it, and where it keeps its session files.
type agent struct {
	// setup writes the agent's configuration into the case's home and project folders and
	// returns the arguments and the environment (beside HOME and PATH) to run it with.
	setup func(c *caseDirs, base string) (args, env []string, err error)
	// sessions is the folder, relative to the home, under which the agent keeps its sessions;
	// all of it is kept.
	sessions string
	// export, when set, runs after the agent to write its sessions under sessions (an agent
	// that keeps them in a database); cmd is the agent's call.
	export func(ctx context.Context, c *caseDirs, bin string, cmd *exec.Cmd) error
}

// agents is the table of agents, by the name -agent takes.
var agents = map[string]agent{
	"claude-code": {setup: setupClaude, sessions: ".claude/projects"},
	"codex":       {setup: setupCodex, sessions: ".codex/sessions"},
	"gemini":      {setup: setupGemini, sessions: ".gemini/tmp"},
	"opencode":    {setup: setupOpencode, sessions: opencodeExports, export: exportOpencode},
	"cline":       {setup: setupCline, sessions: ".cline/data/sessions"},
}

// agentList names the agents, comma-separated.
func agentList() string {
	var names []string
	for n := range agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// caseDirs are the folders of one run: a fresh home, the project in it (the agent's working
// folder) and the MCP server's command line.
type caseDirs struct {
	home, project string
	mcp           []string
}

// setupClaude writes the MCP configuration for Claude Code and returns its print-mode call.
func setupClaude(c *caseDirs, base string) ([]string, []string, error) {
	cfg := map[string]any{"mcpServers": map[string]any{"shots": map[string]any{"command": c.mcp[0], "args": c.mcp[1:]}}}
	if err := writeJSON(filepath.Join(c.project, "mcp.json"), cfg); err != nil {
		return nil, nil, err
	}
	args := []string{"-p", prompt, "--mcp-config", "mcp.json", "--allowedTools", "mcp__shots__" + shotTool + ",Read", "--output-format", "json"}
	env := []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=x", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	return args, env, nil
}

// setupCodex writes $CODEX_HOME/config.toml (a model provider of the Responses API at base, the
// MCP server) and returns the `codex exec` call.
func setupCodex(c *caseDirs, base string) ([]string, []string, error) {
	codexHome := filepath.Join(c.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return nil, nil, fmt.Errorf("codex home: %w", err)
	}
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	var mcpArgs []string
	for _, a := range c.mcp[1:] {
		mcpArgs = append(mcpArgs, q(a))
	}
	toml := strings.Join([]string{
		`model = "gpt-5.5"`,
		`model_provider = "agentsim"`,
		`[model_providers.agentsim]`,
		`name = "agentsim"`,
		`base_url = ` + q(base+"/v1"),
		`wire_api = "responses"`,
		`env_key = "AGENTSIM_API_KEY"`,
		`[mcp_servers.shots]`,
		`command = ` + q(c.mcp[0]),
		`args = [` + strings.Join(mcpArgs, ", ") + `]`,
		``,
	}, "\n")
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(toml), 0o644); err != nil {
		return nil, nil, fmt.Errorf("codex config: %w", err)
	}
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt}
	env := []string{"CODEX_HOME=" + codexHome, "AGENTSIM_API_KEY=x"}
	return args, env, nil
}

// setupGemini writes ~/.gemini/settings.json (API-key auth, the MCP server) and returns the
// headless call, every tool approved.
func setupGemini(c *caseDirs, base string) ([]string, []string, error) {
	dir := filepath.Join(c.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("gemini settings: %w", err)
	}
	settings := map[string]any{
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}, "folderTrust": map[string]any{"enabled": false}},
		"mcpServers": map[string]any{"shots": map[string]any{"command": c.mcp[0], "args": c.mcp[1:], "trust": true}},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
	}
	if err := writeJSON(filepath.Join(dir, "settings.json"), settings); err != nil {
		return nil, nil, err
	}
	args := []string{"-p", prompt, "--approval-mode", "yolo", "--skip-trust"}
	env := []string{"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_CLI_NO_RELAUNCH=true"}
	return args, env, nil
}
