package replay

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
)

// Where the replayed agent would have cached MCP pictures, audio and documents. The replay
// never writes there; the paths only stand in the text the model reads, as the source agent's
// MEDIA: references do. File names derive from the bytes' SHA-256 so replays are reproducible.
const (
	AgentImageCacheDir    = "/home/user/.hermes/cache/images"
	AgentAudioCacheDir    = "/home/user/.hermes/cache/audio"
	AgentDocumentCacheDir = "/home/user/.hermes/cache/documents"
)

// AgentAttachHeader heads the text part that accompanies attached pictures.
const AgentAttachHeader = "The image(s) from this call are attached — inspect them with your native vision."

// agentResourceMaxBytes is the source's cap on audio and resource blobs (50 MiB).
const agentResourceMaxBytes = 50 << 20

// AgentClientSide is the agent arm's client side (docs/pipeline.md §6.5): for every tool message
// that carries an MCP result it renders the result as the source agent does (text blocks with
// TAG characters stripped, pictures cached as MEDIA:<path> lines, reserved `_meta` keys dropped,
// all folded into the handler's JSON string), decides the lane with the gate, and in the native
// lane attaches up to 4 of the first 16 pictures after preparation as image blocks that follow
// the JSON text and a header. In the text lane the pixels are gone and only the MEDIA: lines
// remain. Other messages are returned unchanged; the input is never modified. The server side
// (the lift) runs on the result. cat is the arm's parsed catalog (nil: none); it is only read.
func AgentClientSide(ctx context.Context, msgs []corpora.Message, s Settings, cat *Catalog) ([]corpora.Message, []PictureRecord, *GateDecision, error) {
	decision := Decide(s, cat)
	opts := PrepareOptions{EmbedTargetBytes: s.EmbedTargetBytes}
	out := make([]corpora.Message, len(msgs))
	copy(out, msgs)
	var records []PictureRecord
	for mi := range out {
		m := &out[mi]
		if m.Role != corpora.RoleTool {
			continue
		}
		var parts []corpora.Part
		for pi, p := range m.Parts {
			if p.Kind != corpora.PartToolResult || p.ToolResult == nil || p.ToolResult.MCP == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
			if parts == nil {
				parts = make([]corpora.Part, len(m.Parts))
				copy(parts, m.Parts)
			}
			tr := *p.ToolResult
			res, recs := agentRenderMCP(ctx, tr.MCP, tr.Name, decision, opts, mi)
			tr.MCP = res
			if len(res.Content) > 0 {
				tr.Text = res.Content[0].Text
			}
			parts[pi].ToolResult = &tr
			records = append(records, recs...)
		}
		if parts != nil {
			m.Parts = parts
			m.Raw = nil // the message no longer matches its recording
		}
	}
	return out, records, &decision, nil
}

// agentPicture is an MCP image block the agent cached: a candidate for native attach.
type agentPicture struct {
	block int
	data  []byte
	// headOnly says data is only the first bytes of a picture streamed past while reading.
	headOnly bool
	path     string
	record   PictureRecord
}

// agentRenderMCP renders one MCP result as the source agent's handler does and, in the native
// lane, attaches its prepared pictures.
func agentRenderMCP(ctx context.Context, res *corpora.CallToolResult, toolName string, gate GateDecision, opts PrepareOptions, msgIndex int) (*corpora.CallToolResult, []PictureRecord) {
	lane := gate.Lane
	out := *res
	out.Raw = nil
	out.StructuredContent, out.Meta = nil, nil
	textBlock := func(text string) corpora.Block {
		return corpora.Block{Type: "text", Text: text, Loc: res.Loc}
	}
	if res.IsError {
		out.Content = []corpora.Block{textBlock(agentErrorText(res))}
		return &out, agentErrorRecords(res, msgIndex)
	}
	r := agentRenderBlocks(res, toolName, msgIndex)
	text := TruncateMCPText(strings.Join(r.rendered, "\n"))
	envelope := MCPEnvelope(MCPEnvelopeInput{Text: text, TextBlocks: r.textBlocks, Usable: r.usable,
		Structured: res.StructuredContent, Meta: res.Meta})
	out.Content = []corpora.Block{textBlock(envelope)}
	records := r.records
	if lane != LaneNative || len(r.pictures) == 0 {
		for _, p := range r.pictures {
			p.record.Outcome = OutcomeText
			// the gate's reason goes with every picture, so that each output (tables, Markdown,
			// CSV, HTML) tells why the lane is text, not results.json alone
			p.record.Reason = "text lane (" + gate.Reason + "): the model reads MEDIA:" + p.path
			if lane == LaneNative {
				p.record.Reason = "not attached"
			}
			records = append(records, p.record)
		}
		return &out, records
	}
	notes, images, recs := agentAttach(ctx, res, r.pictures, opts)
	records = append(records, recs...)
	if len(images) > 0 {
		out.Content = append(out.Content, textBlock(AgentAttachHeader+notes))
		out.Content = append(out.Content, images...)
	}
	return &out, records
}

