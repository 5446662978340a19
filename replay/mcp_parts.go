package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
)

// MCPPicture is one picture block of an MCP result (an image block, or a resource block whose
// blob is declared image/*), and what the server did with it.
type MCPPicture struct {
	// Block is the index of the block in the result's content.
	Block int
	Loc   corpora.Location
	// Type is the MIME type the signature says ("" when the bytes are not a picture).
	Type string
	// DeclaredType is the block's mimeType (never trusted).
	DeclaredType string
	// Bytes is the decoded size (estimated from the base64 length when it cannot be decoded).
	Bytes int64
	// Data is the decoded bytes (nil when they cannot be decoded).
	Data []byte
	// Head is the start of the decoded bytes of a picture too large to decode whole (over
	// the byte cap): enough to read its header.
	Head []byte
	// SHA256 is the hex digest of the decoded bytes, when known without Data (a payload
	// streamed past while reading).
	SHA256  string
	Outcome Outcome
	Reason  string
	// Problem says the block is bad input (no data, bad base64, not a picture, or it failed
	// the picture check): the replay reports a located diagnostic for it.
	Problem bool
	// Image is the image part made of a taken picture (nil otherwise).
	Image *corpora.Image
	// checked is Data as the picture check met it, with its memo key once hashed, so that
	// the picture's record looks its facts up without hashing the bytes again.
	checked memoPicture
}

// MCPRendering is an MCP result as the server hands it to the model.
type MCPRendering struct {
	// Parts are text parts and image parts in block order.
	Parts []corpora.Part
	// Pictures lists every picture block met, in block order.
	Pictures []MCPPicture
}

