package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/strata-eval/strata-eval/corpora"
)

// PictureCounts are what a conversation holds, counted where the pipeline looks for pictures.
type PictureCounts struct {
	ToolResults        int `json:"tool_results"`
	StructuredPictures int `json:"structured_pictures"`
	Base64Runs         int `json:"base64_runs"`
	ToolImageParts     int `json:"tool_image_parts"`
	UserAttachments    int `json:"user_attachments"`
	Unavailable        int `json:"unavailable_references"`
}

// PictureSite is one picture found in a conversation, with its digest and the verdict of the
// picture check.
type PictureSite struct {
	Where corpora.Location `json:"where"`
	// TextOffset is where a base64 run starts in the text of its message, in bytes.
	TextOffset int            `json:"text_offset,omitempty"`
	Kind       string         `json:"kind"` // image-part, mcp-image, mcp-resource-blob, base64-run
	Origin     corpora.Origin `json:"origin"`
	Type       string         `json:"type"` // from the signature
	Bytes      int            `json:"bytes"`
	SHA256     string         `json:"sha256"`
	// Problem says why the picture fails the picture check (docs/pipeline.md §4.6), as the
	// replay reports it: such a picture is a located problem of the input.
	Problem string `json:"problem,omitempty"`
}

// InspectConversation walks every place of a conversation where the pipeline meets pictures
// (image parts, MCP image blocks and image/* blobs, runs of base64 in tool text of at least
// minRun characters) and judges each picture as the replay does: a picture over the byte cap
// by the size its header declares, any other by the picture check.
func InspectConversation(c *corpora.Conversation, minRun int) (PictureCounts, []PictureSite) {
	in := inspection{minRun: minRun}
	for _, m := range c.Messages {
		for _, p := range m.Parts {
			switch p.Kind {
			case corpora.PartImage:
				if p.Image.Origin == corpora.OriginUser {
					in.n.UserAttachments++
				}
				in.sites = append(in.sites, imagePartSite(p.Image, p.Loc))
			case corpora.PartReference:
				in.n.Unavailable++
			case corpora.PartToolResult:
				in.toolResult(p.ToolResult, p.Loc)
			}
		}
	}
	return in.n, in.sites
}

// inspection gathers the counts and sites of one conversation (InspectConversation).
type inspection struct {
	minRun int
	n      PictureCounts
	sites  []PictureSite
}

// toolResult inspects a tool result found at loc: its MCP blocks (and its text when they hold no
// picture), or its text and parts.
func (in *inspection) toolResult(tr *corpora.ToolResult, loc corpora.Location) {
	in.n.ToolResults++
	if tr.MCP != nil {
		in.mcpBlocks(tr.MCP)
		if !HasPictureBlocks(tr.MCP) {
			in.scanText(tr.Text, loc)
		}
		return
	}
	if tr.IsText {
		in.scanText(tr.Text, loc)
	}
	for _, tp := range tr.Parts {
		switch tp.Kind {
		case corpora.PartText:
			in.scanText(tp.Text, tp.Loc)
		case corpora.PartImage:
			in.n.ToolImageParts++
			in.sites = append(in.sites, imagePartSite(tp.Image, tp.Loc))
		case corpora.PartReference:
			in.n.Unavailable++
		}
	}
}

// scanText inspects the base64 runs of a tool's text: those streamed past while reading are
// judged from their summary, the others (scanPlain) from their bytes.
func (in *inspection) scanText(text string, loc corpora.Location) {
	last := 0
	for _, r := range corpora.LargeRuns(text) {
		in.scanPlain(text[last:r.Start], last, loc)
		last = r.End
		in.n.Base64Runs++
		if site, ok := largeRunSite(r, loc); ok {
			in.sites = append(in.sites, site)
		}
	}
	in.scanPlain(text[last:], last, loc)
}