// agentBlocks is an MCP result's blocks as the source agent's handler renders them.
type agentBlocks struct {
	// rendered are the lines of the text, in block order; textBlocks the text blocks alone.
	rendered, textBlocks []string
	// usable says some text block carries more than whitespace.
	usable bool
	// pictures are the cached image blocks: the candidates for native attach.
	pictures []agentPicture
	// records are the pictures that never became candidates.
	records []PictureRecord
}

// agentRenderBlocks renders the blocks of a result that is not an error.
func agentRenderBlocks(res *corpora.CallToolResult, toolName string, msgIndex int) agentBlocks {
	var r agentBlocks
	for i := range res.Content {
		b := &res.Content[i]
		loc := b.Loc
		if loc == (corpora.Location{}) {
			loc = res.Loc.Child("content").Child(i)
		}
		switch {
		case b.Type == "text" || (b.Type == "" && b.Text != ""):
			if b.Text == "" {
				continue
			}
			t := StripTags(b.Text)
			r.rendered = append(r.rendered, t)
			r.textBlocks = append(r.textBlocks, t)
			if pyStrip(t) != "" {
				r.usable = true
			}
		case b.Type == "image":
			ploc := payloadLoc(b, loc)
			line, pic, bad := agentCacheImage(b, ploc, msgIndex)
			if pic != nil {
				pic.block = i
				r.pictures = append(r.pictures, *pic)
			} else if line != "" {
				r.records = append(r.records, PictureRecord{Loc: ploc, MessageIndex: msgIndex, DeclaredType: b.MimeType,
					Outcome: OutcomeOmitted, Reason: line, Problem: bad, Source: corpora.OriginTool})
			}
			if line != "" {
				r.rendered = append(r.rendered, line)
			}
		case b.Type == "audio":
			if line := agentCacheAudio(b); line != "" {
				r.rendered = append(r.rendered, line)
			}
		case b.Type == "resource_link" || (b.Type != "resource" && b.Type != "text" && b.URI != "" && b.Resource == nil):
			r.rendered = append(r.rendered, agentResourceLink(b, toolName))
		case b.Type == "resource" && b.Resource != nil:
			line, rec := agentEmbeddedResource(b, payloadLoc(b, loc), msgIndex)
			if line != "" {
				r.rendered = append(r.rendered, line)
				if b.Resource.Text != nil && pyStrip(line) != "" {
					r.usable = true
				}
			}
			if rec != nil {
				r.records = append(r.records, *rec)
			}
		case b.Type == "resource":
		default:
			r.rendered = append(r.rendered, agentDroppedNotice(b))
		}
	}
	return r
}

// agentAttach prepares the candidates of the native lane (PrepareAttachments) and returns the
// scale notes for the attach header, the image blocks attached and a record of every
// candidate. A candidate that fails the picture check is a problem of the input; one that is
// merely past the slots or over the budget is not.
func agentAttach(ctx context.Context, res *corpora.CallToolResult, pictures []agentPicture, opts PrepareOptions) (string, []corpora.Block, []PictureRecord) {
	data := make([][]byte, len(pictures))
	for i, p := range pictures {
		data[i] = p.data
	}
	outcomes := PrepareAttachments(ctx, data, opts)
	var notes strings.Builder
	var images []corpora.Block
	var records []PictureRecord
	for i, p := range pictures {
		o := outcomes[i]
		rec := p.record
		if p.headOnly && (o.Attached || !failedPictureCheck(o.Err) || errors.Is(o.Err, ErrUndecodable)) {
			o = AttachOutcome{Err: fmt.Errorf("%w: the picture is larger than %s bytes and only its header was kept (read past as it was read)",
				ErrNotAttachedSlot, FormatCount(corpora.LargeBase64Bytes))}
		}
		if !o.Attached {
			rec.Outcome = OutcomeText
			rec.Reason = "not attached, left as MEDIA:" + p.path
			if o.Err != nil {
				rec.Reason += ": " + o.Err.Error()
				rec.Problem = failedPictureCheck(o.Err)
			}
			records = append(records, rec)
			continue
		}
		pp := o.Prepared
		rec.Outcome, rec.SeenByModel = OutcomeAttached, true
		rec.Width, rec.Height = pp.Width, pp.Height
		if !pp.Kept || pp.MimeType != pp.SourceType {
			rec.Resized = &Resize{FromWidth: pp.OrigWidth, FromHeight: pp.OrigHeight, FromBytes: len(p.data),
				ToWidth: pp.Width, ToHeight: pp.Height, ToBytes: len(pp.Data), ToType: pp.MimeType, Note: pp.ScaleNote,
				ToSHA256: sha256Hex(pp.Data), ToData: pp.Data}
		}
		if pp.ScaleNote != "" {
			fmt.Fprintf(&notes, "\n- MEDIA:%s: %s", p.path, pp.ScaleNote)
		}
		src := res.Content[p.block]
		images = append(images, corpora.Block{Type: "image", Data: base64.StdEncoding.EncodeToString(pp.Data),
			MimeType: pp.MimeType, Loc: src.Loc})
		records = append(records, rec)
	}
	return notes.String(), images, records
}

