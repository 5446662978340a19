// Package results holds the report model of a replay (cases, arms, pictures, aggregates), the
// tables built from it, and their renderings as text, Markdown, CSV and JSON. Building tables is
// pure; only the render functions write, and only to the io.Writer they are given.
package results

import (
	"strings"

	"github.com/strata-eval/strata-eval/records"
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
	// Thumbnails are small copies of the pictures for the report page, one per digest, in the
	// order the cases meet them, records.ThumbnailBudget bytes at most; ThumbnailsCut says the
	// budget was spent and later pictures have none.
	Thumbnails    []records.Thumbnail `json:"thumbnails,omitempty"`
	ThumbnailsCut bool                `json:"thumbnails_cut,omitempty"`
	// Timings holds everything measured in time, kept apart so that the rest of the report is
	// byte-identical for the same inputs and flags.
	Timings Timings `json:"timings"`
}

// RunConfig records what produced a report.
type RunConfig struct {
	ToolVersion string  `json:"tool_version"`
	Inputs      []Input `json:"inputs"`
	Tokenizer   string  `json:"tokenizer"`
	Template    string  `json:"template"`
	// TemplateDate is the date the template wrote as today's (llama3, mistral, date_string).
	TemplateDate string `json:"template_date,omitempty"`
	Vision       string `json:"vision"`
	// VisionModels are the model ids the recordings name, each with the family that counted
	// its cases' pictures, when each case's recorded model chose it (vision "recorded (else …)").
	VisionModels []VisionModel     `json:"vision_models,omitempty"`
	Context      int               `json:"context"`
	Turns        string            `json:"turns"`
	MCPDelivery  string            `json:"mcp_delivery,omitempty"`
	Arms         []records.Arm     `json:"arms"`
	Flags        map[string]string `json:"flags"`
	Shard        string            `json:"shard,omitempty"`
	// Engine is the engine that counted (offline, http, llama); Model, API, Endpoints and
	// Server describe a live one (URLs with user info redacted, never a key).
	Engine    string   `json:"engine,omitempty"`
	Model     string   `json:"model,omitempty"`
	API       string   `json:"api,omitempty"`
	Endpoints []string `json:"endpoints,omitempty"`
	Server    string   `json:"server,omitempty"` // the server's build / backend / device, as it reports it
	// Answer says whether the model was asked to answer; Tolerance is the divergence tolerance
	// of the verbatim arm (a fraction of the reference count).
	Answer    bool    `json:"answer,omitempty"`
	Tolerance float64 `json:"divergence_tolerance,omitempty"`
	// Warnings are what the run found doubtful in its own configuration or the server's
	// answers (a context larger than the server's, a tokenizer that is not the server's, a
	// server that takes no pictures, a verbatim arm without its reference arm).
	Warnings []string `json:"warnings,omitempty"`
}

// VisionModel is a model id recordings name, with the family that counted its pictures.
type VisionModel struct {
	Model  string `json:"model"`
	Family string `json:"family"`
	// Rule is the family with what it counts and the page it follows (imagerows.Family.Describe).
	Rule string `json:"rule"`
	// Fallback says the id implies no hosted family: the run's fallback family counted.
	Fallback bool `json:"fallback,omitempty"`
}

