package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// The headline picture (docs/pipeline.md §1): a 1,528,438-byte PNG screenshot whose tool message,
// as Chatbox sends it, is 2,038,152 characters of text.
const (
	headlineBytes       = 1_528_438
	headlineToolMessage = 2_038_152
	headlineWidth       = 1280
	headlineHeight      = 800
	headlineCaption     = "Captured the viewport of https://shop.example.test/admin/orders as 1280x800 PNG and saved it to /Users/mia/Library/Caches/ms-playwright/page-4711.png"
	chatboxModel        = "qwen3.8-flash-next"
	chatboxDate         = "2026-11-30"
)

// ids gives deterministic ids (uuids, call ids) from a fixed seed.
type ids struct{ state uint64 }

func (g *ids) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// uuid returns a version-4-shaped uuid.
func (g *ids) uuid() string {
	a, b := g.next(), g.next()
	a = a&^0xF000 | 0x4000     // version 4
	b = b&^(0xC<<60) | 0x8<<60 // variant 10
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xFFFF, a&0xFFFF, b>>48, b&0xFFFFFFFFFFFF)
}

// alnum returns n characters of [A-Za-z0-9].
func (g *ids) alnum(n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(chars[g.next()%uint64(len(chars))])
	}
	return b.String()
}

func (g *ids) bytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(g.next())
	}
	return out
}

// pictures are made once and shared by the samples that carry them.
type pictures struct {
	headline    []byte // 1280×800 PNG screenshot, red square, exactly headlineBytes
	forkJPEG    []byte // earlier, smaller screenshot in the Chatbox fork: blue square
	tinyPNG     []byte // 8×8 solid blue
	pastedPNG   []byte // a user's paste: "CAT"
	mcpJPEG     []byte // MCP screenshot: green square
	chartPNG    []byte // MCP resource blob: "Q3 +12%"
	thumbPNG    []byte // MCP picture repeated in structuredContent: orange square
	lotPNG      []byte // 2025-11-25 read_image: "LOT 58213"
	helloPNG    []byte // 2024-11-05 Python server, MIME-wrapped base64: "HELLO"
	calcPNG     []byte // Claude Desktop log: calculator display "1234.5"
	inspectPNG  []byte // Inspector export: "MCP"
	framesGIF   []byte // Responses: animated GIF 3, 2, 1
	chartBMP    []byte // Responses: yellow BMP as a data URL
	labelWebP   []byte // Anthropic image block: "7B"
	portPNG     []byte // Claude Code MCP screenshot: "8080" (small: the live server's context holds its base64 as text)
	buildPNG    []byte // Codex CLI MCP screenshot: "17"
	logoPNG     []byte // Gemini CLI MCP screenshot: "2.4"
	barcodePNG  []byte // Anthropic tool_result string content: "LOT 903"
	purplePNG   []byte // AI SDK 5 stringified CallToolResult: purple square
	resourcePNG []byte // AI SDK 6 stringified resource block (two escaping levels): "42"
}

