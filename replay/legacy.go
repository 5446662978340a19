package replay

import (
	"github.com/strata-eval/strata-eval/corpora"
)

// LegacyToolText is the before arm's handling of a tool's text (docs/pipeline.md §3): the text
// reaches the model as it is, base64 included. The pictures found in it are listed with the
// outcome "text" (the model never sees them); the text itself is returned unchanged.
func LegacyToolText(text string, s Settings) (string, []TextPicture) {
	return text, FindTextPictures(text, s.MinRun)
}

// legacyToolParts renders a tool's text in the before arm and records its pictures.
func (w *armWalk) legacyToolParts(text string, msgIndex int, loc corpora.Location) []corpora.Part {
	// LegacyToolText, with the runs the other arms find in the same text found once
	for _, p := range w.memo.findTextPictures(text, w.settings.MinRun) {
		w.record(textPictureRecord(text, p, msgIndex, loc, w.memo))
	}
	return []corpora.Part{{Kind: corpora.PartText, Text: text, Loc: loc}}
}

// legacyMCPParts renders a structured MCP result in the before arm: one text, every picture
// block named by the legacy note.
func (w *armWalk) legacyMCPParts(res *corpora.CallToolResult, opt MCPRenderOptions, msgIndex int) []corpora.Part {
	r := RenderMCPLegacy(res, w.settings, opt)
	w.recordMCP(r, msgIndex)
	return r.Parts
}
