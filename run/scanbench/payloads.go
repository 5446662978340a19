package scanbench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/internal/synthimage"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/run"
)

// Payload is a payload under test: the texts of one tool message.
type Payload struct {
	// Name is unique among the payloads of a run and has no spaces.
	Name string
	// Class is png, base64, json, small or corpus.
	Class string
	Texts []string
}

// Bytes is the payload's size: the bytes of its texts.
func (p Payload) Bytes() int64 {
	var n int64
	for _, t := range p.Texts {
		n += int64(len(t))
	}
	return n
}

// Class is a class of generated payloads.
type Class struct {
	// Name is the class, Size its default size and Help what its payload is.
	Name, Size, Help string
}

// Classes are the classes of generated payloads, in the order they run.
var Classes = []Class{
	{"png", "2MB", "a Chatbox tool message (AI SDK parts stringified) carrying a screenshot PNG of about 3/4 of the size"},
	{"base64", "2MB", "JSON carrying one long base64 run that is not a picture"},
	{"json", "2MB", "ordinary JSON text (search results)"},
	{"small", "20KB", "a small ordinary JSON tool result"},
}

// ParseSize reads 2MB, 20KB, 1500B or 123 (bytes); 1 KB = 1000 bytes.
func ParseSize(s string) (int, error) {
	num, mult := s, 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = v, u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v <= 0 || v*mult > 1<<31 {
		return 0, fmt.Errorf("size %q: want a positive size such as 2MB, 20KB or 1500B (at most 2 GB)", s)
	}
	return int(v * mult), nil
}

// GeneratedPayloads makes the four payload classes at their sizes (defaults overridden by
// CLASS=SIZE), reproducibly from seed.
func GeneratedPayloads(sizes []string, seed int64) ([]Payload, error) {
	chosen := map[string]string{}
	for _, c := range Classes {
		chosen[c.Name] = c.Size
	}
	for _, s := range sizes {
		class, size, ok := strings.Cut(s, "=")
		if _, known := chosen[class]; !ok || !known {
			return nil, usageErrorf("--size %q: want CLASS=SIZE with CLASS one of png, base64, json, small", s)
		}
		chosen[class] = size
	}
	var out []Payload
	for _, c := range Classes {
		n, err := ParseSize(chosen[c.Name])
		if err != nil {
			return nil, usageErrorf("--size %s: %v", c.Name, err)
		}
		var text string
		switch c.Name {
		case "png":
			text, err = pngToolMessage(n, seed)
		case "base64":
			text = base64Payload(n, seed)
		default:
			text = jsonPayload(n, seed)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Payload{Name: c.Name + "_" + chosen[c.Name], Class: c.Name, Texts: []string{text}})
	}
	return out, nil
}

