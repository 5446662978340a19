package corpora

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
)

// claudeResizedNote is the text Claude Code puts after a picture it resized before sending: the
// original's path (under the session's tool-results/ folder) and its dimensions.
var claudeResizedNote = regexp.MustCompile(`^\[Image: source: (.+), original (\d+)x(\d+), displayed at (\d+)x(\d+)\.`)

// claudeOriginalMax is the largest original picture read back from tool-results/.
const claudeOriginalMax = 64 << 20

// withOriginals gives tool_result content (an array of blocks) with each picture Claude Code
// resized before sending put back as the tool returned it: the original, read from the
// session's tool-results/ folder, in place of the resized picture, and Claude Code's note after
// it dropped. Content without such a picture, or whose original is not beside the session, is
// returned as it is.
func (s *claudeSession) withOriginals(content json.RawMessage) json.RawMessage {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(content, &blocks) != nil {
		return content
	}
	var out []map[string]json.RawMessage
	changed := false
	for _, b := range blocks {
		var typ, text string
		_ = json.Unmarshal(b["type"], &typ)
		_ = json.Unmarshal(b["text"], &text)
		m := claudeResizedNote.FindStringSubmatch(text)
		if typ != "text" || m == nil || len(out) == 0 || !isImageBlock(out[len(out)-1]) {
			out = append(out, b)
			continue
		}
		original, err := s.original(m[1])
		if err != nil {
			s.noOriginal(err.Error())
			out = append(out, b)
			continue
		}
		source, _ := json.Marshal(map[string]string{"type": "base64", "media_type": http.DetectContentType(original),
			"data": base64.StdEncoding.EncodeToString(original)})
		out[len(out)-1]["source"] = source
		changed = true
	}
	if !changed {
		return content
	}
	b, _ := json.Marshal(out)
	return b
}

// isImageBlock says whether a content block is an image.
func isImageBlock(b map[string]json.RawMessage) bool {
	var typ string
	_ = json.Unmarshal(b["type"], &typ)
	return typ == "image"
}

// original reads the picture a resized picture's note names. The note gives the path where
// Claude Code wrote it, <session>/tool-results/<file>; it is read from the session's folder
// beside the file being read (a sub-agent's file sits in <session>/subagents/), wherever the
// session has been moved since.
func (s *claudeSession) original(noted string) ([]byte, error) {
	file, dir := path.Base(noted), path.Dir(noted)
	session := path.Base(path.Dir(dir))
	if path.Base(dir) != "tool-results" || !plainName(file) || !plainName(session) {
		return nil, fmt.Errorf("the original %s is not under a session's tool-results folder", noted)
	}
	folder := filepath.Join(filepath.Dir(s.name), session)
	if s.agent != "" && filepath.Base(filepath.Dir(s.name)) == "subagents" {
		folder = filepath.Dir(filepath.Dir(s.name))
	}
	at := filepath.Join(folder, "tool-results", file)
	info, err := os.Stat(at)
	if err != nil || info.Size() > claudeOriginalMax {
		return nil, fmt.Errorf("no original at %s", at)
	}
	b, err := os.ReadFile(at)
	if err != nil {
		return nil, fmt.Errorf("the original does not read: %w", err)
	}
	return b, nil
}

// plainName says whether a path element names a file or folder in its folder (not ., .. or /).
func plainName(s string) bool {
	return s != "." && s != ".." && s != "/" && s != ""
}

// noOriginal counts a picture Claude Code resized whose original the before arm cannot hold,
// and keeps why for the first.
func (s *claudeSession) noOriginal(why string) {
	if s.missing++; s.missing == 1 {
		s.firstMissing = why
	}
}

// noteResizedRead counts a picture file Claude Code's Read resized before sending: the session
// records the picture sent and the original's dimensions (toolUseResult.file.dimensions), not
// the original.
func (s *claudeSession) noteResizedRead(raw json.RawMessage) {
	var r struct {
		Type string `json:"type"`
		File struct {
			Dimensions *struct {
				OriginalWidth  int `json:"originalWidth"`
				OriginalHeight int `json:"originalHeight"`
				DisplayWidth   int `json:"displayWidth"`
				DisplayHeight  int `json:"displayHeight"`
			} `json:"dimensions"`
		} `json:"file"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Type != "image" || r.File.Dimensions == nil {
		return
	}
	d := r.File.Dimensions
	if d.OriginalWidth != d.DisplayWidth || d.OriginalHeight != d.DisplayHeight {
		s.noOriginal(fmt.Sprintf("a picture file read at %dx%d and sent at %dx%d, of which the session keeps the dimensions only",
			d.OriginalWidth, d.OriginalHeight, d.DisplayWidth, d.DisplayHeight))
	}
}
