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

// formatSpec is one format strata-eval reads: its name, how a file of it looks (each reader's
// file owns its sniff), its reader and its properties.
type formatSpec struct {
	format Format
	sniff  func(f fileHead) bool
	read   ReaderFunc
	// sized: the reader is given a sizedReader when the input knows its size (a huge record
	// is read into one buffer of the size left, or a payload is looked for only where one fits).
	sized bool
	// buffers: the reader reads its input in large reads into buffers of its own, so it is
	// given the bytes detection buffered followed by the file itself, not a bufio.Reader that
	// would copy what it reads once more.
	buffers bool
	// stringifiesMCP: the client that records this format ran MCP itself and sent each MCP
	// result to the model as the string it made of it (ToolResult.Text), as a Vercel-AI-SDK
	// client does; the replay's "auto" MCP delivery follows it.
	stringifiesMCP bool
}

// formatTable is the one table of formats, in the order detection tries them: the first whose
// sniff says yes is the file's format. Formats, ReaderFor, ParseFormat, Detect, Read and
// StringifiesMCP all read it.
func formatTable() []formatSpec {
	return []formatSpec{
		{format: FormatHTTPRR, sniff: sniffHTTPRR, read: readHTTPRR},
		{format: FormatChatbox, sniff: sniffChatbox, read: readChatbox, sized: true, stringifiesMCP: true},
		{format: FormatClaudeDesktopLog, sniff: sniffClaudeDesktopLog, read: readClaudeDesktopLog},
		{format: FormatMCPInspector, sniff: sniffMCPInspector, read: readMCPInspector},
		{format: FormatClaudeCode, sniff: sniffClaudeCode, read: readClaudeCode},
		{format: FormatCodex, sniff: sniffCodex, read: readCodex},
		{format: FormatGeminiCLI, sniff: sniffGeminiCLI, read: readGeminiCLI},
		{format: FormatOpencode, sniff: sniffOpencode, read: readOpencode},
		{format: FormatCline, sniff: sniffCline, read: readCline, stringifiesMCP: true},
		{format: FormatMCPJSONL, sniff: sniffMCPJSONL, read: readMCPJSONL},
		{format: FormatOpenAIResponses, sniff: sniffOpenAIResponses, read: readOpenAIResponses, sized: true, buffers: true},
		{format: FormatAnthropic, sniff: sniffAnthropic, read: readAnthropic, sized: true, buffers: true},
		{format: FormatOpenAIChat, sniff: sniffOpenAIChat, read: readOpenAIChat, sized: true, buffers: true},
	}
}

// specOf returns the table's entry for f (false for a format it does not hold).
func specOf(f Format) (formatSpec, bool) {
	for _, spec := range formatTable() {
		if spec.format == f {
			return spec, true
		}
	}
	return formatSpec{}, false
}

// StringifiesMCP says whether the client that records format f sends an MCP result to the
// model as the string it made of it (ToolResult.Text), not as its blocks.
func StringifiesMCP(f Format) bool {
	spec, _ := specOf(f)
	return spec.stringifiesMCP
}

// Formats lists every format in the order detection tries them.
func Formats() []Format {
	var out []Format
	for _, spec := range formatTable() {
		out = append(out, spec.format)
	}
	return out
}

