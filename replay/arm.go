// Package replay holds the before and after pipelines: the lift of pictures out of tool text,
// the picture parts of MCP results, the gate, picture preparation and sanitising. Applying an
// Arm to a corpora.Request gives the request as the server would hand it to the model, plus a
// record of everything that happened to every picture.
package replay

import (
	"fmt"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/records"
)

// Defaults of the arm settings (docs/pipeline.md §2.3).
const (
	DefaultMinRun           = 1024     // shortest base64 run that can be a picture
	DefaultMaxPictures      = 8        // pictures lifted per tool message or MCP result
	DefaultMaxPictureBytes  = 32 << 20 // decoded bytes of one lifted picture
	DefaultEmbedTargetBytes = 262144   // data-URL length an attached picture is fitted to
	MinEmbedTargetBytes     = 65536
	MaxEmbedTargetBytes     = 4194304
	DefaultMaxAttach        = 4    // pictures attached per result by the agent gate
	DefaultAttachScan       = 16   // of the first N pictures
	DefaultMaxLongEdge      = 1568 // px
	DefaultMaxFrames        = 100
	DefaultMaxPixels        = 100_000_000
)

// The arm's settings and the picture records are defined in package records, so that package
// results can report them without importing replay; these names keep replay's vocabulary.
type (
	// ServerSide says what the server does with a request when it arrives.
	ServerSide = records.ServerSide
	// ClientSide says what the client does before the request leaves.
	ClientSide = records.ClientSide
	// Settings configure an arm. The zero value of a numeric field means its default.
	Settings = records.Settings
	// Outcome is what happened to one picture in one arm.
	Outcome = records.Outcome
	// PictureRecord is what happened to one picture of a request in one arm.
	PictureRecord = records.PictureRecord
	// Resize records a picture preparation that changed the picture.
	Resize = records.Resize
	// GateDecision is the lane the gate chose for a case, and why.
	GateDecision = records.GateDecision
)

// Server-side and client-side behaviours (see records.ServerLegacy and the others).
const (
	ServerLegacy   = records.ServerLegacy
	ServerLift     = records.ServerLift
	ServerVerbatim = records.ServerVerbatim
	ClientRecorded = records.ClientRecorded
	ClientGate     = records.ClientGate
	ClientSent     = records.ClientSent
)

// Picture outcomes (see records.OutcomeLifted and the others).
const (
	OutcomeLifted   = records.OutcomeLifted
	OutcomeTaken    = records.OutcomeTaken
	OutcomePassed   = records.OutcomePassed
	OutcomeAttached = records.OutcomeAttached
	OutcomeCapped   = records.OutcomeCapped
	OutcomeOmitted  = records.OutcomeOmitted
	OutcomeNoted    = records.OutcomeNoted
	OutcomeText     = records.OutcomeText
)

// Arm is a named pipeline configuration: a records.Arm with the methods that apply it and, for
// an arm that names a catalog, the catalog parsed when the arm was built.
type Arm struct {
	Name     string   `yaml:"name" json:"name"`
	Settings Settings `yaml:",inline" json:"settings"`
	// catalog is Settings.Catalog parsed once (nil: no catalog, or not loaded yet); every
	// request of the arm reads it, read-only, from any worker.
	catalog *Catalog
}

// ArmRecords returns the arms as a report records them.
func ArmRecords(arms []Arm) []records.Arm {
	out := make([]records.Arm, len(arms))
	for i, a := range arms {
		out[i] = records.Arm{Name: a.Name, Settings: a.Settings}
	}
	return out
}

// LoadCatalogs reads and parses the catalog of every arm that names one and has not loaded it
// yet (arms read from an arms file load theirs when they are built), so that each arm's
// requests share one parsed catalog. The error names the arm and the file.
func LoadCatalogs(arms []Arm) error {
	for i := range arms {
		if _, err := arms[i].loadCatalog(); err != nil {
			return fmt.Errorf("arm %s: %w", arms[i].Name, err)
		}
	}
	return nil
}