// failedPictureCheck says whether a preparation error is the picture check's verdict on bad
// input (too many pixels or frames, bytes that do not decode), not a limit of the agent.
func failedPictureCheck(err error) bool {
	return errors.Is(err, ErrTooManyPixels) || errors.Is(err, ErrTooManyFrames) || errors.Is(err, ErrUndecodable)
}

// agentCacheImage is the source's _cache_mcp_image_block: it returns the line the text keeps
// (MEDIA:<path>, a could-not-be-decoded or could-not-be-cached note, or "" for a block that
// renders nothing) and, for a cached picture, the candidate. bad says the block is bad input:
// its base64 does not decode, or its bytes are no picture at all.
func agentCacheImage(b *corpora.Block, loc corpora.Location, msgIndex int) (string, *agentPicture, bool) {
	mime := baseMIMEType(b.MimeType)
	if b.Large != nil && strings.HasPrefix(mime, "image/") {
		return agentCacheLargeImage(b, loc, msgIndex)
	}
	if b.Data == "" || !strings.HasPrefix(mime, "image/") {
		return "", nil, false
	}
	data, err := pyB64Decode(b.Data)
	if err != nil {
		return fmt.Sprintf("[MCP image block could not be decoded: %s]", b.MimeType), nil, true
	}
	sniffed := sniffPictureType(data)
	if sniffed == "" || sniffed == "image/avif" || sniffed == "image/heic" {
		return fmt.Sprintf("[MCP image block could not be cached (%s, %d bytes)]", b.MimeType, len(data)), nil, sniffed == ""
	}
	sum := sha256.Sum256(data)
	p := path.Join(AgentImageCacheDir, "img_"+hex.EncodeToString(sum[:6])+imageExtension(mime))
	rec := PictureRecord{Loc: loc, MessageIndex: msgIndex, SHA256: hex.EncodeToString(sum[:]), Type: sniffed,
		DeclaredType: b.MimeType, Bytes: len(data), Source: corpora.OriginTool, Data: data}
	if hdr, err := readPictureHeader(data, sniffed); err == nil {
		rec.Width, rec.Height = hdr.width, hdr.height
	}
	return "MEDIA:" + p, &agentPicture{data: data, path: p, record: rec}, false
}

// agentCacheLargeImage is agentCacheImage for a picture streamed past while reading (over
// corpora.LargeBase64Bytes): its path is named from its digest, and the candidate carries only
// its first bytes, so that preparation judges its header and never attaches it.
func agentCacheLargeImage(b *corpora.Block, loc corpora.Location, msgIndex int) (string, *agentPicture, bool) {
	l := b.Large
	if l.Err != "" {
		return fmt.Sprintf("[MCP image block could not be decoded: %s]", b.MimeType), nil, true
	}
	sniffed := sniffPictureType(l.Head)
	if sniffed == "" || sniffed == "image/avif" || sniffed == "image/heic" {
		return fmt.Sprintf("[MCP image block could not be cached (%s, %d bytes)]", b.MimeType, l.Bytes), nil, sniffed == ""
	}
	p := path.Join(AgentImageCacheDir, "img_"+l.SHA256[:12]+imageExtension(baseMIMEType(b.MimeType)))
	rec := PictureRecord{Loc: loc, MessageIndex: msgIndex, SHA256: l.SHA256, Type: sniffed,
		DeclaredType: b.MimeType, Bytes: int(l.Bytes), Source: corpora.OriginTool}
	if hdr, err := readPictureHeader(l.Head, sniffed); err == nil {
		rec.Width, rec.Height = hdr.width, hdr.height
	}
	return "MEDIA:" + p, &agentPicture{data: l.Head, headOnly: true, path: p, record: rec}, false
}

