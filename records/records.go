// Package records holds what a replay records and a report reports: an arm's settings, and
// what happened to every picture in every arm (docs/decisions.md §7, "Records"). It holds data
// only; package replay produces these records and package results reports them, so that
// results need not import replay.
package records

import "github.com/strata-eval/strata-eval/corpora"

// ServerSide says what the server does with a request when it arrives.
type ServerSide string

// Server-side behaviours.
const (
	ServerLegacy ServerSide = "legacy" // tool text as text, MCP pictures as a note (docs/pipeline.md §3)
	ServerLift   ServerSide = "lift"   // lift pictures out of tool text and MCP results (docs/pipeline.md §4, §5)
	// ServerVerbatim hands the server the request exactly as the client sent it (each
	// message's recorded bytes), so that a server with its own lifting pipeline applies it.
	ServerVerbatim ServerSide = "verbatim"
)

// ClientSide says what the client does before the request leaves.
type ClientSide string

// Client-side behaviours.
const (
	ClientRecorded ClientSide = "recorded" // the request as recorded
	ClientGate     ClientSide = "gate"     // the agent's gate, preparation and sanitising (docs/pipeline.md §6–§8)
	// ClientSent is the request as the recording says its client sent it, where it holds that
	// beside the tools' results (a coding agent's session: spilled or left-out results), else
	// as recorded.
	ClientSent ClientSide = "sent"
)

// Settings configure an arm. The zero value of a numeric field means its default.
type Settings struct {
	Client ClientSide `yaml:"client" json:"client"`
	Server ServerSide `yaml:"server" json:"server"`

	// MinRun is the shortest base64 run considered (default 1024).
	MinRun int `yaml:"min_run" json:"min_run,omitempty"`
	// MaxPictures caps pictures lifted per message/result (default 8).
	MaxPictures int `yaml:"max_pictures" json:"max_pictures,omitempty"`
	// MaxPictureBytes caps one picture's decoded size (default 32 MiB).
	MaxPictureBytes int64 `yaml:"max_picture_bytes" json:"max_picture_bytes,omitempty"`
	// MaxResultChars caps the text of an MCP result (0: no cap); pictures are not counted.
	MaxResultChars int `yaml:"max_result_chars" json:"max_result_chars,omitempty"`
	// NoVisionEncoder says the replayed model is text-only: lifted pictures are omitted.
	NoVisionEncoder bool `yaml:"no_vision_encoder" json:"no_vision_encoder,omitempty"`

	// Gate settings (client side "gate").
	ImageInputMode  string         `yaml:"image_input_mode" json:"image_input_mode,omitempty"` // auto, native, text (normalised)
	AuxiliaryVision map[string]any `yaml:"auxiliary_vision" json:"auxiliary_vision,omitempty"` // cfg.auxiliary.vision
	Provider        string         `yaml:"provider" json:"provider,omitempty"`
	Model           string         `yaml:"model" json:"model,omitempty"`
	APIMode         string         `yaml:"api_mode" json:"api_mode,omitempty"`
	// SupportsVision is the config override model.supports_vision (any YAML value, coerced).
	SupportsVision any `yaml:"supports_vision" json:"supports_vision,omitempty"`
	// Catalog is the path of a model catalog file (YAML/JSON) with supports_vision per provider/model.
	Catalog string `yaml:"catalog" json:"catalog,omitempty"`
	// EmbedTargetBytes is vision.embed_target_bytes (default 262,144; clamped to 65,536–4,194,304).
	EmbedTargetBytes int `yaml:"embed_target_bytes" json:"embed_target_bytes,omitempty"`
}

// Arm is a named pipeline configuration.
type Arm struct {
	Name     string   `yaml:"name" json:"name"`
	Settings Settings `yaml:",inline" json:"settings"`
}

// Outcome is what happened to one picture in one arm.
type Outcome string

