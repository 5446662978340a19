package main

import (
	"bytes"
	"slices"
)

// agentTool is Claude Code's name of its sub-agent tool.
const agentTool = "Agent"

// subagentMarker opens the task the main conversation gives its sub-agent: a request whose
// user messages hold it is the sub-agent's.
const subagentMarker = "agentsim sub-agent:"

// subagentInput is the Agent tool's input: a general-purpose sub-agent, in the foreground (its
// answer is the tool's result), that takes the screenshot.
func subagentInput() map[string]any {
	return map[string]any{"description": "Take the screenshot", "subagent_type": "general-purpose", "run_in_background": false,
		"prompt": subagentMarker + " take a screenshot with the shots MCP server and say in one sentence what it shows."}
}

// claudeStep is the script's next step for a Messages request (Claude Code's or Cline's) and the tool it calls. With
// a sub-agent, the main conversation calls the Agent tool first, then reads the picture file
// and answers; the sub-agent takes the screenshot and answers.
func (s *modelServer) claudeStep(req anthropicRequest) (step, string) {
	offered, called := anthropicTools(req)
	if s.subagent {
		switch {
		case isSubagent(req):
			called[claudeTools.read] = true // the file is the main conversation's to read
		case !called[agentTool] && slices.Contains(offered, agentTool) && slices.Contains(offered, claudeTools.read):
			return stepAgent, agentTool
		default:
			called[claudeTools.shot] = true // the sub-agent took it
		}
	}
	return nextStep(agentToolNames(offered), offered, called)
}

// isSubagent says whether a request is the sub-agent's: one of its user messages holds the task
// the main conversation gave it.
func isSubagent(req anthropicRequest) bool {
	for _, m := range req.Messages {
		if m.Role == "user" && bytes.Contains(m.Content, []byte(subagentMarker)) {
			return true
		}
	}
	return false
}
