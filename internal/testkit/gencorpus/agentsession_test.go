package gencorpus

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// runsEmitter collects what a reader emits and has it stream past every base64 run over
// runChars characters (as a replay does past LargeBase64Bytes), uncounted.
type runsEmitter struct {
	corpora.Collector
	runChars int
}

func (e *runsEmitter) NewRunCounter() corpora.RunCounter { return nil }
func (e *runsEmitter) LargeRunChars() int                { return e.runChars }

// readAgentSession generates a session of format with two huge lines of hugeBytes and reads
// it, streaming past runs over 1 MiB; it returns what was read and the bytes read allocated.
// The ordinary turns are the same whatever hugeBytes is.
func readAgentSession(t *testing.T, format string, hugeBytes int64) (*runsEmitter, uint64) {
	t.Helper()
	turns, err := agentTurnsOf(format)
	if err != nil {
		t.Fatal(err)
	}
	cfg := AgentSessionConfig{Format: format, HugeLines: 2, HugeBytes: hugeBytes, CompactEvery: 4, Seed: 3}
	cfg.Bytes = 3<<20 + int64(cfg.HugeLines)*turns.hugePerTurn()*hugeBytes*4/3
	var file bytes.Buffer
	n, err := AgentSession(&file, cfg)
	if err != nil || n != int64(file.Len()) {
		t.Fatalf("%s: %d bytes written, %d counted, %v", format, file.Len(), n, err)
	}
	e := &runsEmitter{runChars: 1 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = corpora.Read(context.Background(), format+".jsonl", &file, corpora.Format(format), e)
	runtime.ReadMemStats(&after)
	if err != nil || len(e.Problems) != 0 {
		t.Fatalf("%s: %v, problems %v", format, err, e.Problems)
	}
	return e, after.TotalAlloc - before.TotalAlloc
}

// TestAgentSessionReads: each format's generated session reads as that agent's, with no
// problem: a conversation per request, none outgrowing the compactions, and the huge tool
// texts streamed past (a base64 run of the picture's length kept as its stand-in).
func TestAgentSessionReads(t *testing.T) {
	for _, f := range AgentSessionFormats {
		e, _ := readAgentSession(t, f.Name, 2<<20)
		longest, runs := 0, map[int64]bool{}
		for _, c := range e.Conversations {
			if string(c.Format) != f.Name {
				t.Fatalf("%s: read as %s", f.Name, c.Format)
			}
			longest = max(longest, len(c.Messages))
			for _, m := range append(c.Messages, c.Sent...) {
				for _, text := range partTexts(m.Parts) {
					for _, r := range corpora.LargeRuns(text) {
						runs[r.Chars] = true
					}
				}
			}
		}
		t.Logf("%s: %d requests, the longest of %d messages, runs streamed past %v", f.Name, len(e.Conversations), longest, runs)
		// up to five messages a turn (OpenCode sends a tool's pictures in a user message of their
		// own), four turns between compactions; Cline records none
		if len(e.Conversations) < 20 || longest > 5*4+4 && !f.Uncompacted {
			t.Errorf("%s: %d requests, the longest of %d messages", f.Name, len(e.Conversations), longest)
		}
		if len(runs) == 0 {
			t.Errorf("%s: no tool text holds a base64 run streamed past", f.Name)
		}
		for chars := range runs {
			if chars < 2<<20*4/3 {
				t.Errorf("%s: a run of %d characters, want the picture's base64", f.Name, chars)
			}
		}
	}
	if _, err := AgentSession(&strings.Builder{}, AgentSessionConfig{Format: "aider"}); err == nil || !strings.Contains(err.Error(), "claude-code, codex, gemini-cli") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestAgentSessionMemoryFlat holds the readers of the agents' sessions to streaming: a session
// whose two huge lines carry 5.3 MB more of base64 each (Gemini CLI writes each twice: four
// lines) allocates no more than 2 MB more while it is read. A reader that held a huge line, or
// a request re-sending it, would allocate its length again.
func TestAgentSessionMemoryFlat(t *testing.T) {
	for _, f := range AgentSessionFormats {
		_, small := readAgentSession(t, f.Name, 2<<20)
		_, big := readAgentSession(t, f.Name, 6<<20)
		t.Logf("%s: %d, %d bytes allocated", f.Name, small, big)
		if grew := int64(big) - int64(small); grew > 2<<20 {
			t.Errorf("%s: huge lines 5.3 MB longer allocated %d bytes more (%d, %d)", f.Name, grew, small, big)
		}
	}
}

// partTexts are the texts of parts and of the tool results among them, their parts and MCP
// blocks.
func partTexts(parts []corpora.Part) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
		if tr := p.ToolResult; tr != nil {
			out = append(append(out, tr.Text), partTexts(tr.Parts)...)
			if tr.MCP != nil {
				for _, b := range tr.MCP.Content {
					out = append(out, b.Text)
				}
			}
		}
	}
	return out
}

// TestAgentSessionHugeLines: a session of an agent that records no compaction carries its bytes
// in huge lines (its requests hold every turn before them); the others hold two.
func TestAgentSessionHugeLines(t *testing.T) {
	if n := AgentSessionHugeLines("cline", 1<<30, 100_000_000); n != 8 {
		t.Errorf("cline, 1 GiB of 100 MB pictures: %d huge lines, want 8", n)
	}
	if n := AgentSessionHugeLines("codex", 1<<30, 100_000_000); n != 2 {
		t.Errorf("codex: %d huge lines, want 2", n)
	}
}