// WritePayloads writes the text of each payload to dir (made when missing) as NAME.txt, the
// texts of a message of several one after the other, so that another implementation can be
// timed on the same bytes; it returns the paths in the payloads' order.
func WritePayloads(dir string, payloads []Payload) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("payload folder: %w", err)
	}
	var paths []string
	for _, p := range payloads {
		path := filepath.Join(dir, p.Name+".txt")
		if err := os.WriteFile(path, []byte(strings.Join(p.Texts, "")), 0o644); err != nil {
			return nil, fmt.Errorf("write payload %s: %w", p.Name, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// aiSDKPart is one part of an AI SDK tool output as Chatbox stringifies it.
type aiSDKPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Data      string `json:"data,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

const benchCaption = "Captured the viewport of https://shop.example.test/admin/orders as a PNG and saved it to /tmp/page.png"

// pngToolMessage is a Chatbox tool message of about n bytes: the stringified AI SDK parts
// with a caption and a screenshot PNG whose base64 fills the rest.
func pngToolMessage(n int, seed int64) (string, error) {
	overhead := len(stringifyParts([]aiSDKPart{{Type: "text", Text: benchCaption}, {Type: "image-data", Data: "A", MediaType: "image/png"}})) - 1
	pngBytes := (n - overhead) / 4 * 3
	if pngBytes < 1024 {
		return "", usageErrorf("--size png=%d: too small for a picture (at least %d bytes)", n, overhead+1400)
	}
	// Start from the headline's 1280×800 for ~1.5 MB and scale the sides with the square root.
	scale := math.Sqrt(float64(pngBytes) / 1_528_438)
	w, h := max(32, int(1280*scale)), max(20, int(800*scale))
	var lastErr error
	for try := 0; try < 6; try++ {
		png, err := synthimage.ScreenshotPNG(w, h, seed, pngBytes, synthimage.Look{})
		if err == nil {
			return stringifyParts([]aiSDKPart{{Type: "text", Text: benchCaption},
				{Type: "image-data", Data: base64.StdEncoding.EncodeToString(png), MediaType: "image/png"}}), nil
		}
		lastErr = err
		if strings.Contains(err.Error(), "without noise") {
			w, h = max(8, w*2/3), max(8, h*2/3)
		} else {
			w, h = w*3/2, h*3/2
		}
	}
	return "", fmt.Errorf("png payload of %d bytes: %w", n, lastErr)
}

func stringifyParts(parts []aiSDKPart) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(parts) // strings only: cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// base64Payload is about n bytes of JSON holding one base64 run that decodes to no picture.
func base64Payload(n int, seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0xb64))
	head, tail := `{"name":"model.bin","encoding":"base64","blob":"`, `"}`
	chars := max(0, n-len(head)-len(tail))
	raw := make([]byte, chars*3/4+3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	raw[0] = 'x' // no picture signature starts with x
	return head + base64.StdEncoding.EncodeToString(raw)[:chars] + tail
}

// jsonPayload is about n bytes of ordinary JSON: search results made from seeded words.
func jsonPayload(n int, seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0x150))
	words := strings.Fields("quarterly report revenue northern region costs product line growth table breakdown " +
		"customer order shipping invoice total margin forecast budget review summary detail analysis")
	phrase := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := 0; b.Len() < n-2; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"title":%q,"link":"https://example.com/reports/%d/%s","snippet":%q,"score":%.4f}`,
			phrase(5), 2000+r.IntN(30), strings.ReplaceAll(phrase(2), " ", "-"), phrase(18), r.Float64())
	}
	b.WriteString(`]}`)
	s := b.String()
	if len(s) > n && n > 0 {
		// Keep it valid-looking but exact in size: trim inside the last record's snippet.
		s = s[:n]
	}
	return s
}

// CorpusPayloads lists the tool messages of a corpus (the embedded samples when paths is
// empty), each with the texts the server scans.
func CorpusPayloads(ctx context.Context, paths []string, notes io.Writer) ([]Payload, *run.LoadResult, error) {
	var out []Payload
	seen := map[string]int{}
	load, err := run.Load(ctx, paths, "", notes, func(c *corpora.Conversation) error {
		for i := range c.Messages {
			m := &c.Messages[i]
			if m.Role != corpora.RoleTool {
				continue
			}
			texts := toolTexts(m)
			if len(texts) == 0 {
				continue
			}
			name := fsutil.SafeName(filepath.Base(c.Source.File)) + "_m" + strconv.Itoa(i)
			seen[name]++
			if k := seen[name]; k > 1 {
				name += "_" + strconv.Itoa(k)
			}
			out = append(out, Payload{Name: name, Class: "corpus", Texts: texts})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, load, nil
}

// toolTexts are the texts of a tool message that the server-side lift scans.
func toolTexts(m *corpora.Message) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case corpora.PartText:
			add(p.Text)
		case corpora.PartToolResult:
			tr := p.ToolResult
			switch {
			case tr == nil:
			case tr.MCP != nil && !replay.HasPictureBlocks(tr.MCP):
				add(replay.RenderMCPLegacy(tr.MCP, replay.Settings{}, replay.MCPRenderOptions{ToolName: tr.Name}).Text())
			case tr.MCP != nil:
				// Picture blocks take the structured path: no text is scanned.
			case tr.Parts != nil:
				for _, q := range tr.Parts {
					if q.Kind == corpora.PartText {
						add(q.Text)
					}
				}
			default:
				add(tr.Text)
			}
		}
	}
	return out
}
