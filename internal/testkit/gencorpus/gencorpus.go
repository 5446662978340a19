// Package gencorpus writes a large synthetic corpus of recorded OpenAI Chat Completions
// requests for scale tests and `make bench-scale`: many conversations, multi-megabyte tool
// messages (screenshots stringified as Chatbox sends them, long logs, base64 of bytes that are
// no picture) and histories re-sent with every request, as a proxy log records them. The
// output is deterministic for a seed.
package gencorpus

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// Config sets the size and shape of the corpus.
type Config struct {
	// Seed makes the corpus reproducible.
	Seed int64
	// TotalBytes is the size to reach; the last file is finished, so the corpus ends a little
	// over it.
	TotalBytes int64
	// FileBytes is the size at which a file is closed and the next one begun (default 64 MiB).
	FileBytes int64
	// ToolMessageBytes is the size of a large tool message (default 2 MiB).
	ToolMessageBytes int
	// ToolTurns is the number of tool calls per conversation (default 3); every one ends a
	// request that re-sends the history before it.
	ToolTurns int
	// Pictures is the number of distinct screenshots used (default 4); they are made once.
	Pictures int
}

// Stats describes what Generate wrote.
type Stats struct {
	Files         int   `json:"files"`
	Conversations int   `json:"conversations"`
	Requests      int   `json:"requests"`
	ToolMessages  int   `json:"tool_messages"`
	Pictures      int   `json:"picture_messages"`
	Bytes         int64 `json:"bytes"`
}

func (c Config) withDefaults() Config {
	if c.FileBytes <= 0 {
		c.FileBytes = 64 << 20
	}
	if c.ToolMessageBytes <= 0 {
		c.ToolMessageBytes = 2 << 20
	}
	if c.ToolTurns <= 0 {
		c.ToolTurns = 3
	}
	if c.Pictures <= 0 {
		c.Pictures = 4
	}
	return c
}

// Generate writes the corpus into dir (created if needed) as files named
// requests-NNNN.jsonl, one recorded request per line.
func Generate(ctx context.Context, dir string, cfg Config) (Stats, error) {
	cfg = cfg.withDefaults()
	if cfg.TotalBytes <= 0 {
		return Stats{}, fmt.Errorf("gencorpus: TotalBytes must be positive")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, err
	}
	g, err := newGenerator(cfg)
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	for st.Bytes < cfg.TotalBytes {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		path := filepath.Join(dir, fmt.Sprintf("requests-%04d.jsonl", st.Files))
		n, err := g.writeFile(ctx, path, min(cfg.FileBytes, cfg.TotalBytes-st.Bytes), &st)
		st.Bytes += n
		if err != nil {
			return st, err
		}
		st.Files++
	}
	return st, nil
}

// generator holds the pieces reused across conversations.
type generator struct {
	cfg      Config
	rng      *rand.Rand
	pictures []string // base64 of the screenshots
}

func newGenerator(cfg Config) (*generator, error) {
	g := &generator{cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed))}
	for i := 0; i < cfg.Pictures; i++ {
		size := max(cfg.ToolMessageBytes*3/4*3/4, 64<<10) // base64 of it is about ¾ of a tool message
		w, h := 1280, 800
		for testimages.ScreenshotCapacity(w, h) < size && w < 8000 {
			w, h = w*3/2, h*3/2
		}
		png, err := testimages.ScreenshotPNG(w, h, cfg.Seed+int64(i), size)
		if err != nil {
			return nil, fmt.Errorf("gencorpus: picture %d: %w", i, err)
		}
		g.pictures = append(g.pictures, base64.StdEncoding.EncodeToString(png))
	}
	return g, nil
}