// Text is the text of the rendering: its text parts, concatenated.
func (r MCPRendering) Text() string {
	if len(r.Parts) == 1 && r.Parts[0].Kind == corpora.PartText {
		return r.Parts[0].Text
	}
	var b strings.Builder
	for _, p := range r.Parts {
		if p.Kind == corpora.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// MCPRenderOptions carry what the rendering needs beyond the result itself.
type MCPRenderOptions struct {
	// ToolName is the name of the tool that answered ("mcp__<server>__<tool>" names the
	// server that resource-link notes point to).
	ToolName string
	// Pictures remembers picture-check verdicts across results (nil: check every picture).
	Pictures *PictureMemo
}

// HasPictureBlocks says whether an MCP result carries picture blocks: image blocks, or
// resource blocks whose blob is declared image/*. A result without any is rendered to a plain
// string and scanned like any other tool text (docs/pipeline.md §4.1).
func HasPictureBlocks(res *corpora.CallToolResult) bool {
	if res == nil {
		return false
	}
	for i := range res.Content {
		if isPictureBlock(&res.Content[i]) {
			return true
		}
	}
	return false
}

// DecodeMCPPictureBlock decodes an MCP picture block (an image block, or a resource blob
// declared image/*) as the lift does. ok is false for a block that is no picture candidate;
// p.Reason says why a candidate is not a picture (no data, bad base64, no known signature).
func DecodeMCPPictureBlock(b *corpora.Block) (p MCPPicture, ok bool) {
	if !isPictureBlock(b) {
		return MCPPicture{}, false
	}
	return decodeMCPPicture(b, 0, payloadLoc(b, b.Loc), 0), true
}

// payloadLoc is where a picture block's base64 payload was recorded (its data, or its
// resource's blob), else loc, the block's location.
func payloadLoc(b *corpora.Block, loc corpora.Location) corpora.Location {
	if b.PayloadLoc != (corpora.Location{}) {
		return b.PayloadLoc
	}
	return loc
}

// isPictureBlock says whether a block is a picture candidate.
func isPictureBlock(b *corpora.Block) bool {
	switch b.Type {
	case "image":
		return true
	case "resource":
		return b.Resource != nil && b.Resource.Blob != nil && isImageMIME(b.Resource.MimeType)
	}
	return false
}

// isImageMIME says whether a declared MIME type is image/* (parameters and case ignored).
func isImageMIME(m string) bool {
	return strings.HasPrefix(baseMIME(m), "image/")
}

// baseMIME is the part of a MIME type before ';', trimmed and lower-cased.
func baseMIME(m string) string {
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = m[:i]
	}
	return strings.ToLower(strings.TrimSpace(m))
}

// RenderMCPLegacy renders an MCP result the way the server did before the change
// (docs/pipeline.md §3): one text, every picture block named by the note
// "[image (image/png, 2,337,795 bytes): not shown to the model]".
func RenderMCPLegacy(res *corpora.CallToolResult, s Settings, opt MCPRenderOptions) MCPRendering {
	return renderMCP(res, s, opt, false)
}

// RenderMCPLift renders an MCP result the way the server does after the change
// (docs/pipeline.md §5): the same text, except that picture blocks that pass the signature check
// become image parts where they stood, at most 8 of 32 MiB each; past a cap a picture is named
// by the legacy note, and a picture that cannot be decoded, or any picture when the model has
// no vision encoder, becomes "[image omitted: <reason>]". Error results stay text.
func RenderMCPLift(res *corpora.CallToolResult, s Settings, opt MCPRenderOptions) MCPRendering {
	return renderMCP(res, s, opt, true)
}

// mcpItem is one rendered block: text, or a picture that became an image part.
type mcpItem struct {
	text  string
	image *corpora.Image
	loc   corpora.Location
}

func renderMCP(res *corpora.CallToolResult, s Settings, opt MCPRenderOptions, lift bool) MCPRendering {
	var out MCPRendering
	if res == nil {
		out.Parts = []corpora.Part{{Kind: corpora.PartText}}
		return out
	}
	maxPictures, maxBytes := s.MaxPictures, s.MaxPictureBytes
	if maxPictures <= 0 {
		maxPictures = DefaultMaxPictures
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxPictureBytes
	}
	taken := 0
	var items []mcpItem
	for i := range res.Content {
		b := &res.Content[i]
		loc := b.Loc
		if loc == (corpora.Location{}) {
			loc = res.Loc.Child("content").Child(i)
		}
		if !isPictureBlock(b) {
			if t := renderMCPBlock(b, opt); t != "" {
				items = append(items, mcpItem{text: t, loc: loc})
			}
			continue
		}
		p := decodeMCPPicture(b, i, payloadLoc(b, loc), maxBytes)
		switch {
		case !lift || res.IsError:
			p.Outcome = OutcomeNoted
			p.Reason = "the server names MCP pictures in text"
			if res.IsError {
				p.Reason = "an error result stays text"
			}
			items = append(items, mcpItem{text: LegacyPictureNote(p.noteType(), p.Bytes), loc: loc})
		case s.NoVisionEncoder:
			p.Outcome, p.Reason = OutcomeOmitted, ReasonNoVisionEncoder
			items = append(items, mcpItem{text: OmittedNote(p.Reason), loc: loc})
		case p.Type == "":
			p.Outcome, p.Problem = OutcomeOmitted, true
			items = append(items, mcpItem{text: OmittedNote(p.Reason), loc: loc})
		case p.Bytes > maxBytes:
			p.Outcome = OutcomeCapped
			p.Reason = capReason(maxBytes)
			items = append(items, mcpItem{text: LegacyPictureNote(p.Type, p.Bytes), loc: loc})
		default:
			p.checked = opt.Pictures.picture(p.Data)
			info, err := p.checked.check(PictureLimits{})
			switch {
			case err != nil:
				p.Outcome, p.Reason, p.Problem = OutcomeOmitted, err.Error(), true
				items = append(items, mcpItem{text: OmittedNote(p.Reason), loc: loc})
			case taken >= maxPictures:
				p.Outcome = OutcomeCapped
				p.Reason = fmt.Sprintf("more than %d pictures in one result", maxPictures)
				items = append(items, mcpItem{text: LegacyPictureNote(p.Type, p.Bytes), loc: loc})
			default:
				taken++
				p.Outcome = OutcomeTaken
				p.Reason = ""
				p.Image = &corpora.Image{Data: p.Data, DeclaredType: p.DeclaredType, Origin: corpora.OriginTool,
					Encoding: "base64", Width: info.Width, Height: info.Height}
				items = append(items, mcpItem{image: p.Image, loc: loc})
			}
		}
		out.Pictures = append(out.Pictures, p)
	}
	if !res.IsError {
		if t := renderStructuredContent(res); t != "" {
			items = append(items, mcpItem{text: t, loc: res.Loc.Child("structuredContent")})
		}
	}
	out.Parts = mcpItemsToParts(items, res.Loc)
	if s.MaxResultChars > 0 {
		capMCPText(out.Parts, s.MaxResultChars)
	}
	return out
}

// noteType is the type a legacy note gives a picture block: the declared one, as the server
// always did, else the sniffed one.
func (p MCPPicture) noteType() string {
	if t := baseMIME(p.DeclaredType); t != "" {
		return t
	}
	if p.Type != "" {
		return p.Type
	}
	return "unknown type"
}

// decodeMCPPicture decodes a picture block and checks its signature. Outcome is left for the
// caller; Reason explains a failure. A block whose decoded size is over maxBytes (when
// positive) is not decoded whole: its length is counted and only its start is decoded (Head).
func decodeMCPPicture(b *corpora.Block, index int, loc corpora.Location, maxBytes int64) MCPPicture {
	data, declared, large := b.Data, b.MimeType, b.Large
	if b.Type == "resource" {
		data, declared, large = *b.Resource.Blob, b.Resource.MimeType, b.Resource.LargeBlob
	}
	p := MCPPicture{Block: index, Loc: loc, DeclaredType: declared}
	label := baseMIME(declared)
	if label == "" {
		label = "image"
	}
	if large != nil {
		// streamed past while reading (corpora.LargeBase64Bytes): counted from its length and
		// header, never decoded, whatever the cap
		p.Bytes, p.Head, p.SHA256 = large.Bytes, large.Head, large.SHA256
		switch p.Type = SniffImage(p.Head); {
		case large.Err != "":
			p.Type, p.Reason = "", fmt.Sprintf("the %s block could not be decoded: %s", label, large.Err)
		case p.Type == "":
			p.Reason = fmt.Sprintf("the %s block is not a PNG, JPEG, GIF, BMP or WebP picture", label)
		}
		return p
	}
	if strings.TrimSpace(data) == "" {
		p.Reason = fmt.Sprintf("the %s block carries no data", label)
		return p
	}
	if maxBytes > 0 && int64(len(data))/4*3 > maxBytes {
		n, err := lenientBase64Len(data)
		if err != nil {
			p.Bytes = estimateDecodedLen(data)
			p.Reason = fmt.Sprintf("the %s block could not be decoded: %v", label, err)
			return p
		}
		if n > maxBytes {
			p.Bytes, p.Head = n, lenientBase64Head(data, mcpHeadBytes)
			p.Type = SniffImage(p.Head)
			if p.Type == "" {
				p.Reason = fmt.Sprintf("the %s block is not a PNG, JPEG, GIF, BMP or WebP picture", label)
			}
			return p
		}
	}
	decoded, err := decodeLenientBase64(data)
	if err != nil {
		p.Bytes = estimateDecodedLen(data)
		p.Reason = fmt.Sprintf("the %s block could not be decoded: %v", label, err)
		return p
	}
	p.Data, p.Bytes = decoded, int64(len(decoded))
	p.Type = SniffImage(decoded)
	if p.Type == "" {
		p.Reason = fmt.Sprintf("the %s block is not a PNG, JPEG, GIF, BMP or WebP picture", label)
	}
	return p
}

// mcpHeadBytes is how much of a picture over the byte cap is decoded to read its header.
const mcpHeadBytes = 64 << 10

// decodeLenientBase64 decodes base64 exactly as Python's non-validating base64.b64decode
// (binascii.a2b_base64 with strict_mode off) does: characters outside the alphabet are
// skipped; a '=' that completes a group ends the decoding (what follows is ignored); a '='
// that does not is ignored once more data follows; a last group of one character is an error,
// and one of two or three characters without its padding is "Incorrect padding".
func decodeLenientBase64(s string) ([]byte, error) {
	if d, err := decodeStdString(s); err == nil {
		return d, nil // the common case: strict base64 decodes the same
	}
	out := make([]byte, 0, len(s)/4*3+3)
	quad, pads := 0, 0
	var left byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			if quad >= 2 {
				pads++
				if quad+pads >= 4 {
					return out, nil
				}
			}
			continue
		}
		v := base64Value[c]
		if v == 0xff {
			continue
		}
		pads = 0
		switch quad {
		case 0:
			left, quad = v, 1
		case 1:
			out = append(out, left<<2|v>>4)
			left, quad = v&0x0f, 2
		case 2:
			out = append(out, left<<4|v>>2)
			left, quad = v&0x03, 3
		case 3:
			out = append(out, left<<6|v)
			left, quad = 0, 0
		}
	}
	switch quad {
	case 0:
		return out, nil
	case 1:
		return nil, fmt.Errorf("invalid base64: number of data characters (%d) cannot be 1 more than a multiple of 4", len(out)/3*4+1)
	}
	return nil, errors.New("incorrect base64 padding")
}