// agentCacheAudio renders an audio block as the source does: MEDIA:<path>, or a note.
func agentCacheAudio(b *corpora.Block) string {
	mime := baseMIMEType(b.MimeType)
	if b.Large != nil && strings.HasPrefix(mime, "audio/") {
		return fmt.Sprintf("[MCP audio resource too large to cache: ~%d bytes]", b.Large.Chars*3/4)
	}
	if b.Data == "" || !strings.HasPrefix(mime, "audio/") {
		return ""
	}
	if len(b.Data) > agentResourceMaxBytes*4/3+4 {
		return fmt.Sprintf("[MCP audio resource too large to cache: ~%d bytes]", len(b.Data)*3/4)
	}
	data, err := pyB64Decode(b.Data)
	if err != nil {
		return fmt.Sprintf("[MCP audio block could not be decoded: %s]", b.MimeType)
	}
	if len(data) > agentResourceMaxBytes {
		return fmt.Sprintf("[MCP audio resource too large to cache: ~%d bytes]", len(data))
	}
	sum := sha256.Sum256(data)
	ext := ".ogg"
	switch mime {
	case "audio/wav", "audio/x-wav", "audio/wave":
		ext = ".wav"
	case "audio/mpeg":
		ext = ".mp3"
	case "audio/mp4":
		ext = ".m4a"
	case "audio/flac", "audio/x-flac":
		ext = ".flac"
	}
	return "MEDIA:" + path.Join(AgentAudioCacheDir, "audio_"+hex.EncodeToString(sum[:6])+ext)
}

// agentResourceLink renders a resource_link block; it is never fetched.
func agentResourceLink(b *corpora.Block, toolName string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "[MCP resource link: uri=%s", b.URI)
	if b.Name != "" {
		fmt.Fprintf(&s, ", name=%s", b.Name)
	}
	if b.MimeType != "" {
		fmt.Fprintf(&s, ", mimeType=%s", b.MimeType)
	}
	fmt.Fprintf(&s, " — fetch it with mcp__%s__read_resource]", agentServerName(toolName))
	return s.String()
}

// agentServerName takes the server out of a tool name mcp__<server>__<tool>.
func agentServerName(toolName string) string {
	if rest, ok := strings.CutPrefix(toolName, "mcp__"); ok {
		if server, _, ok := strings.Cut(rest, "__"); ok && server != "" {
			return server
		}
	}
	if rest, ok := strings.CutPrefix(toolName, "mcp_"); ok {
		if server, _, ok := strings.Cut(rest, "_"); ok && server != "" {
			return server
		}
	}
	return "server"
}

// agentEmbeddedResource renders a resource block: its text (TAG-stripped), or its blob saved as
// a document. The source never attaches a resource blob, even one declared image/*; such a
// blob is recorded as a picture that stays text.
func agentEmbeddedResource(b *corpora.Block, loc corpora.Location, msgIndex int) (string, *PictureRecord) {
	r := b.Resource
	if r.Text != nil {
		if *r.Text == "" {
			return "", nil
		}
		return StripTags(*r.Text), nil
	}
	if r.LargeBlob != nil {
		return fmt.Sprintf("[MCP embedded resource too large to cache: ~%d bytes]", r.LargeBlob.Chars*3/4), nil
	}
	if r.Blob == nil || *r.Blob == "" {
		return "", nil
	}
	if len(*r.Blob) > agentResourceMaxBytes*4/3+4 {
		return fmt.Sprintf("[MCP embedded resource too large to cache: ~%d bytes]", len(*r.Blob)*3/4), nil
	}
	data, err := pyB64Decode(*r.Blob)
	if err != nil {
		return fmt.Sprintf("[MCP embedded resource could not be decoded: %v]", err), nil
	}
	mimeLabel := r.MimeType
	if mimeLabel == "" {
		mimeLabel = "unknown type"
	}
	p := path.Join(AgentDocumentCacheDir, resourceFileName(r.URI, r.MimeType))
	line := fmt.Sprintf("[MCP resource saved to %s (%s, %d bytes) — read it with read_file or terminal tools]", p, mimeLabel, len(data))
	if !strings.HasPrefix(baseMIMEType(r.MimeType), "image/") {
		return line, nil
	}
	sum := sha256.Sum256(data)
	rec := &PictureRecord{Loc: loc, MessageIndex: msgIndex, SHA256: hex.EncodeToString(sum[:]),
		Type: sniffPictureType(data), DeclaredType: r.MimeType, Bytes: len(data), Outcome: OutcomeText,
		Reason: "the agent saves an embedded resource blob as a document and never attaches it", Source: corpora.OriginTool, Data: data}
	return line, rec
}

