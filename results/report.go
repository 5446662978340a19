// Package results holds the report model of a replay (cases, arms, pictures, aggregates), the
// tables built from it, and their renderings as text, Markdown, CSV and JSON. Building tables is
// pure; only the render functions write, and only to the io.Writer they are given.
package results

import (
	"github.com/strata-eval/strata-eval/replay"
)

// Schema is the version of the results.json layout.
const Schema = "strata-eval/results/v1"

// Report is the result of one replay run.
type Report struct {
	Schema   string       `json:"schema"`
	Config   RunConfig    `json:"config"`
	Summary  []ArmSummary `json:"summary"`
	Cases    []Case       `json:"cases"`
	Problems []Problem    `json:"problems,omitempty"`
	// Timings holds everything measured in time, kept apart so that the rest of the report is
	// byte-identical for the same inputs and flags.
	Timings Timings `json:"timings"`
}

// RunConfig records what produced a report.
type RunConfig struct {
	ToolVersion string            `json:"tool_version"`
	Inputs      []Input           `json:"inputs"`
	Tokenizer   string            `json:"tokenizer"`
	Template    string            `json:"template"`
	Vision      string            `json:"vision"`
	Context     int               `json:"context"`
	Turns       string            `json:"turns"`
	MCPDelivery string            `json:"mcp_delivery,omitempty"`
	Arms        []replay.Arm      `json:"arms"`
	Flags       map[string]string `json:"flags"`
	Shard       string            `json:"shard,omitempty"`
}

// Input is one input file (or the embedded corpus) with its digest.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Problem is an input that could not be read, located in its file.
type Problem struct {
	Where   string `json:"where"`
	Message string `json:"message"`
}

// Case is one request replayed through every arm.
type Case struct {
	ID           string    `json:"id"`
	File         string    `json:"file"`
	Format       string    `json:"format"`
	Conversation string    `json:"conversation"`
	Request      int       `json:"request"`
	Messages     int       `json:"messages"`
	Question     string    `json:"question,omitempty"`
	Expected     string    `json:"expected,omitempty"`
	Arms         []ArmCase `json:"arms"`
	Error        string    `json:"error,omitempty"`
	// Order is the case's position among every request of the inputs, counted before --shard
	// filters them, so that merged shards can be put back in the order of a single run.
	Order int `json:"order"`
}

// Count sources.
const (
	SourceTokenizer = "tokenizer" // computed here with the model's tokenizer
	SourceEstimate  = "estimate"  // a published formula
	SourceServer    = "server"    // usage reported by a live server
)

// ArmCase is the measurement of one case in one arm.
type ArmCase struct {
	Arm string `json:"arm"`
	// ToolChars is the text length (characters) of the tool messages the request ends with, as
	// the server receives them; ToolPictures the pictures they carry as image parts.
	ToolChars    int `json:"tool_chars"`
	ToolPictures int `json:"tool_pictures"`
	TextTokens   int `json:"text_tokens"`
	ImageRows    int `json:"image_rows"`
	PromptTokens int `json:"prompt_tokens"`
	// TextSource and RowsSource say where each count came from.
	TextSource string `json:"text_source"`
	RowsSource string `json:"rows_source,omitempty"`
	Context    int    `json:"context"`
	Fits       bool   `json:"fits"`
	Verdict    string `json:"verdict,omitempty"` // the refusal message when it does not fit
	// SeesPicture says whether pixels of at least one picture reach the model; Pictures lists
	// every picture met.
	SeesPicture bool                 `json:"sees_picture"`
	Pictures    []Picture            `json:"pictures,omitempty"`
	Gate        *replay.GateDecision `json:"gate,omitempty"`
}

// Picture is what happened to one picture in one arm, with the rows it costs.
type Picture struct {
	replay.PictureRecord
	Rows    int    `json:"rows,omitempty"`
	Markers int    `json:"markers,omitempty"`
	Family  string `json:"family,omitempty"`
}

// ArmSummary aggregates one arm over every case.
type ArmSummary struct {
	Arm          string         `json:"arm"`
	Cases        int            `json:"cases"`
	Refused      int            `json:"refused"`
	TextTokens   int64          `json:"text_tokens"`
	ImageRows    int64          `json:"image_rows"`
	PromptTokens int64          `json:"prompt_tokens"`
	SeesPicture  int            `json:"cases_seeing_a_picture"`
	Pictures     map[string]int `json:"pictures"` // by outcome
	// Reduction is 1 - prompt tokens / prompt tokens of the first arm (the baseline).
	Reduction float64 `json:"reduction"`
}

// Timings are the time measurements of a run.
type Timings struct {
	// Scan is per arm: nanoseconds of scanning and lifting each tool message.
	Scan []ScanSummary `json:"scan,omitempty"`
	// Cases holds per case and arm the scan time in nanoseconds.
	Cases []CaseTiming `json:"cases,omitempty"`
	// WallNanos is the duration of the whole run.
	WallNanos int64 `json:"wall_nanos"`
	// InputBytes is the size of every input read.
	InputBytes int64 `json:"input_bytes"`
}

// ScanSummary summarises the scan times of one arm.
type ScanSummary struct {
	Arm      string `json:"arm"`
	Messages int    `json:"messages"`
	Bytes    int64  `json:"bytes"`
	P50      int64  `json:"p50_nanos"`
	P95      int64  `json:"p95_nanos"`
	Max      int64  `json:"max_nanos"`
	Total    int64  `json:"total_nanos"`
}

// CaseTiming is the scan time of one case in one arm.
type CaseTiming struct {
	Case      string  `json:"case"`
	Arm       string  `json:"arm"`
	ScanNanos []int64 `json:"scan_nanos"`
}