// base64Value maps a byte to its value in the standard base64 alphabet, 0xff outside it.
var base64Value = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// estimateDecodedLen estimates the decoded size of base64 text that cannot be decoded.
func estimateDecodedLen(s string) int64 {
	n := 0
	for i := 0; i < len(s); i++ {
		if scanClass[s[i]] == scanAlpha {
			n++
		}
	}
	return int64(n) * 3 / 4
}

// renderMCPBlock renders a block that is not a picture candidate (docs/pipeline.md
// §5.2, with the server's own notes for bytes it does not show: the server never caches or
// opens anything).
func renderMCPBlock(b *corpora.Block, opt MCPRenderOptions) string {
	switch {
	case b.Type == "text":
		return b.Text
	case b.Type == "image":
		return "" // unreachable: every image block is a picture candidate
	case b.Type == "audio":
		mime := baseMIME(b.MimeType)
		if mime == "" {
			mime = "audio"
		}
		return legacyNote("audio", mime, payloadSizeForNote(b.Data, b.Large))
	case b.Type == "resource" && b.Resource != nil:
		r := b.Resource
		if r.Text != nil {
			return *r.Text
		}
		if r.Blob != nil {
			mime := baseMIME(r.MimeType)
			if mime == "" {
				mime = "unknown type"
			}
			return fmt.Sprintf("[MCP resource %s (%s, %s bytes): not shown to the model]",
				r.URI, mime, FormatCount(payloadSizeForNote(*r.Blob, r.LargeBlob)))
		}
		return ""
	case b.Type == "resource_link" || (b.URI != "" && b.Resource == nil && b.Type != "resource"):
		var sb strings.Builder
		sb.WriteString("[MCP resource link: uri=")
		sb.WriteString(b.URI)
		if b.Name != "" {
			sb.WriteString(", name=")
			sb.WriteString(b.Name)
		}
		if b.MimeType != "" {
			sb.WriteString(", mimeType=")
			sb.WriteString(b.MimeType)
		}
		sb.WriteString(" — fetch it with ")
		sb.WriteString(readResourceTool(opt.ToolName))
		sb.WriteString("]")
		return sb.String()
	}
	var sb strings.Builder
	sb.WriteString("[MCP content dropped: unsupported block (type=")
	sb.WriteString(b.Type)
	if b.MimeType != "" {
		sb.WriteString(", mimeType=" + b.MimeType)
	}
	if b.URI != "" {
		sb.WriteString(", uri=" + b.URI)
	}
	if b.Size != nil {
		fmt.Fprintf(&sb, ", size=%d", *b.Size)
	}
	if b.Name != "" {
		sb.WriteString(", name=" + b.Name)
	}
	sb.WriteString(")]")
	return sb.String()
}