// loadCatalog returns the arm's parsed catalog, reading Settings.Catalog when the arm holds
// none of that path (nil when the arm names no catalog).
func (a *Arm) loadCatalog() (*Catalog, error) {
	path := a.Settings.Catalog
	if path == "" {
		return nil, nil
	}
	if a.catalog != nil && a.catalog.Path == path {
		return a.catalog, nil
	}
	cat, err := LoadCatalog(path)
	if err != nil {
		return nil, err
	}
	a.catalog = cat
	return cat, nil
}

// BuiltinArms returns the arms every replay knows: before, after and agent (docs/pipeline.md §2.2).
func BuiltinArms() []Arm {
	return []Arm{
		{Name: "before", Settings: Settings{Client: ClientRecorded, Server: ServerLegacy}},
		{Name: "after", Settings: Settings{Client: ClientRecorded, Server: ServerLift}},
		{Name: "agent", Settings: Settings{Client: ClientGate, Server: ServerLift, ImageInputMode: "auto"}},
	}
}

// RecordedArm is the arm of what the client really sent (a coding agent's session: text it
// spilled to a file, pictures it left out or re-encoded), as the provider received it. It is
// not among the arms a replay runs unless named (--arm recorded): for a recording that holds
// no other version it is the before arm.
func RecordedArm() Arm {
	return Arm{Name: "recorded", Settings: Settings{Client: ClientSent, Server: ServerLegacy}}
}

// Result is a request after an arm: the messages as the server hands them to the model (parts
// of kind text, image, tool_call and opaque only: tool results are flattened into the tool
// message's parts), and the record of every picture.
type Result struct {
	Arm      string            `json:"arm"`
	Messages []corpora.Message `json:"-"`
	Pictures []PictureRecord   `json:"pictures"`
	Gate     *GateDecision     `json:"gate,omitempty"`
	// ScanNanos is the time spent scanning tool messages, per tool message index.
	Scans []ScanTiming `json:"scans,omitempty"`
}

// Diagnostic is a located problem with the input met while applying an arm: a picture that
// was not attached because it failed the picture check, or a run that looks like a picture
// but is not valid base64. The case is measured all the same.
type Diagnostic struct {
	// Loc is where the picture is in the recording (file, line, JSON Pointer).
	Loc corpora.Location `json:"loc"`
	// Message names the picture and says what is wrong with it.
	Message string `json:"message"`
}

func (d Diagnostic) String() string { return d.Loc.String() + ": " + d.Message }

// Diagnostics returns a located diagnostic for every picture record marked as a problem, in
// the order of the records.
func (r *Result) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, p := range r.Pictures {
		if d, ok := PictureDiagnostic(r.Arm, p); ok {
			out = append(out, d)
		}
	}
	return out
}

// PictureDiagnostic returns the located diagnostic of a picture record of an arm marked as a
// problem (ok false when it is none).
func PictureDiagnostic(arm string, p PictureRecord) (Diagnostic, bool) {
	if !p.Problem {
		return Diagnostic{}, false
	}
	what := "picture"
	if p.Type != "" {
		what = p.Type + " picture"
	}
	where := fmt.Sprintf("message %d", p.MessageIndex)
	if p.Length > 0 {
		where += fmt.Sprintf(", base64 run at byte %d of the tool text (%d characters)", p.Offset, p.Length)
	}
	return Diagnostic{Loc: p.Loc, Message: fmt.Sprintf("arm %s: %s (%s): %s: %s", arm, what, where, p.Outcome, p.Reason)}, true
}

// ScanTiming is the time to scan and lift one tool message.
type ScanTiming struct {
	MessageIndex int   `json:"message_index"`
	Bytes        int   `json:"bytes"`
	Nanos        int64 `json:"nanos"`
}