// Picture outcomes.
const (
	OutcomeLifted   Outcome = "lifted"   // taken out of tool text and made an image part (docs/pipeline.md §4)
	OutcomeTaken    Outcome = "taken"    // an MCP picture block made an image part (docs/pipeline.md §5)
	OutcomePassed   Outcome = "passed"   // a real image part the client sent, passed untouched
	OutcomeAttached Outcome = "attached" // attached by the agent gate after preparation (docs/pipeline.md §7)
	OutcomeCapped   Outcome = "capped"   // past a cap: named in the text by the legacy note
	OutcomeOmitted  Outcome = "omitted"  // replaced by "[image omitted: reason]"
	OutcomeNoted    Outcome = "noted"    // legacy note in the before arm (docs/pipeline.md §3)
	OutcomeText     Outcome = "text"     // left as text (the before arm's base64, or the text lane)
)

// PictureRecord is what happened to one picture of a request in one arm.
type PictureRecord struct {
	// Loc is where the picture is in the recording (file, line, JSON Pointer).
	Loc corpora.Location `json:"loc"`
	// MessageIndex is the index of the message in the request.
	MessageIndex int `json:"message_index"`
	// Offset and Length locate the base64 run in the tool text (lifts from text only).
	Offset int    `json:"offset,omitempty"`
	Length int    `json:"length,omitempty"`
	SHA256 string `json:"sha256"`
	// Type is the MIME type the signature says ("" when not a picture).
	Type         string  `json:"type,omitempty"`
	DeclaredType string  `json:"declared_type,omitempty"`
	Bytes        int     `json:"bytes"`
	Width        int     `json:"width,omitempty"`
	Height       int     `json:"height,omitempty"`
	Outcome      Outcome `json:"outcome"`
	Reason       string  `json:"reason,omitempty"`
	// Problem says the picture is bad input: it failed the picture check (too many pixels or
	// frames, a header that lies about its data, bytes that do not decode), or it looks like a
	// picture but its base64 is not valid. The case is measured all the same; the replay
	// reports a located diagnostic (Result.Diagnostics).
	Problem bool `json:"problem,omitempty"`
	// Resized is set when preparation changed the picture.
	Resized *Resize `json:"resized,omitempty"`
	// SeenByModel says whether pixels of this picture reach the model.
	SeenByModel bool `json:"seen_by_model"`
	// Source says who put the picture into the conversation (user, tool, assistant).
	Source corpora.Origin `json:"source"`
	// Tool names the tool whose result holds the picture, where the recording names it.
	Tool string `json:"tool,omitempty"`
	// Data are the picture's bytes while the replay holds them, for its thumbnail; they are
	// never written, and the run drops them once the thumbnail is made (nil when the replay
	// did not decode the picture).
	Data []byte `json:"-"`
}

// Resize records a picture preparation that changed the picture.
type Resize struct {
	FromWidth  int    `json:"from_width"`
	FromHeight int    `json:"from_height"`
	FromBytes  int    `json:"from_bytes"`
	ToWidth    int    `json:"to_width"`
	ToHeight   int    `json:"to_height"`
	ToBytes    int    `json:"to_bytes"`
	ToType     string `json:"to_type"`
	// ToSHA256 is the digest of the bytes the agent sent (its thumbnail's key).
	ToSHA256 string `json:"to_sha256,omitempty"`
	Note     string `json:"note,omitempty"`
	// ToData are the bytes the agent sent, while the replay holds them (as PictureRecord.Data).
	ToData []byte `json:"-"`
}

// Thumbnail is a small copy of a picture for the report page: at most ThumbnailEdge pixels on
// its long edge, re-encoded as JPEG or PNG, keyed by the digest of the picture it shows.
type Thumbnail struct {
	SHA256 string `json:"sha256"`
	Type   string `json:"type"` // image/jpeg or image/png
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Data   []byte `json:"data"`
}

// ThumbnailEdge is the longest side of a thumbnail, in pixels.
const ThumbnailEdge = 160

// ThumbnailBudget is the most thumbnail bytes one report carries (2 MB, about 2.7 MB of base64
// in the page): pictures past it are listed without a thumbnail.
const ThumbnailBudget = 2_000_000

// GateDecision is the lane the gate chose for a case, and why.
type GateDecision struct {
	Lane   string `json:"lane"` // native or text
	Mode   string `json:"mode"` // the resolved image_input_mode
	Reason string `json:"reason"`
}