// readResourceTool names the read_resource tool of the server a tool belongs to.
func readResourceTool(toolName string) string {
	if rest, ok := strings.CutPrefix(toolName, "mcp__"); ok {
		if server, _, ok := strings.Cut(rest, "__"); ok && server != "" {
			return "mcp__" + server + "__read_resource"
		}
	}
	return "the server's read_resource"
}

// decodedSizeForNote is the decoded size of base64 data, estimated when it cannot be decoded.
// payloadSizeForNote is decodedSizeForNote of a payload, or the size of one streamed past.
func payloadSizeForNote(data string, large *corpora.LargeBase64) int64 {
	if large != nil {
		return large.Bytes
	}
	return decodedSizeForNote(data)
}

func decodedSizeForNote(data string) int64 {
	if d, err := decodeLenientBase64(data); err == nil {
		return int64(len(d))
	}
	return estimateDecodedLen(data)
}

// renderStructuredContent renders structuredContent as one line of compact JSON, unless a
// text block already carries it (the dual-emit the MCP specification recommends: a text block
// whose JSON equals it), following docs/pipeline.md §8.3's dedupe rule. _meta is not
// shown: the server treats it as protocol metadata. Error results get neither (docs/pipeline.md §5.3).
//
// structuredContent is text. On the structured path (a result with picture blocks) text is
// not scanned (docs/pipeline.md §4.1), so a picture that structuredContent repeats as base64 stays
// text in the after arm too and costs its text tokens; a result without picture blocks is a
// plain string, and the lift scans it, structuredContent included.
func renderStructuredContent(res *corpora.CallToolResult) string {
	raw := bytes.TrimSpace(res.StructuredContent)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var want any
	if err := json.Unmarshal(raw, &want); err != nil {
		return string(raw)
	}
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type != "text" || strings.TrimSpace(b.Text) == "" {
			continue
		}
		var got any
		if json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return ""
		}
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return string(raw)
	}
	return compact.String()
}