// Input is one input file (or the embedded corpus) with its size and digest: BLAKE3 is the
// hex BLAKE3-256 of its bytes, what `b3sum` prints. SHA256 is read from reports that carry
// a SHA-256 digest instead, and compared only with another SHA256.
type Input struct {
	Path   string `json:"path"`
	BLAKE3 string `json:"blake3,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Bytes  int64  `json:"bytes"`
}

// SameContent says whether a and b, inputs of the same path, are digests of the same bytes,
// and whether that can be told: both must carry a digest of one algorithm.
func (a Input) SameContent(b Input) (same, known bool) {
	switch {
	case a.BLAKE3 != "" && b.BLAKE3 != "":
		return a.BLAKE3 == b.BLAKE3 && a.Bytes == b.Bytes, true
	case a.SHA256 != "" && b.SHA256 != "":
		return a.SHA256 == b.SHA256 && a.Bytes == b.Bytes, true
	}
	return false, false
}

// Digest is the input's digest as algorithm:hex.
func (a Input) Digest() string {
	if a.BLAKE3 != "" {
		return "blake3:" + a.BLAKE3
	}
	return "sha256:" + a.SHA256
}

// Problem is an input that could not be read, located in its file.
type Problem struct {
	Where   string `json:"where"`
	Message string `json:"message"`
}

// Case is one request replayed through every arm.
type Case struct {
	ID           string `json:"id"`
	File         string `json:"file"`
	Format       string `json:"format"`
	Conversation string `json:"conversation"`
	Request      int    `json:"request"`
	Messages     int    `json:"messages"`
	// Model is the model id the recording names, when it chose the family that counted the
	// case's pictures (vision recorded).
	Model    string `json:"model,omitempty"`
	Question string `json:"question,omitempty"`
	Expected string `json:"expected,omitempty"`
	// Scorer judges the answers against Expected (exact, normalized, contains, …).
	Scorer string    `json:"scorer,omitempty"`
	Arms   []ArmCase `json:"arms"`
	// Error joins every error met on the case ("arm after: …; arm agent: …"); Errors keeps
	// each one with the arm it came from. The arms that did not fail are in Arms all the same.
	Error  string     `json:"error,omitempty"`
	Errors []ArmError `json:"errors,omitempty"`
	// Order is the case's position among every request of the inputs, counted before --shard
	// filters them, so that merged shards can be put back in the order of a single run.
	Order int `json:"order"`
	// Recorded is the usage the provider reported for this request, where the recording holds
	// it (a coding agent's session, an httprr trace); nil otherwise.
	Recorded *RecordedUsage `json:"recorded_usage,omitempty"`
}

// RecordedUsage is the usage a provider reported for a request, as the recording holds it: the
// prompt tokens it counted (cache reads and writes among them) and the tokens it answered with.
type RecordedUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
}

// ArmError is an error one arm met on a case ("" Arm: the case as a whole, e.g. scoring).
type ArmError struct {
	Arm     string `json:"arm,omitempty"`
	Message string `json:"message"`
}

// AddError records an error of arm (or of the whole case when arm is "") and updates Error.
func (c *Case) AddError(arm, message string) {
	c.Errors = append(c.Errors, ArmError{Arm: arm, Message: message})
	var parts []string
	for _, e := range c.Errors {
		if e.Arm == "" {
			parts = append(parts, e.Message)
		} else {
			parts = append(parts, "arm "+e.Arm+": "+e.Message)
		}
	}
	c.Error = strings.Join(parts, "; ")
}

// Count sources.
const (
	SourceTokenizer = "tokenizer" // computed here with the model's tokenizer
	SourceEstimate  = "estimate"  // a published formula
	SourceServer    = "server"    // usage reported by a live server
	SourceMtmd      = "mtmd"      // pictures counted by llama.cpp's multimodal library in-process
)

// ArmCase is the measurement of one case in one arm.
type ArmCase struct {
	Arm string `json:"arm"`
	// ToolChars is the text length (characters) of the tool messages the request ends with, as
	// the server receives them; ToolPictures the pictures they carry as image parts.
	ToolChars    int `json:"tool_chars"`
	ToolPictures int `json:"tool_pictures"`
	// ToolMessages is how many tool messages the request ends with (0: it ends with another
	// role's message, a user's pasted picture for one).
	ToolMessages int `json:"tool_messages"`
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
	SeesPicture bool                  `json:"sees_picture"`
	Pictures    []Picture             `json:"pictures,omitempty"`
	Gate        *records.GateDecision `json:"gate,omitempty"`

	// Computed is the count of the project's tokenizer when the counts above come from a
	// server; CountDiff is the server's prompt tokens minus the computed ones.
	Computed  *ComputedCount `json:"computed,omitempty"`
	CountDiff *int           `json:"count_diff,omitempty"`
	// Mismatch, when CountDiff is not 0, says where the server's prompt and the computed one
	// part, or why that could not be seen.
	Mismatch *CountMismatch `json:"count_mismatch,omitempty"`
	// CountMethod says how the server counted: input_tokens, tokenize or usage.
	CountMethod string `json:"count_method,omitempty"`
	// Timings are llama.cpp server's prompt timings (prompt_n, prompt_ms, cache_n).
	Timings *ServerTimings `json:"server_timings,omitempty"`
	// RefusedBy is "server" when the server refused the prompt (Verdict holds its message).
	RefusedBy string `json:"refused_by,omitempty"`
	// NotSent says why a live engine was not asked: the chat template renders nothing of the
	// request (no user turn), which a server refuses; the arm keeps its computed counts.
	NotSent string `json:"not_sent,omitempty"`
	// Answer is the model's reply; AnswerKey its response-cache key; Cached whether it came
	// from the cache; Correct the scorer's verdict (nil when not scored) and Extracted what
	// the scorer judged.
	Answer    string `json:"answer,omitempty"`
	AnswerKey string `json:"answer_key,omitempty"`
	Cached    bool   `json:"cached,omitempty"`
	Correct   *bool  `json:"correct,omitempty"`
	Extracted string `json:"extracted,omitempty"`
	// Divergence compares a verbatim arm's server count with the reference arm's count.
	Divergence *Divergence `json:"divergence,omitempty"`
}

// ComputedCount is a count made with the project's own tokenizer and image-row rules.
type ComputedCount struct {
	TextTokens   int    `json:"text_tokens"`
	ImageRows    int    `json:"image_rows"`
	PromptTokens int    `json:"prompt_tokens"`
	RowsSource   string `json:"rows_source,omitempty"`
}

// CountMismatch is where the server's rendering of a request (llama.cpp's /apply-template)
// and the computed one part: the first line that differs (1-based) and that line on each side,
// cut to 80 characters. Note says instead why the renderings were not compared, or that they
// are the same (the difference is then the tokenizer's or the image rows').
type CountMismatch struct {
	Line     int    `json:"line,omitempty"`
	Server   string `json:"server,omitempty"`
	Computed string `json:"computed,omitempty"`
	Note     string `json:"note,omitempty"`
}

// ServerTimings are the prompt timings llama.cpp's server reports.
type ServerTimings struct {
	CacheN   int     `json:"cache_n"`
	PromptN  int     `json:"prompt_n"`
	PromptMS float64 `json:"prompt_ms"`
}

// Divergence sets a verbatim arm's server count beside the reference arm's count.
type Divergence struct {
	Reference       string  `json:"reference"` // the reference arm (after)
	ReferenceTokens int     `json:"reference_prompt_tokens"`
	Diff            int     `json:"diff"`     // this arm's prompt tokens minus the reference's
	Relative        float64 `json:"relative"` // Diff / ReferenceTokens
	Diverges        bool    `json:"diverges"` // |Relative| beyond the tolerance
}

// Picture is what happened to one picture in one arm, with the rows it costs.
type Picture struct {
	records.PictureRecord
	// Rows are the picture's embedding rows, Markers the tokens the template puts around
	// them; the prompt grows by both (PromptRows).
	Rows    int    `json:"rows,omitempty"`
	Markers int    `json:"markers,omitempty"`
	Family  string `json:"family,omitempty"`
}

// PromptRows is what the picture adds to the prompt: its embedding rows and its markers, the
// figure the case table's image rows add up.
func (p Picture) PromptRows() int { return p.Rows + p.Markers }

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
	// Scored and Correct count the cases whose answer was scored and found correct;
	// CorrectRate is Correct / Scored.
	Scored      int     `json:"scored,omitempty"`
	Correct     int     `json:"correct,omitempty"`
	CorrectRate float64 `json:"correct_rate,omitempty"`
	// Compared counts the cases with both a server and a computed count; CountDiff sums the
	// differences (server − computed) and AbsCountDiff their absolute values.
	Compared     int   `json:"compared,omitempty"`
	CountDiff    int64 `json:"count_diff,omitempty"`
	AbsCountDiff int64 `json:"abs_count_diff,omitempty"`
	// Divergent counts the cases of a verbatim arm flagged as diverging from the reference.
	Divergent int `json:"divergent,omitempty"`
	// LeftOut counts the cases measured in this arm but left out of the figures above because
	// another arm failed on them: every arm is summarised over the same cases.
	LeftOut int `json:"left_out,omitempty"`
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
