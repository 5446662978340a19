package gencorpus

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"math/rand"
	"strings"
)

// HugeLineFormat is a recording format that HugeLine writes: where the picture's base64 goes
// and what the file is named (some formats are told by their name).
type HugeLineFormat struct {
	// Name is the format's name as --input-format takes it; File the name of the file to write.
	Name, File string
	// Carries says where the picture is, for the benchmark's report.
	Carries string
	// head and tail surround the picture's base64 in the one huge line; lead is written before
	// it (an MCP transcript's request line).
	lead, head, tail string
}

// HugeLineFormats are the formats HugeLine writes, one per reader of a recording that holds
// a tool's picture.
var HugeLineFormats = []HugeLineFormat{
	{Name: "mcp-jsonl", File: "huge.jsonl", Carries: "an MCP result's image block",
		lead: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screenshot","arguments":{}}}` + "\n",
		head: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the screen"},{"type":"image","mimeType":"image/png","data":"`,
		tail: `"}]}}` + "\n"},
	{Name: "openai-chat", File: "huge-chat.jsonl", Carries: "base64 in a tool message's text",
		head: `{"model":"m","messages":[{"role":"user","content":"take a screenshot"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"the screen: `,
		tail: `"}]}` + "\n"},
	{Name: "openai-responses", File: "huge-responses.json", Carries: "a data URL in a function_call_output's input_image",
		head: `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"take a screenshot"}]},` +
			`{"type":"function_call","call_id":"c1","name":"screenshot","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"the screen"},{"type":"input_image","image_url":"data:image/png;base64,`,
		tail: `"}]}]}` + "\n"},
	{Name: "anthropic", File: "huge-anthropic.json", Carries: "a tool_result's base64 image block",
		head: `{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"take a screenshot"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"screenshot","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"the screen"},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`,
		tail: `"}}]}]}]}` + "\n"},
	{Name: "chatbox", File: "chatbox-exported-data-2026-12-3.json", Carries: "an MCP result's image block in a tool call's result",
		head: `{"chat-sessions-list":[{"id":"s1","name":"Shots","type":"chat"}],"session:s1":{"id":"s1","name":"Shots","type":"chat","messages":[` +
			`{"id":"u1","role":"user","contentParts":[{"type":"text","text":"take a screenshot"}]},` +
			`{"id":"a1","role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"c1","toolName":"screenshot","args":{},` +
			`"result":{"content":[{"type":"text","text":"the screen"},{"type":"image","mimeType":"image/png","data":"`,
		tail: `"}]}},{"type":"text","text":"Here it is."}]}]},"configVersion":14,` +
			`"__exported_items":["conversations"],"__exported_at":"2026-12-03T08:00:00.000Z"}` + "\n"},
	{Name: "claude-code", File: AgentSessionFormats[0].File, Carries: "a Claude Code Read result's image block",
		lead: `{"type":"api-request-shape","sessionId":"s1","shapeHash":"h1","shape":{"system":[{"type":"text","text":"You are Claude Code."}],` +
			`"tools":[{"name":"Read","description":"Reads a file.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}]}}` + "\n" +
			`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"look at screen.png"},"uuid":"u1","sessionId":"s1"}` + "\n" +
			`{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","model":"claude-opus-5-5","role":"assistant",` +
			`"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"screen.png"}}]},"uuid":"a1","sessionId":"s1"}` + "\n",
		head: `{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",` +
			`"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`,
		tail: `"}}]}]},"uuid":"u2","sessionId":"s1"}` + "\n" +
			`{"type":"api-request","sessionId":"s1","id":"r1","shapeHash":"h1","params":{"model":"claude-opus-5-5","max_tokens":32000},"keep":0,"tail":["x1","x2","x3"]}` + "\n"},
	{Name: "codex", File: AgentSessionFormats[1].File, Carries: "a data URL in a Codex view_image output",
		lead: `{"type":"session_meta","payload":{"id":"s1","model_provider":"openai","base_instructions":{"text":"You are Codex."}}}` + "\n" +
			`{"type":"turn_context","payload":{"model":"gpt-5.5"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look at screen.png"}]}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call","name":"view_image","arguments":"{\"path\":\"screen.png\"}","call_id":"c1"}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":900,"output_tokens":12}}}}` + "\n",
		head: `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"data:image/png;base64,`,
		tail: `"}]}}` + "\n" +
			`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A page."}]}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1900,"output_tokens":12}}}}` + "\n"},
	{Name: "gemini-cli", File: AgentSessionFormats[2].File, Carries: "a Gemini CLI read_file result's inlineData",
		lead: `{"sessionId":"s1","projectHash":"p1","startTime":"2026-12-07T18:12:04.578Z","kind":"main"}` + "\n" +
			`{"id":"u1","type":"user","content":[{"text":"look at screen.png"}]}` + "\n" +
			`{"id":"g1","type":"gemini","content":"","model":"gemini-3.8-flash","toolCalls":[{"id":"read_file_1","name":"read_file","args":{"file_path":"screen.png"}}]}` + "\n",
		head: `{"id":"u2","type":"user","content":[{"functionResponse":{"id":"read_file_1","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},` +
			`{"inlineData":{"mimeType":"image/png","data":"`,
		tail: `"}}]}` + "\n" + `{"id":"g2","type":"gemini","content":"A page.","model":"gemini-3.8-flash"}` + "\n"},
	documentHugeLine("opencode", AgentSessionFormats[3].File, "a data URL in an OpenCode read tool's attachment", opencodeHugeLine),
	documentHugeLine("cline", AgentSessionFormats[4].File, "an image block in a Cline read_files result", clineHugeLine),
}

// HugeLineFormatNamed returns the format of that name.
func HugeLineFormatNamed(name string) (HugeLineFormat, error) {
	var names []string
	for _, f := range HugeLineFormats {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return HugeLineFormat{}, fmt.Errorf("huge-line format %q: want one of %s", name, strings.Join(names, ", "))
}

// HugeLine writes a recording in format f whose one huge JSON line carries, where the format
// puts a tool's picture, the base64 of a valid PNG of at least pictureBytes bytes (RGB noise
// stored uncompressed, so its size is its pixel count times three). It streams: memory does
// not grow with pictureBytes. It returns the number of bytes written.
func HugeLine(w io.Writer, f HugeLineFormat, pictureBytes int64, seed int64) (int64, error) {
	side := int64(1)
	for side*side*3 < pictureBytes {
		side++
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countingWriter{w: bw}
	io.WriteString(cw, f.lead)
	io.WriteString(cw, f.head)
	enc := base64.NewEncoder(base64.StdEncoding, cw)
	if err := writeStoredPNG(enc, int(side), int(side), seed); err != nil {
		return cw.n, err
	}
	if err := enc.Close(); err != nil {
		return cw.n, err
	}
	io.WriteString(cw, f.tail)
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// writeStoredPNG writes a w×h 8-bit RGB PNG of seeded noise as one IDAT chunk of stored
// (uncompressed) deflate blocks, row by row.
func writeStoredPNG(out io.Writer, w, h int, seed int64) error {
	if _, err := out.Write([]byte("\x89PNG\r\n\x1a\n")); err != nil {
		return err
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	if err := writePNGChunk(out, "IHDR", append(ihdr, 8, 2, 0, 0, 0)); err != nil {
		return err
	}
	if err := writeNoiseIDAT(out, w, h, seed); err != nil {
		return err
	}
	return writePNGChunk(out, "IEND", nil)
}

// writePNGChunk writes one PNG chunk: length, kind, data and CRC.
func writePNGChunk(out io.Writer, kind string, data []byte) error {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, kind...)
	b = append(b, data...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
	_, err := out.Write(b)
	return err
}

// writeNoiseIDAT writes the IDAT chunk of a w×h RGB picture of seeded noise (filter 0 on every
// row): a zlib stream of stored blocks, written as the rows are made.
func writeNoiseIDAT(out io.Writer, w, h int, seed int64) error {
	rowLen := 1 + 3*w
	raw := int64(rowLen) * int64(h)
	blocks := (raw + storedBlock - 1) / storedBlock
	idatLen := 2 + raw + 5*blocks + 4
	// IDAT header: length and type, then the zlib stream, then the CRC of type and data.
	head := binary.BigEndian.AppendUint32(nil, uint32(idatLen))
	head = append(head, "IDAT"...)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	body := io.MultiWriter(out, crc)
	if _, err := out.Write(head); err != nil {
		return err
	}
	if _, err := body.Write([]byte{0x78, 0x01}); err != nil {
		return err
	}
	adler := adler32.New()
	rng := rand.New(rand.NewSource(seed))
	row := make([]byte, rowLen)
	deflate := &storedBlocks{w: body, buf: make([]byte, 0, storedBlock), left: raw}
	for range h {
		row[0] = 0
		rng.Read(row[1:])
		adler.Write(row)
		if err := deflate.write(row); err != nil {
			return err
		}
	}
	if err := deflate.flush(); err != nil {
		return err
	}
	if _, err := body.Write(binary.BigEndian.AppendUint32(nil, adler.Sum32())); err != nil {
		return err
	}
	_, err := out.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// storedBlock is the most a stored deflate block holds.
const storedBlock = 65535

// storedBlocks writes a deflate stream of stored blocks of storedBlock bytes (the last one
// shorter), marking final the block that ends the left bytes.
type storedBlocks struct {
	w    io.Writer
	buf  []byte
	left int64
}

// write adds p to the stream, writing each block as it fills.
func (s *storedBlocks) write(p []byte) error {
	for len(p) > 0 {
		k := min(len(p), storedBlock-len(s.buf))
		s.buf = append(s.buf, p[:k]...)
		p = p[k:]
		if len(s.buf) == storedBlock {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the bytes held as one stored block, if any.
func (s *storedBlocks) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	s.left -= int64(len(s.buf))
	final := byte(0)
	if s.left == 0 {
		final = 1
	}
	n := len(s.buf)
	if _, err := s.w.Write([]byte{final, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)}); err != nil {
		return err
	}
	_, err := s.w.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}
