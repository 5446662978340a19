package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// What the after pipeline is expected to do with a payload (manifest "expect").
const (
	expectLift      = "lift"          // a picture in a tool's text, 1024+ base64 characters: lifted (docs/pipeline.md §4)
	expectMCP       = "mcp-picture"   // a picture block of an MCP result (docs/pipeline.md §5)
	expectNative    = "native"        // already an image part; passes in both arms
	expectShort     = "short"         // a picture whose base64 is under the minimum run: stays text
	expectUser      = "never-user"    // base64 a user pasted: never lifted
	expectOpaque    = "never-opaque"  // an opaque token (thinking signature): never touched
	expectKeep      = "keep"          // base64 that is not a picture: left byte for byte
	expectStructure = "mcp-duplicate" // a copy of an MCP picture inside structuredContent or a text mirror
)

// payload is a base64 payload written into a sample file.
type payload struct {
	Data     []byte
	Picture  bool
	Type     string
	Width    int
	Height   int
	Encoding string // base64, base64-mime-lines, data-url, base64-in-text
	Origin   string // tool, user, assistant
	Expect   string
}

// picture describes an encoded picture as a payload.
func picture(data []byte, encoding, origin, expect string) payload {
	info, err := testimages.Inspect(data)
	p := payload{Data: data, Picture: err == nil, Encoding: encoding, Origin: origin, Expect: expect}
	if err == nil {
		p.Type, p.Width, p.Height = info.Type, info.Width, info.Height
	}
	return p
}

// opaque describes bytes that are not a picture.
func opaque(data []byte, typ, encoding, origin, expect string) payload {
	return payload{Data: data, Type: typ, Encoding: encoding, Origin: origin, Expect: expect}
}

func b64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

// b64blob is the bare base64 of p as a JSON string value.
func b64blob(p payload) blob { return blob{text: b64(p.Data), notes: []payload{p}} }

// textBlob is a JSON string made of before + base64-or-data-URL of p + after.
func textBlob(before string, p payload, after string) blob {
	enc := b64(p.Data)
	if p.Encoding == "data-url" {
		enc = "data:" + p.Type + ";base64," + enc
	}
	return blob{text: before + enc + after, notes: []payload{p}}
}

// sampleFile is one generated file.
type sampleFile struct {
	name   string
	format string
	data   []byte
	convs  []conversation
	found  []found
	lineOf map[int]int // index into found → 1-based line, for line-based files
}

// conversation is what the generator knows of one conversation of a file.
type conversation struct {
	// Key is the conversation id the readers assign (see corpora/read_*.go); when empty,
	// file name + "#" + ordinal.
	Key    string
	Title  string `json:",omitempty"`
	Expect expectation
}

type expectation struct {
	Question string `json:"question"`
	Scorer   string `json:"scorer"`
	Answer   string `json:"answer"`
}

// jsonFile makes a single-document sample file.
func jsonFile(name, format string, doc any, st style, trailingNewline bool, convs ...conversation) (sampleFile, error) {
	data, found, err := encodeJSON(doc, st)
	if err != nil {
		return sampleFile{}, fmt.Errorf("%s: %w", name, err)
	}
	if trailingNewline {
		data = append(data, '\n')
	}
	return sampleFile{name: name, format: format, data: data, convs: keyed(name, convs), found: found}, nil
}

// line is one line of a line-based file: a prefix, an optional JSON value, a suffix.
type line struct {
	prefix string
	doc    any
	suffix string
}

// linesFile makes a line-based sample file (JSON Lines, logs); pointers are relative to the
// JSON value of their line.
func linesFile(name, format string, lines []line, convs ...conversation) (sampleFile, error) {
	f := sampleFile{name: name, format: format, convs: keyed(name, convs), lineOf: map[int]int{}}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l.prefix)
		if l.doc != nil {
			data, found, err := encodeJSON(l.doc, compact)
			if err != nil {
				return sampleFile{}, fmt.Errorf("%s line %d: %w", name, i+1, err)
			}
			b.Write(data)
			for _, fd := range found {
				f.lineOf[len(f.found)] = i + 1
				f.found = append(f.found, fd)
			}
		}
		b.WriteString(l.suffix)
		b.WriteByte('\n')
	}
	f.data = []byte(b.String())
	return f, nil
}

func keyed(name string, convs []conversation) []conversation {
	out := make([]conversation, len(convs))
	for i, c := range convs {
		if c.Key == "" {
			c.Key = fmt.Sprintf("%s#%d", name, i)
		}
		out[i] = c
	}
	return out
}

// manifest is samples/manifest.json.
type manifest struct {
	About string         `json:"about"`
	Files []manifestFile `json:"files"`
}