// mcpItemsToParts joins rendered blocks into parts. A newline separates neighbouring blocks, as
// in the legacy text; it is kept in the text part before it (or after it, when an image comes
// first), so the text parts concatenated are the legacy text without the picture notes.
func mcpItemsToParts(items []mcpItem, loc corpora.Location) []corpora.Part {
	hasImage := false
	for _, it := range items {
		if it.image != nil {
			hasImage = true
			break
		}
	}
	if !hasImage {
		texts := make([]string, len(items))
		for i, it := range items {
			texts[i] = it.text
		}
		return []corpora.Part{{Kind: corpora.PartText, Text: strings.Join(texts, "\n"), Loc: loc}}
	}
	parts := make([]corpora.Part, 0, len(items))
	for i, it := range items {
		if it.image != nil {
			parts = append(parts, corpora.Part{Kind: corpora.PartImage, Image: it.image, Loc: it.loc})
			continue
		}
		t := it.text
		if i > 0 && items[i-1].image != nil {
			t = "\n" + t
		}
		if i+1 < len(items) {
			t += "\n"
		}
		parts = append(parts, corpora.Part{Kind: corpora.PartText, Text: t, Loc: it.loc})
	}
	return parts
}

// capMCPText caps the text of a rendering at limit characters (code points), pictures aside:
// over the cap, the first 40% and the last 60% are kept around the marker
// "\n\n... [MCP RESULT TRUNCATED - N chars omitted out of T total] ...\n\n"
// (docs/pipeline.md §5.4). Text parts are cut where the kept ranges end.
func capMCPText(parts []corpora.Part, limit int) {
	total := 0
	for _, p := range parts {
		if p.Kind == corpora.PartText {
			total += utf8.RuneCountInString(p.Text)
		}
	}
	if total <= limit {
		return
	}
	head := int(0.4 * float64(limit))
	tail := limit - head
	marker := fmt.Sprintf("\n\n... [MCP RESULT TRUNCATED - %s chars omitted out of %s total] ...\n\n",
		FormatCount(int64(total-head-tail)), FormatCount(int64(total)))
	tailFrom := total - tail
	pos := 0
	markerPlaced := false
	for i := range parts {
		if parts[i].Kind != corpora.PartText {
			continue
		}
		t := parts[i].Text
		n := utf8.RuneCountInString(t)
		a, b := pos, pos+n // this part's range in the whole text
		pos = b
		var sb strings.Builder
		if a < head {
			sb.WriteString(runeSlice(t, 0, min(n, head-a)))
		}
		if !markerPlaced && b >= head {
			sb.WriteString(marker)
			markerPlaced = true
		}
		if b > tailFrom {
			sb.WriteString(runeSlice(t, max(0, tailFrom-a), n))
		}
		parts[i].Text = sb.String()
	}
}

// runeSlice returns the code points [from, to) of s.
func runeSlice(s string, from, to int) string {
	if from >= to {
		return ""
	}
	start, end := len(s), len(s)
	i := 0
	for off := range s {
		if i == from {
			start = off
		}
		if i == to {
			end = off
			break
		}
		i++
	}
	return s[start:end]
}