// resourceFileName is the source's file name for a saved resource: the URI's last path
// segment without control characters, at most 150 characters with its extension kept, or
// resource<ext> when empty.
func resourceFileName(uri, mime string) string {
	name := uri
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	name = name[strings.LastIndexByte(name, '/')+1:]
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	ext := path.Ext(name)
	if utf8.RuneCountInString(name) > 150 {
		stem := []rune(strings.TrimSuffix(name, ext))
		keep := max(0, 150-utf8.RuneCountInString(ext))
		name = string(stem[:min(keep, len(stem))]) + ext
	}
	if name == "" {
		name = "resource" + imageExtension(baseMIMEType(mime))
		if !strings.HasPrefix(baseMIMEType(mime), "image/") {
			name = "resource.bin"
		}
	}
	return name
}

// agentDroppedNotice names a block type the agent does not render.
func agentDroppedNotice(b *corpora.Block) string {
	var s strings.Builder
	fmt.Fprintf(&s, "[MCP content dropped: unsupported block (type=%s", b.Type)
	if b.MimeType != "" {
		fmt.Fprintf(&s, ", mimeType=%s", b.MimeType)
	}
	if b.URI != "" {
		fmt.Fprintf(&s, ", uri=%s", b.URI)
	}
	if b.Size != nil {
		fmt.Fprintf(&s, ", size=%d", *b.Size)
	}
	if b.Name != "" {
		fmt.Fprintf(&s, ", name=%s", b.Name)
	}
	s.WriteString(")]")
	return s.String()
}

// agentErrorText renders an isError result: {"error": text}, text being the blocks' text joined
// without a separator and capped, or "MCP tool returned an error". Error text is not
// TAG-stripped, as in the source.
func agentErrorText(res *corpora.CallToolResult) string {
	var b strings.Builder
	for _, blk := range res.Content {
		switch {
		case blk.Text != "":
			b.WriteString(blk.Text)
		case blk.Resource != nil && blk.Resource.Text != nil:
			b.WriteString(*blk.Resource.Text)
		}
	}
	text := b.String()
	if utf8.RuneCountInString(text) > MCPHardResultCapChars {
		text = string([]rune(text)[:MCPHardResultCapChars])
	}
	if text == "" {
		text = "MCP tool returned an error"
	}
	o := &OrderedObject{}
	o.Set("error", text)
	return PyJSON(o)
}

// agentErrorRecords records the picture blocks of an error result: they never reach the model.
func agentErrorRecords(res *corpora.CallToolResult, msgIndex int) []PictureRecord {
	var recs []PictureRecord
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type != "image" {
			continue
		}
		loc := b.Loc
		if loc == (corpora.Location{}) {
			loc = res.Loc.Child("content").Child(i)
		}
		recs = append(recs, PictureRecord{Loc: loc, MessageIndex: msgIndex, DeclaredType: b.MimeType,
			Outcome: OutcomeOmitted, Reason: "an error result carries no pictures", Source: corpora.OriginTool})
	}
	return recs
}

// baseMIMEType is the part of a MIME type before ';', stripped and lower-cased.
func baseMIMEType(m string) string {
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = m[:i]
	}
	return strings.ToLower(pyStrip(m))
}

// imageExtension is the cache file extension the source derives from the declared MIME type.
func imageExtension(mime string) string {
	switch mime {
	case "image/jpeg", "image/jpg":
		return ".jpg"
	case "image/png":
		return ".png"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/bmp", "image/x-ms-bmp":
		return ".bmp"
	case "image/svg+xml":
		return ".svg"
	case "image/tiff":
		return ".tiff"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return ".ico"
	case "image/avif":
		return ".avif"
	case "image/heic":
		return ".heic"
	}
	return ".png"
}

// pyB64Decode is Python's non-validating base64.b64decode (see decodeLenientBase64).
func pyB64Decode(s string) ([]byte, error) { return decodeLenientBase64(s) }
