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
	var n PictureCounts
	var sites []PictureSite
	scanPlain := func(text string, base int, loc corpora.Location) {
		for from := 0; ; {
			r, ok := NextRun(text, from, minRun)
			if !ok {
				return
			}
			from = r.End
			n.Base64Runs++
			typ := SniffRun(text, r)
			if typ == "" {
				continue
			}
			data, err := DecodeRun(text, r)
			if err != nil { // not a picture: the lift leaves it as text, and reports it
				sites = append(sites, PictureSite{Where: loc, TextOffset: base + r.Start, Kind: "base64-run", Origin: corpora.OriginTool,
					Type: typ, Problem: "starts like a picture but is not valid base64: left as text: " + err.Error()})
				continue
			}
			site := pictureSite(data, loc, "base64-run", corpora.OriginTool)
			site.TextOffset = base + r.Start
			sites = append(sites, site)
		}
	}
	scanText := func(text string, loc corpora.Location) {
		last := 0
		for _, r := range corpora.LargeRuns(text) { // streamed past while reading: judged from its summary
			scanPlain(text[last:r.Start], last, loc)
			last = r.End
			n.Base64Runs++
			if site, ok := largeRunSite(r, loc); ok {
				sites = append(sites, site)
			}
		}
		scanPlain(text[last:], last, loc)
	}
	mcpBlocks := func(res *corpora.CallToolResult) {
		for i := range res.Content {
			b := &res.Content[i]
			p, ok := DecodeMCPPictureBlock(b)
			if !ok {
				continue
			}
			n.StructuredPictures++
			kind := "mcp-image"
			if b.Type == "resource" {
				kind = "mcp-resource-blob"
			}
			switch {
			case p.Data != nil:
				sites = append(sites, pictureSite(p.Data, p.Loc, kind, corpora.OriginTool))
			case p.SHA256 != "": // streamed past while reading: judged from its header
				site := PictureSite{Where: p.Loc, Kind: kind, Origin: corpora.OriginTool, Type: p.Type, Bytes: int(p.Bytes),
					SHA256: p.SHA256, Problem: p.Reason}
				if site.Problem == "" {
					site.Problem = HeaderProblem(p.Head)
				}
				sites = append(sites, site)
			case p.Problem:
				sites = append(sites, PictureSite{Where: p.Loc, Kind: kind, Origin: corpora.OriginTool,
					Type: p.DeclaredType, Bytes: int(p.Bytes), Problem: p.Reason})
			}
		}
	}
	for _, m := range c.Messages {
		for _, p := range m.Parts {
			switch p.Kind {
			case corpora.PartImage:
				if p.Image.Origin == corpora.OriginUser {
					n.UserAttachments++
				}
				sites = append(sites, imagePartSite(p.Image, p.Loc))
			case corpora.PartReference:
				n.Unavailable++
			case corpora.PartToolResult:
				tr := p.ToolResult
				n.ToolResults++
				if tr.MCP != nil {
					mcpBlocks(tr.MCP)
					if !HasPictureBlocks(tr.MCP) {
						scanText(tr.Text, p.Loc)
					}
					continue
				}
				if tr.IsText {
					scanText(tr.Text, p.Loc)
				}
				for _, tp := range tr.Parts {
					switch tp.Kind {
					case corpora.PartText:
						scanText(tp.Text, tp.Loc)
					case corpora.PartImage:
						n.ToolImageParts++
						sites = append(sites, imagePartSite(tp.Image, tp.Loc))
					case corpora.PartReference:
						n.Unavailable++
					}
				}
			}
		}
	}
	return n, sites
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