type manifestFile struct {
	File          string            `json:"file"`
	Format        string            `json:"format"`
	Bytes         int               `json:"bytes"`
	SHA256        string            `json:"sha256"`
	Conversations int               `json:"conversations"`
	IDs           []string          `json:"conversation_ids"`
	Titles        []string          `json:"titles,omitempty"`
	Pictures      []manifestPayload `json:"pictures"`
	NotPictures   []manifestPayload `json:"not_pictures,omitempty"`
}

type manifestPayload struct {
	SHA256        string   `json:"sha256"`
	Type          string   `json:"type"`
	Width         int      `json:"width,omitempty"`
	Height        int      `json:"height,omitempty"`
	Bytes         int      `json:"bytes"`
	Base64Chars   int      `json:"base64_chars"`
	Line          int      `json:"line,omitempty"`
	Pointer       string   `json:"pointer"`
	InnerPointers []string `json:"inner_pointers,omitempty"`
	Encoding      string   `json:"encoding"`
	Origin        string   `json:"origin"`
	Expect        string   `json:"expect"`
}

const manifestAbout = "Written by internal/testkit/gensamples (go generate ./corpora/). For every sample file: its format, " +
	"how many conversations a reader should emit, and every base64 payload in it. pointer is an RFC 6901 JSON Pointer " +
	"to the JSON string holding the payload, in the file's JSON document or, when line is set, in the JSON value of " +
	"that line (after a log prefix). inner_pointers, when set, point inside that string, which is itself JSON (and, " +
	"for a second entry, inside the JSON string the first one reaches). " +
	"expect says what the after pipeline should do: lift (picture in a tool's text), mcp-picture (picture block of an " +
	"MCP result), mcp-duplicate (the same picture again in structuredContent or a text mirror), native (already an " +
	"image part), short (picture under the 1024-character minimum run), never-user (pasted by a user), never-opaque " +
	"(an opaque token), keep (base64 that is not a picture). conversation_ids are the ids the readers assign, in " +
	"the order they emit them; expectations.json is keyed by them."

// generate writes the corpus into dir.
func generate(ctx context.Context, dir string) error {
	files, err := buildSamples(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	m := manifest{About: manifestAbout}
	expectations := map[string]expectation{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		sum := sha256.Sum256(f.data)
		mf := manifestFile{File: f.name, Format: f.format, Bytes: len(f.data), SHA256: hex.EncodeToString(sum[:]),
			Conversations: len(f.convs), Pictures: []manifestPayload{}}
		for _, c := range f.convs {
			mf.IDs = append(mf.IDs, c.Key)
			if c.Title != "" {
				mf.Titles = append(mf.Titles, c.Title)
			}
			if c.Expect.Question != "" {
				expectations[c.Key] = c.Expect
			}
		}
		for i, fd := range f.found {
			if err := checkPayload(f.name, fd); err != nil {
				return err
			}
			ps := sha256.Sum256(fd.Data)
			mp := manifestPayload{SHA256: hex.EncodeToString(ps[:]), Type: fd.Type, Width: fd.Width, Height: fd.Height,
				Bytes: len(fd.Data), Base64Chars: len(b64(fd.Data)), Line: f.lineOf[i], Pointer: fd.pointer,
				InnerPointers: fd.inner, Encoding: fd.Encoding, Origin: fd.Origin, Expect: fd.Expect}
			if fd.Picture {
				mf.Pictures = append(mf.Pictures, mp)
			} else {
				mf.NotPictures = append(mf.NotPictures, mp)
			}
		}
		m.Files = append(m.Files, mf)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].File < m.Files[j].File })
	if err := writeJSONFile(filepath.Join(dir, "manifest.json"), m); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "expectations.json"), expectations)
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// minRun is the default minimum base64 run of the lift (docs/pipeline.md §4.2).
const minRun = 1024

// checkPayload makes sure a payload can play its part: a lift candidate or a user's paste is
// at least minRun base64 characters, a "short" picture is under it, and pictures decode.
func checkPayload(file string, f found) error {
	n := len(b64(f.Data))
	switch {
	case f.Picture != (f.Type != "" && strings.HasPrefix(f.Type, "image/")):
		return fmt.Errorf("%s at %s: picture flag and type %q disagree", file, f.pointer, f.Type)
	case (f.Expect == expectLift || f.Expect == expectUser || f.Expect == expectKeep || f.Expect == expectOpaque) && n < minRun:
		return fmt.Errorf("%s at %s: %s payload has %d base64 characters, under %d", file, f.pointer, f.Expect, n, minRun)
	case f.Expect == expectShort && n >= minRun:
		return fmt.Errorf("%s at %s: short picture has %d base64 characters", file, f.pointer, n)
	}
	return nil
}