// scanPlain inspects the base64 runs of at least minRun characters in text, which starts at
// byte base of the tool's text: a run that starts like a picture is a site, with a problem
// when it does not decode (the lift leaves it as text, and reports it).
func (in *inspection) scanPlain(text string, base int, loc corpora.Location) {
	for from := 0; ; {
		r, ok := NextRun(text, from, in.minRun)
		if !ok {
			return
		}
		from = r.End
		in.n.Base64Runs++
		typ := SniffRun(text, r)
		if typ == "" {
			continue
		}
		data, err := DecodeRun(text, r)
		if err != nil {
			in.sites = append(in.sites, PictureSite{Where: loc, TextOffset: base + r.Start, Kind: "base64-run", Origin: corpora.OriginTool,
				Type: typ, Problem: "starts like a picture but is not valid base64: left as text: " + err.Error()})
			continue
		}
		site := pictureSite(data, loc, "base64-run", corpora.OriginTool)
		site.TextOffset = base + r.Start
		in.sites = append(in.sites, site)
	}
}

// mcpBlocks inspects the picture blocks of an MCP result: of their bytes, of the header of one
// streamed past while reading, or a problem.
func (in *inspection) mcpBlocks(res *corpora.CallToolResult) {
	for i := range res.Content {
		b := &res.Content[i]
		p, ok := DecodeMCPPictureBlock(b)
		if !ok {
			continue
		}
		in.n.StructuredPictures++
		kind := "mcp-image"
		if b.Type == "resource" {
			kind = "mcp-resource-blob"
		}
		switch {
		case p.Data != nil:
			in.sites = append(in.sites, pictureSite(p.Data, p.Loc, kind, corpora.OriginTool))
		case p.SHA256 != "":
			site := PictureSite{Where: p.Loc, Kind: kind, Origin: corpora.OriginTool, Type: p.Type, Bytes: int(p.Bytes),
				SHA256: p.SHA256, Problem: p.Reason}
			if site.Problem == "" {
				site.Problem = HeaderProblem(p.Head)
			}
			in.sites = append(in.sites, site)
		case p.Problem:
			in.sites = append(in.sites, PictureSite{Where: p.Loc, Kind: kind, Origin: corpora.OriginTool,
				Type: p.DeclaredType, Bytes: int(p.Bytes), Problem: p.Reason})
		}
	}
}

// imagePartSite is the site of an image part: of its bytes, or of what was kept of a payload
// streamed past while reading (judged as the replay judges it).
func imagePartSite(img *corpora.Image, loc corpora.Location) PictureSite {
	if img.Large == nil {
		return pictureSite(img.Data, loc, "image-part", img.Origin)
	}
	var rec PictureRecord
	largeImageRecord(&rec, img)
	return PictureSite{Where: loc, Kind: "image-part", Origin: img.Origin, Type: rec.Type, Bytes: rec.Bytes,
		SHA256: rec.SHA256, Problem: largeImageVerdict(img.Large).Error()}
}

// pictureSite is the site of a picture whose bytes are known.
func pictureSite(data []byte, loc corpora.Location, kind string, origin corpora.Origin) PictureSite {
	sum := sha256.Sum256(data)
	site := PictureSite{Where: loc, Kind: kind, Origin: origin, Type: SniffImage(data), Bytes: len(data),
		SHA256: hex.EncodeToString(sum[:])}
	if len(data) > DefaultMaxPictureBytes { // over the cap a picture is counted, never decoded
		site.Problem = HeaderProblem(data)
	} else if _, err := CheckPicture(data, PictureLimits{}); err != nil {
		site.Problem = err.Error()
	}
	return site
}

// HeaderProblem judges a picture too large to decode from the size its header declares, as the
// agent arm does: "" when it is within the pixel limit.
func HeaderProblem(head []byte) string {
	w, h, err := ImageHeaderSize(head)
	if err != nil || int64(w)*int64(h) <= DefaultMaxPixels {
		return ""
	}
	return fmt.Sprintf("the header claims %s×%s = %s pixels, more than the limit of %s", FormatCount(int64(w)),
		FormatCount(int64(h)), FormatCount(int64(w)*int64(h)), FormatCount(DefaultMaxPixels))
}
