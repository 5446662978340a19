package corpora_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// sampleManifest mirrors samples/manifest.json (written by internal/testkit/gensamples).
type sampleManifest struct {
	Files []struct {
		File          string          `json:"file"`
		Format        corpora.Format  `json:"format"`
		Bytes         int             `json:"bytes"`
		SHA256        string          `json:"sha256"`
		Conversations int             `json:"conversations"`
		IDs           []string        `json:"conversation_ids"`
		Pictures      []samplePayload `json:"pictures"`
		NotPictures   []samplePayload `json:"not_pictures"`
	} `json:"files"`
}

type samplePayload struct {
	SHA256        string   `json:"sha256"`
	Type          string   `json:"type"`
	Width         int      `json:"width"`
	Height        int      `json:"height"`
	Bytes         int      `json:"bytes"`
	Line          int      `json:"line"`
	Pointer       string   `json:"pointer"`
	InnerPointers []string `json:"inner_pointers"`
	Encoding      string   `json:"encoding"`
	Origin        string   `json:"origin"`
	Expect        string   `json:"expect"`
}

func loadManifest(t *testing.T) sampleManifest {
	t.Helper()
	data, err := fs.ReadFile(corpora.SampleFS(), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m sampleManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) == 0 {
		t.Fatal("empty manifest")
	}
	return m
}

// resolve returns the value at an RFC 6901 pointer inside a decoded JSON value.
func resolve(v any, pointer string) (any, error) {
	if pointer == "" {
		return v, nil
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("no member %q", tok)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no element %q", tok)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("cannot step into %T with %q", v, tok)
		}
	}
	return v, nil
}

