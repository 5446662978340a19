package corpora

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Emitter receives what a reader finds. Conversation is called for each conversation read
// (returning an error stops the reader); Problem is called for each located problem, and
// reading goes on with the next conversation, line or record.
type Emitter interface {
	Conversation(c *Conversation) error
	Problem(err *ReadError)
}

// ReaderFunc reads recordings of one format from r; name is the file name used in locations
// and conversation ids. It returns an error only when it cannot go on at all (the error is
// then located too).
type ReaderFunc func(ctx context.Context, name string, r io.Reader, e Emitter) error

// Formats lists every format in the order detection tries them.
func Formats() []Format {
	return []Format{FormatChatbox, FormatMCPInspector, FormatHTTPRR, FormatClaudeDesktopLog,
		FormatMCPJSONL, FormatAnthropic, FormatOpenAIResponses, FormatOpenAIChat}
}

// ReaderFor returns the reader of a format.
func ReaderFor(f Format) (ReaderFunc, error) {
	switch f {
	case FormatOpenAIChat:
		return readOpenAIChat, nil
	case FormatOpenAIResponses:
		return readOpenAIResponses, nil
	case FormatAnthropic:
		return readAnthropic, nil
	case FormatHTTPRR:
		return readHTTPRR, nil
	case FormatChatbox:
		return readChatbox, nil
	case FormatMCPJSONL:
		return readMCPJSONL, nil
	case FormatMCPInspector:
		return readMCPInspector, nil
	case FormatClaudeDesktopLog:
		return readClaudeDesktopLog, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", f, formatList())
}

func formatList() string {
	var s []string
	for _, f := range Formats() {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// ParseFormat checks a --format value; "" and "auto" mean detection.
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	if _, err := ReaderFor(Format(s)); err != nil {
		return "", err
	}
	return Format(s), nil
}

// sniffSize is how much of a file detection looks at.
const sniffSize = 64 << 10

// ErrUnknownFormat is returned when detection cannot tell a file's format.
var ErrUnknownFormat = errors.New("cannot tell the format of this file; use --format")

// Detect tells the format of a recording from its name and first bytes.
func Detect(name string, head []byte) (Format, error) {
	base := strings.ToLower(filepath.Base(name))
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(h, []byte("httprr trace v1")):
		return FormatHTTPRR, nil
	case strings.HasPrefix(base, "chatbox-exported-data") || bytes.Contains(head, []byte(`"chat-sessions`)) ||
		(bytes.Contains(head, []byte(`"session:`)) && bytes.Contains(head, []byte(`"configVersion"`))):
		return FormatChatbox, nil
	case strings.HasPrefix(base, "mcp.log") || strings.HasPrefix(base, "mcp-server-") ||
		bytes.Contains(head, []byte("Message from client")) || bytes.Contains(head, []byte("Message from server")) ||
		looksLikeClaudeLog(h):
		return FormatClaudeDesktopLog, nil
	case bytes.HasPrefix(h, []byte("STDIN: ")) || bytes.HasPrefix(h, []byte("STDOUT: ")) || bytes.HasPrefix(h, []byte("STDERR: ")):
		return FormatMCPJSONL, nil
	case bytes.HasPrefix(h, []byte("[")) && (bytes.Contains(head, []byte(`"direction"`)) || bytes.Contains(head, []byte(`"requestBody"`))) &&
		(bytes.Contains(head, []byte(`"jsonrpc"`)) || bytes.Contains(head, []byte(`"mcp-`)) || bytes.Contains(head, []byte(`\"jsonrpc\"`))):
		return FormatMCPInspector, nil
	case bytes.Contains(head, []byte(`"jsonrpc"`)):
		return FormatMCPJSONL, nil
	case bytes.Contains(head, []byte(`"input"`)) && (bytes.Contains(head, []byte(`"function_call_output"`)) ||
		bytes.Contains(head, []byte(`"input_text"`)) || bytes.Contains(head, []byte(`"input_image"`)) || !bytes.Contains(head, []byte(`"messages"`))):
		return FormatOpenAIResponses, nil
	case bytes.Contains(head, []byte(`"tool_result"`)) || bytes.Contains(head, []byte(`"tool_use"`)) ||
		bytes.Contains(head, []byte(`"anthropic_version"`)) || bytes.Contains(head, []byte(`"media_type"`)) ||
		bytes.Contains(head, []byte(`"model":"claude-`)) || bytes.Contains(head, []byte(`"model": "claude-`)) ||
		(bytes.Contains(head, []byte(`"max_tokens"`)) && bytes.Contains(head, []byte(`"system"`)) && !bytes.Contains(head, []byte(`"role":"system"`)) && !bytes.Contains(head, []byte(`"role": "system"`))):
		return FormatAnthropic, nil
	case bytes.Contains(head, []byte(`"messages"`)):
		return FormatOpenAIChat, nil
	}
	return "", ErrUnknownFormat
}

// looksLikeClaudeLog reports whether the first line has Claude Desktop's
// "<timestamp> [x] [y] " prefix.
func looksLikeClaudeLog(h []byte) bool {
	line, _, _ := bytes.Cut(h, []byte("\n"))
	if len(line) < 26 || line[4] != '-' || line[10] != 'T' {
		return false
	}
	return bytes.Contains(line, []byte("] ["))
}

// ReadFile reads one file of the given format ("" detects it) and sends what it finds to e.
func ReadFile(ctx context.Context, path string, format Format, e Emitter) error {
	f, err := os.Open(path)
	if err != nil {
		return &ReadError{Loc: Location{File: path}, Err: err}
	}
	defer f.Close()
	return Read(ctx, path, f, format, e)
}

// ErrEmpty is returned for a file that holds nothing but white space, whatever its format.
var ErrEmpty = errors.New("empty: the file holds no recording")

// Read reads a recording named name from r; format "" detects it. An empty file is an error
// (ErrEmpty) with or without a format.
func Read(ctx context.Context, name string, r io.Reader, format Format, e Emitter) error {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return &ReadError{Loc: Location{File: name}, Err: err}
	}
	if err == io.EOF && len(bytes.TrimLeft(head, " \t\r\n\ufeff")) == 0 {
		return &ReadError{Loc: Location{File: name}, Err: ErrEmpty}
	}
	if format == "" {
		format, err = Detect(name, head)
		if err != nil {
			return &ReadError{Loc: Location{File: name}, Err: err}
		}
	}
	read, err := ReaderFor(format)
	if err != nil {
		return &ReadError{Loc: Location{File: name}, Err: err}
	}
	return read(ctx, name, br, redactingEmitter{e})
}

// Collector is an Emitter that keeps everything in memory.
type Collector struct {
	Conversations []*Conversation
	Problems      []*ReadError
}

// Conversation keeps c.
func (c *Collector) Conversation(conv *Conversation) error {
	c.Conversations = append(c.Conversations, conv)
	return nil
}

// Problem keeps err.
func (c *Collector) Problem(err *ReadError) { c.Problems = append(c.Problems, err) }