// writeFile writes conversations into path until it holds at least want bytes.
func (g *generator) writeFile(ctx context.Context, path string, want int64, st *Stats) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	for written < want {
		if err := ctx.Err(); err != nil {
			f.Close()
			return written, err
		}
		n, err := g.writeConversation(w, st)
		written += n
		if err != nil {
			f.Close()
			return written, fmt.Errorf("gencorpus: write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return written, err
	}
	return written, f.Close()
}

// message is one Chat Completions message; fields are written in this order.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// writeConversation writes one conversation as ToolTurns requests, each re-sending the
// history, and returns the bytes written.
func (g *generator) writeConversation(w *bufio.Writer, st *Stats) (int64, error) {
	conv := st.Conversations
	st.Conversations++
	history := []message{
		{Role: "system", Content: "You are a helpful assistant with browser and shell tools. Answer briefly."},
		{Role: "user", Content: fmt.Sprintf("Task %d: open the dashboard, check the build log and tell me what failed.", conv)},
	}
	var written int64
	for turn := 0; turn < g.cfg.ToolTurns; turn++ {
		callID := fmt.Sprintf("call_%d_%d", conv, turn)
		name, args, content, picture := g.toolResult(conv, turn)
		history = append(history,
			message{Role: "assistant", ToolCalls: []toolCall{{ID: callID, Type: "function", Function: toolFunction{Name: name, Arguments: args}}}},
			message{Role: "tool", ToolCallID: callID, Content: content})
		st.ToolMessages++
		if picture {
			st.Pictures++
		}
		line, err := json.Marshal(struct {
			Model    string    `json:"model"`
			Messages []message `json:"messages"`
			Stream   bool      `json:"stream"`
		}{"qwen3-vl-8b", history, false})
		if err != nil {
			return written, err
		}
		line = append(line, '\n')
		n, err := w.Write(line)
		written += int64(n)
		if err != nil {
			return written, err
		}
		st.Requests++
		history = append(history, message{Role: "assistant", Content: fmt.Sprintf("Step %d done.", turn)},
			message{Role: "user", Content: "Go on."})
	}
	return written, nil
}

// toolResult returns a tool call (name, arguments) and its result text: a stringified MCP
// result with a screenshot, a long log, base64 of random bytes, or a short note.
func (g *generator) toolResult(conv, turn int) (name, args, content string, picture bool) {
	size := g.cfg.ToolMessageBytes
	if conv%2 == 1 {
		// Every other conversation is small: short logs and blobs, no screenshot.
		size = 8 << 10
		if (conv+turn)%4 == 0 {
			return "shell", `{"cmd":"git status"}`, g.logText(size), false
		}
	}
	switch (conv + turn) % 4 {
	case 0:
		pic := g.pictures[g.rng.Intn(len(g.pictures))]
		type block struct {
			Type      string `json:"type"`
			Text      string `json:"text,omitempty"`
			Data      string `json:"data,omitempty"`
			MediaType string `json:"mediaType,omitempty"`
		}
		b, _ := json.Marshal([]block{
			{Type: "text", Text: fmt.Sprintf("Captured the viewport of https://dash.example.test/build/%d as PNG", conv)},
			{Type: "image-data", Data: pic, MediaType: "image/png"},
		})
		return "mcp__playwright__browser_take_screenshot", "{}", string(b), true
	case 1:
		return "shell", `{"cmd":"cat build.log"}`, g.logText(size), false
	case 2:
		raw := make([]byte, size*3/4)
		g.rng.Read(raw)
		return "read_file", `{"path":"artifacts/model.bin","encoding":"base64"}`, base64.StdEncoding.EncodeToString(raw), false
	default:
		return "http_get", `{"url":"https://dash.example.test/status"}`, `{"status":"degraded","failing":["unit","lint"]}`, false
	}
}

var logWords = strings.Fields("build step compile link test ok FAIL warning error cache hit miss module package " +
	"github.com/acme/dash internal/server handler.go:42 timeout retry 200 404 500 GET POST duration ms")

// logText returns about size bytes of a build log.
func (g *generator) logText(size int) string { return LogText(g.rng, size) }

// LogText returns about size bytes of a build log drawn from rng: lines of a timestamp, eight
// words of a small list (with paths and numbers among them) and a build number. The
// tokenizer's benchmarks count it as the corpus's logs.
func LogText(rng *rand.Rand, size int) string {
	var b strings.Builder
	b.Grow(size + 128)
	for line := 0; b.Len() < size; line++ {
		fmt.Fprintf(&b, "2026-11-30T09:%02d:%02d.%03dZ ", line/3600%60, line/60%60, line%1000)
		for i := 0; i < 8; i++ {
			b.WriteString(logWords[rng.Intn(len(logWords))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "#%d\n", rng.Intn(100000))
	}
	return b.String()
}