// ReaderFor returns the reader of a format.
func ReaderFor(f Format) (ReaderFunc, error) {
	if spec, ok := specOf(f); ok {
		return spec.read, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", f, FormatList())
}

// FormatList names the formats strata-eval reads, comma-separated, in the order detection
// tries them.
func FormatList() string {
	var s []string
	for _, f := range Formats() {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// ParseFormat checks an --input-format value; "" and "auto" mean detection.
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
var ErrUnknownFormat = errors.New("cannot tell the format of this file; name it with --input-format")

// fileHead is what detection sees of a file: its base name in lower case, its first bytes,
// and those bytes without leading white space and byte-order mark.
type fileHead struct {
	base    string
	head    []byte
	trimmed []byte
}

// has reports whether the first bytes contain s.
func (f fileHead) has(s string) bool { return bytes.Contains(f.head, []byte(s)) }

// startsWith reports whether the first bytes start with s, after white space and BOM.
func (f fileHead) startsWith(s string) bool { return bytes.HasPrefix(f.trimmed, []byte(s)) }

// Detect tells the format of a recording from its name and first bytes: the first format of
// the table whose sniff says yes.
func Detect(name string, head []byte) (Format, error) {
	f := fileHead{base: strings.ToLower(filepath.Base(name)), head: head, trimmed: bytes.TrimLeft(head, " \t\r\n\ufeff")}
	for _, spec := range formatTable() {
		if spec.sniff(f) {
			return spec.format, nil
		}
	}
	return "", ErrUnknownFormat
}

// DetectFile tells the format of the recording at path from its name and first bytes, as Read
// does. It returns ErrUnknownFormat only for a file it could read that holds something other
// than white space; a file it cannot open or read, or an empty one, gives "" and no error (the
// read itself reports those).
func DetectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", nil
	}
	head = head[:n]
	if len(bytes.TrimLeft(head, " \t\r\n\ufeff")) == 0 {
		return "", nil
	}
	return Detect(path, head)
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

// ReadFileDigest is ReadFile that also writes every byte of the file to w once, in order:
// what the reader reads as it reads it, then whatever it left unread. The run hashes its
// inputs this way for the report without reading them a second time. It returns the number
// of bytes written to w, whether that is the whole file (false when the file cannot be opened,
// its unread rest cannot be read or ctx is cancelled), and the read's error.
func ReadFileDigest(ctx context.Context, path string, format Format, e Emitter, w io.Writer) (n int64, whole bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, &ReadError{Loc: Location{File: path}, Err: err}
	}
	defer f.Close()
	t := &teeFile{f: f, w: w}
	err = Read(ctx, path, t, format, e)
	if ctx.Err() != nil { // an interrupted run does not read the rest of a file
		return t.n, false, err
	}
	// The rest, if any (a reader mostly reads to the end): up to 1 MiB a read (io.Copy would
	// take the file's WriteTo, 32 KiB a read), in a buffer no larger than the rest.
	left := bytesLeft(f)
	if left == 0 {
		return t.n, true, err
	}
	size := int64(1 << 20)
	if left > 0 {
		size = min(size, max(left, 4096))
	}
	rest, restErr := io.CopyBuffer(w, struct{ io.Reader }{f}, make([]byte, size))
	return t.n + rest, restErr == nil, err
}

// teeFile reads a file, writing what it reads to w, and says how many bytes are left in the
// file (bytesLeft) as the file itself does.
type teeFile struct {
	f *os.File
	w io.Writer
	n int64
}

func (t *teeFile) Read(p []byte) (int, error) {
	n, err := t.f.Read(p)
	if n > 0 {
		t.w.Write(p[:n]) // the run's w is a hash, whose Write never fails
		t.n += int64(n)
	}
	return n, err
}

func (t *teeFile) bytesLeft() int64 { return bytesLeft(t.f) }

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
	spec, ok := specOf(format)
	if !ok {
		_, err := ReaderFor(format)
		return &ReadError{Loc: Location{File: name}, Err: err}
	}
	var src io.Reader = br
	if spec.buffers {
		buffered, _ := br.Peek(br.Buffered())
		src = io.MultiReader(bytes.NewReader(buffered), r)
	}
	if spec.sized {
		if left := bytesLeft(r); left >= 0 {
			src = &sizedReader{r: src, left: left + int64(br.Buffered())} // the peeked bytes are left too
		}
	}
	return spec.read(ctx, name, src, redactingEmitter{e})
}

// sizedReader is a reader that knows how many bytes are left in it: a reader holding a huge
// record sizes its buffer once from it (requestLogReader.readLine) instead of growing it, and the
// Chatbox reader looks for payloads to stream past only in a file that can hold one.
type sizedReader struct {
	r    io.Reader
	left int64 // bytes not yet read through it (an upper bound)
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.left -= int64(n)
	return n, err
}

// bytesLeft is the number of bytes left to read in r when it is a regular file, else -1.
func bytesLeft(r io.Reader) int64 {
	if t, ok := r.(*teeFile); ok {
		return t.bytesLeft()
	}
	f, ok := r.(*os.File)
	if !ok {
		return -1
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off > st.Size() {
		return -1
	}
	return st.Size() - off
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
