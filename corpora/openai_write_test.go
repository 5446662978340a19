package corpora

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestWriteOpenAIMessageReasoningContent reads an assistant message with reasoning_content and
// writes it back with it (llama-server renders it), leaving other opaque parts out.
func TestWriteOpenAIMessageReasoningContent(t *testing.T) {
	in := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"","reasoning_content":"Think \"twice\".","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","reasoning":"not read by llama-server","content":"done"}]}`
	var c Collector
	if err := Read(context.Background(), "req.json", strings.NewReader(in), FormatOpenAIChat, &c); err != nil || len(c.Conversations) != 1 {
		t.Fatalf("read: %v, %d conversations", err, len(c.Conversations))
	}
	msgs := c.Conversations[0].Messages
	if got := ReasoningContent(&msgs[1]); got != `Think "twice".` {
		t.Errorf("ReasoningContent = %q", got)
	}
	if got := ReasoningContent(&msgs[3]); got != "" {
		t.Errorf("ReasoningContent of a \"reasoning\" key = %q, want none", got)
	}
	var b bytes.Buffer
	if err := WriteOpenAIChat(&b, msgs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `"content":null,"reasoning_content":"Think \"twice\".","tool_calls"`) {
		t.Errorf("reasoning_content not written: %s", out)
	}
	if strings.Contains(out, "not read by llama-server") {
		t.Errorf("a \"reasoning\" key written: %s", out)
	}
}

// TestWriteOpenAIChatLargeImage: an image whose bytes were streamed past while reading cannot
// be written back; the writer says so instead of writing an empty data URL.
func TestWriteOpenAIChatLargeImage(t *testing.T) {
	msgs := []Message{{Role: RoleUser, Parts: []Part{{Kind: PartImage, Image: &Image{DeclaredType: "image/png",
		Large: &LargeBase64{Chars: 80_000_000, Bytes: 60_000_000}}}}}}
	err := WriteOpenAIChat(io.Discard, msgs)
	if err == nil || !strings.Contains(err.Error(), "60000000 bytes was read past") {
		t.Errorf("err = %v", err)
	}
}