// payloadBytes finds the payload's string in a sample file and decodes the base64 in it.
func payloadBytes(file []byte, p samplePayload) ([]byte, error) {
	doc := file
	if p.Line > 0 {
		lines := bytes.Split(file, []byte("\n"))
		if p.Line > len(lines) {
			return nil, fmt.Errorf("no line %d", p.Line)
		}
		l := lines[p.Line-1]
		i := bytes.IndexByte(l, '{')
		if i < 0 {
			return nil, fmt.Errorf("line %d holds no JSON", p.Line)
		}
		doc = l[i:]
	}
	var v any
	if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&v); err != nil {
		return nil, err
	}
	s, err := resolve(v, p.Pointer)
	if err != nil {
		return nil, err
	}
	for _, inner := range p.InnerPointers {
		str, ok := s.(string)
		if !ok {
			return nil, fmt.Errorf("%T at %s is not a string of JSON", s, p.Pointer)
		}
		if err := json.Unmarshal([]byte(str), &v); err != nil {
			return nil, err
		}
		if s, err = resolve(v, inner); err != nil {
			return nil, err
		}
	}
	str, ok := s.(string)
	if !ok {
		return nil, fmt.Errorf("%T at the pointer, want a string", s)
	}
	if p.Encoding == "data-url" || p.Encoding == "base64-in-text" {
		runs := base64Run.FindAllString(str, -1)
		if len(runs) != 1 {
			return nil, fmt.Errorf("%d base64 runs in the text, want 1", len(runs))
		}
		str = runs[0]
	}
	return base64.StdEncoding.DecodeString(str) // tolerates the "\n" of MIME lines
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{64,}={0,2}`)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestSampleCorpusMatchesManifest checks the corpus against its manifest without any reader:
// file sizes and hashes, and every payload found at its pointer with its hash, type and size.
func TestSampleCorpusMatchesManifest(t *testing.T) {
	m := loadManifest(t)
	names, err := corpora.SampleFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(m.Files) {
		t.Fatalf("%d sample files, manifest lists %d", len(names), len(m.Files))
	}
	total := 0
	formats := map[corpora.Format]bool{}
	types := map[string]bool{}
	for _, f := range m.Files {
		t.Run(f.File, func(t *testing.T) {
			data, err := fs.ReadFile(corpora.SampleFS(), f.File)
			if err != nil {
				t.Fatal(err)
			}
			total += len(data)
			formats[f.Format] = true
			if len(data) != f.Bytes || sha(data) != f.SHA256 {
				t.Fatalf("size %d sha %s, manifest %d %s", len(data), sha(data), f.Bytes, f.SHA256)
			}
			head := data[:min(len(data), 64<<10)]
			if got, err := corpora.Detect(f.File, head); err != nil || got != f.Format {
				t.Errorf("Detect = %q, %v; manifest says %q", got, err, f.Format)
			}
			for _, p := range append(append([]samplePayload(nil), f.Pictures...), f.NotPictures...) {
				b, err := payloadBytes(data, p)
				if err != nil {
					t.Fatalf("payload at line %d %s %v: %v", p.Line, p.Pointer, p.InnerPointers, err)
				}
				if sha(b) != p.SHA256 || len(b) != p.Bytes {
					t.Fatalf("payload at %s: sha %s (%d bytes), manifest %s (%d)", p.Pointer, sha(b), len(b), p.SHA256, p.Bytes)
				}
			}
			for _, p := range f.Pictures {
				b, _ := payloadBytes(data, p)
				info, err := testimages.Inspect(b)
				if err != nil {
					t.Fatalf("picture at %s: %v", p.Pointer, err)
				}
				types[info.Type] = true
				if info.Type != p.Type || info.Width != p.Width || info.Height != p.Height {
					t.Errorf("picture at %s is %+v, manifest %s %dx%d", p.Pointer, info, p.Type, p.Width, p.Height)
				}
			}
			for _, p := range f.NotPictures {
				b, _ := payloadBytes(data, p)
				if _, err := testimages.Inspect(b); err == nil {
					t.Errorf("payload at %s decodes as a picture, manifest says it is not one", p.Pointer)
				}
			}
		})
	}
	if total > 8<<20 {
		t.Errorf("the corpus is %d bytes, over 8 MiB", total)
	}
	for _, typ := range []string{"image/png", "image/jpeg", "image/gif", "image/bmp", "image/webp"} {
		if !types[typ] {
			t.Errorf("no %s picture in the corpus", typ)
		}
	}
	for _, f := range corpora.Formats() {
		if f != corpora.FormatHTTPRR && !formats[f] {
			t.Errorf("no sample of format %s", f)
		}
	}
}

// TestHeadlineSample checks the headline case of docs/pipeline.md §1 in shape: a tool message of
// 2,038,152 characters carrying a 1,528,438-byte PNG.
func TestHeadlineSample(t *testing.T) {
	data, err := fs.ReadFile(corpora.SampleFS(), "openai-chat-chatbox-screenshot.json")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var content string
	if err := json.Unmarshal(last.Content, &content); err != nil {
		t.Fatal(err)
	}
	if last.Role != "tool" || len(content) != 2_038_152 {
		t.Fatalf("last message %s with %d characters, want tool with 2,038,152", last.Role, len(content))
	}
	var parts []struct{ Type, Text, Data, MediaType string }
	if err := json.Unmarshal([]byte(content), &parts); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(parts[1].Data)
	if err != nil || len(png) != 1_528_438 || parts[1].Type != "image-data" || parts[1].MediaType != "image/png" {
		t.Fatalf("picture part %s %s: %d bytes, %v", parts[1].Type, parts[1].MediaType, len(png), err)
	}
	var system string
	if err := json.Unmarshal(body.Messages[0].Content, &system); err != nil || !strings.HasPrefix(system, "Current model: ") ||
		!strings.Contains(system, "\n Additional info for this conversation: ") {
		t.Fatalf("first message is not Chatbox's system message: %q (%v)", system, err)
	}
}

// TestSampleExpectationsCoverEveryConversation checks that expectations.json has exactly one
// entry per conversation the manifest announces.
func TestSampleExpectationsCoverEveryConversation(t *testing.T) {
	m := loadManifest(t)
	expect, err := corpora.SampleExpectations()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range m.Files {
		if len(f.IDs) != f.Conversations {
			t.Errorf("%s: %d conversation ids for %d conversations", f.File, len(f.IDs), f.Conversations)
		}
		for _, key := range f.IDs {
			e, ok := expect[key]
			if !ok {
				t.Errorf("no expectation for %s", key)
				continue
			}
			if e.Question == "" || e.Answer == "" || e.Scorer == "" {
				t.Errorf("%s: incomplete expectation %+v", key, e)
			}
			want++
		}
	}
	if len(expect) != want {
		t.Errorf("%d expectations, %d conversations", len(expect), want)
	}
}

// seen records where the payloads of the read conversations are: sha256 → how they were met.
type seen map[string]map[string]bool

func (s seen) add(b []byte, how string) {
	k := sha(b)
	if s[k] == nil {
		s[k] = map[string]bool{}
	}
	s[k][how] = true
}

// text records every base64 run of a text.
func (s seen) text(text, how string) {
	for _, run := range base64Run.FindAllString(text, -1) {
		if b, err := base64.StdEncoding.DecodeString(run); err == nil {
			s.add(b, how)
		}
	}
}

func (s seen) parts(parts []corpora.Part, role corpora.Role) {
	for _, p := range parts {
		switch {
		case p.Image != nil:
			s.add(p.Image.Data, "image-part")
		case p.ToolResult != nil:
			r := p.ToolResult
			s.text(r.Text, "tool-text")
			s.parts(r.Parts, corpora.RoleTool)
			if r.MCP != nil {
				for _, b := range r.MCP.Content {
					if b.Data != "" {
						if d, err := base64.StdEncoding.DecodeString(b.Data); err == nil {
							s.add(d, "mcp-block")
						}
					}
					if b.Resource != nil && b.Resource.Blob != nil {
						if d, err := base64.StdEncoding.DecodeString(*b.Resource.Blob); err == nil {
							s.add(d, "mcp-block")
						}
					}
					s.text(b.Text, "mcp-text")
				}
				s.text(string(r.MCP.StructuredContent), "mcp-structured")
			}
		default:
			s.text(p.Text, string(role)+"-text")
		}
	}
}

// TestSamplesThroughReaders reads every sample through its reader (found by detection) and
// checks the conversation count and that every payload of the manifest is reachable in the
// canonical model. A format whose reader is not implemented yet is skipped.
func TestSamplesThroughReaders(t *testing.T) {
	m := loadManifest(t)
	for _, f := range m.Files {
		t.Run(f.File, func(t *testing.T) {
			data, err := fs.ReadFile(corpora.SampleFS(), f.File)
			if err != nil {
				t.Fatal(err)
			}
			var c corpora.Collector
			if err := corpora.Read(context.Background(), f.File, bytes.NewReader(data), "", &c); err != nil {
				if strings.Contains(err.Error(), "not implemented") {
					t.Skip("reader not implemented")
				}
				t.Fatalf("read: %v", err)
			}
			for _, p := range c.Problems {
				t.Errorf("problem: %v", p)
			}
			if len(c.Conversations) != f.Conversations {
				t.Errorf("%d conversations, manifest says %d", len(c.Conversations), f.Conversations)
			}
			var ids []string
			for _, conv := range c.Conversations {
				ids = append(ids, conv.ID)
			}
			if strings.Join(ids, "\n") != strings.Join(f.IDs, "\n") {
				t.Errorf("reader ids %q, manifest (and expectations.json) %q", ids, f.IDs)
			}
			found := seen{}
			for _, conv := range c.Conversations {
				if conv.Format != f.Format {
					t.Errorf("conversation %s has format %q, want %q", conv.ID, conv.Format, f.Format)
				}
				for _, msg := range conv.Messages {
					found.parts(msg.Parts, msg.Role)
				}
			}
			for _, p := range f.Pictures {
				how := found[p.SHA256]
				if len(how) == 0 {
					t.Errorf("picture %s (%s, %s at line %d %s) not found in the conversations", p.SHA256[:12], p.Type, p.Expect, p.Line, p.Pointer)
					continue
				}
				switch p.Expect {
				case "native":
					if !how["image-part"] {
						t.Errorf("picture at %s should be an image part, met as %v", p.Pointer, how)
					}
				case "never-user":
					if !how["user-text"] || how["image-part"] {
						t.Errorf("pasted base64 at %s should stay user text, met as %v", p.Pointer, how)
					}
				}
			}
			for _, p := range f.NotPictures {
				if found[p.SHA256]["image-part"] {
					t.Errorf("%s at %s became an image part", p.Type, p.Pointer)
				}
			}
		})
	}
}

// TestReadSamplesAttachesExpectations reads the whole corpus with ReadSamples: every
// conversation emitted carries its expectation.
func TestReadSamplesAttachesExpectations(t *testing.T) {
	var c corpora.Collector
	err := corpora.ReadSamples(context.Background(), &c)
	if err != nil && !strings.Contains(err.Error(), "not implemented") {
		t.Errorf("ReadSamples: %v", err)
	}
	if len(c.Conversations) == 0 {
		t.Skip("no reader implemented yet")
	}
	for _, conv := range c.Conversations {
		if conv.Expect == nil || conv.Expect.Question == "" {
			t.Errorf("conversation %s (%s) has no expectation", conv.ID, conv.Source.File)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := corpora.ReadSamples(ctx, &corpora.Collector{}); err == nil {
		t.Error("ReadSamples with a cancelled context returned no error")
	}
}

func TestSampleFSListsRecordingsOnly(t *testing.T) {
	names, err := corpora.SampleFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == "manifest.json" || n == "expectations.json" {
			t.Errorf("SampleFiles lists %s", n)
		}
	}
	if len(names) < 10 {
		t.Errorf("only %d sample files", len(names))
	}
}