func makePictures() (*pictures, error) {
	headline, err := testimages.ScreenshotPNG(headlineWidth, headlineHeight, 1, headlineBytes)
	if err != nil {
		return nil, fmt.Errorf("headline screenshot: %w", err)
	}
	p := &pictures{
		headline:    headline,
		forkJPEG:    jpegOf(testimages.Screenshot(640, 400, 2, 20000, testimages.WithSquare(testimages.Blue))),
		tinyPNG:     testimages.PNG(8, 8, 3, testimages.WithSolid(testimages.Blue)),
		pastedPNG:   testimages.PNG(160, 80, 4, testimages.WithText("CAT"), testimages.WithGrain(6)),
		mcpJPEG:     testimages.JPEG(320, 200, 5, testimages.WithSquare(testimages.Green)),
		chartPNG:    testimages.PNG(240, 120, 6, testimages.WithText("Q3 +12%")),
		thumbPNG:    testimages.PNG(64, 64, 7, testimages.WithSquare(testimages.Orange)),
		lotPNG:      testimages.PNG(300, 100, 8, testimages.WithText("LOT 58213")),
		helloPNG:    testimages.PNG(200, 80, 9, testimages.WithText("HELLO")),
		calcPNG:     testimages.PNG(260, 90, 10, testimages.WithSolid(testimages.Black), testimages.WithText("1234.5"), testimages.WithInk(testimages.Green)),
		inspectPNG:  testimages.PNG(120, 60, 11, testimages.WithText("MCP")),
		framesGIF:   testimages.AnimatedGIF(90, 60, 12, []string{"3", "2", "1"}),
		chartBMP:    testimages.BMP(64, 48, 13, testimages.WithSolid(testimages.Yellow)),
		labelWebP:   testimages.WebP(160, 90, 14, testimages.WithText("7B")),
		barcodePNG:  testimages.PNG(200, 70, 15, testimages.WithText("LOT 903"), testimages.WithGrain(6)),
		purplePNG:   testimages.PNG(96, 96, 16, testimages.WithSquare(testimages.Purple), testimages.WithGrain(6)),
		resourcePNG: testimages.PNG(100, 60, 17, testimages.WithText("42"), testimages.WithGrain(6)),
		portPNG:     testimages.PNG(64, 32, 18, testimages.WithText("8080"), testimages.WithGrain(2)),
		buildPNG:    testimages.PNG(64, 32, 19, testimages.WithText("17"), testimages.WithGrain(2)),
		logoPNG:     testimages.PNG(64, 32, 20, testimages.WithText("2.4"), testimages.WithGrain(2)),
	}
	for name, b := range map[string][]byte{"fork": p.forkJPEG, "tiny": p.tinyPNG, "gif": p.framesGIF, "bmp": p.chartBMP, "webp": p.labelWebP} {
		if len(b) == 0 {
			return nil, fmt.Errorf("picture %s: encoding failed", name)
		}
	}
	return p, nil
}

func jpegOf(m *image.RGBA) []byte {
	b, err := testimages.EncodeJPEG(m, 85)
	if err != nil {
		return nil
	}
	return b
}

// buildSamples makes every sample file.
func buildSamples(ctx context.Context) ([]sampleFile, error) {
	pics, err := makePictures()
	if err != nil {
		return nil, err
	}
	builders := []func(*pictures) (sampleFile, error){
		openAIHeadline,
		chatboxBackup,
		openAITinyPNG,
		openAINotAPicture,
		openAIUserPasted,
		openAITextOnly,
		openAIAISDK5,
		mcpStdio20250618,
		mcpStdio20251125,
		mcpStdio20241105,
		responsesGIF,
		responsesBMP,
		anthropicWebP,
		claudeDesktopLog,
		inspectorExport,
		claudeCodeSession,
		codexRollout,
		geminiCLISession,
		opencodeExport,
		clineSession,
	}
	var files []sampleFile
	for _, build := range builders {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := build(pics)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// gzipOf compresses data (header without name or time, so it is reproducible).
func gzipOf(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// wavOf returns a mono 8 kHz 16-bit PCM WAV of a 440 Hz tone.
func wavOf(seconds float64) []byte {
	const rate = 8000
	n := int(seconds * rate)
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	binary.Write(&b, le, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, le, uint32(16))
	binary.Write(&b, le, uint16(1))
	binary.Write(&b, le, uint16(1))
	binary.Write(&b, le, uint32(rate))
	binary.Write(&b, le, uint32(2*rate))
	binary.Write(&b, le, uint16(2))
	binary.Write(&b, le, uint16(16))
	b.WriteString("data")
	binary.Write(&b, le, uint32(2*n))
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
		binary.Write(&b, le, v)
	}
	return b.Bytes()
}

// mimeLines breaks base64 into 76-character lines ending in "\n", as Python's
// base64.encodebytes does.
func mimeLines(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76])
		b.WriteByte('\n')
		s = s[76:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}
