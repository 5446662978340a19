package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/prompt"
)

// engineKind is a value of --engine: its name, how it is built from the options (the offline
// engine given: it decides the computed counts every engine is compared with), and what the
// replay does differently for it. Only this registry compares engine names.
type engineKind struct {
	name  string
	build func(o *ReplayOptions, off *engine.Offline) (engine.Engine, error)
	// modelIsServed is set when --model names the model a server is asked for (not a file),
	// so that gate arms' catalogs look that model up (run.ModelForCatalogs).
	modelIsServed bool
}

// engineKinds are the values of --engine, the default first.
var engineKinds = []engineKind{
	{name: "offline", build: func(_ *ReplayOptions, off *engine.Offline) (engine.Engine, error) { return off, nil }},
	{name: "http", build: func(o *ReplayOptions, _ *engine.Offline) (engine.Engine, error) { return newHTTPEngine(o) }, modelIsServed: true},
	{name: "llama", build: func(o *ReplayOptions, _ *engine.Offline) (engine.Engine, error) { return newLlamaEngine(o) }},
}

// engineNames lists the values of --engine.
func engineNames() []string {
	var out []string
	for _, k := range engineKinds {
		out = append(out, k.name)
	}
	return out
}

// liveOptions are the flags of the live engines (answers, servers, the response cache, the
// expectations sidecar).
type liveOptions struct {
	Model     string
	API       string
	APIKeyEnv string
	Answer    bool
	MaxTokens int
	Timeout   time.Duration
	// CountTimeout, IdleTimeout and ServerWait bound a count, a silent body and the wait for
	// a server away.
	CountTimeout time.Duration
	IdleTimeout  time.Duration
	ServerWait   time.Duration
	Retries      int
	Concurrency  int
	CountMethod  string
	NoCache      bool
	CacheDir     string
	CacheMaxMB   int64
	Expect       string
	Tolerance    float64
	Reference    string
	// LlamaLib and GPULayers configure the in-process llama.cpp engine.
	LlamaLib  string
	GPULayers string
}

// addLiveFlags registers the live-engine flags on a command's flag set.
func addLiveFlags(f *pflag.FlagSet, o *liveOptions) {
	f.StringVar(&o.Model, "model", "", "the http engine: model name it sends (default \"default\"); the llama engine: the GGUF model file")
	f.StringVar(&o.API, "api", engine.ProtocolNames()[0], "protocol of the http engine: "+engine.ProtocolHelp())
	f.StringVar(&o.APIKeyEnv, "api-key-env", engine.DefaultAPIKeyEnv, "environment variable holding the server's API key (never printed)")
	f.BoolVar(&o.Answer, "answer", false, "ask the model to answer each request, and score answers that have an expectation")
	f.IntVar(&o.MaxTokens, "max-tokens", 256, "longest answer, in tokens")
	f.DurationVar(&o.Timeout, "timeout", 5*time.Minute, "time limit of one answer generation by a server")
	f.DurationVar(&o.CountTimeout, "count-timeout", 10*time.Second, "time limit of one count (input_tokens, /tokenize) or /props request, head and body")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 10*time.Second, "a response body that stays silent this long is given up")
	f.DurationVar(&o.ServerWait, "server-wait", 0, "how long a server that refuses connections, answers 503 or 429 is waited for before the run stops (default 10s once it answered; a server that has not answered yet is waited for only this long)")
	f.IntVar(&o.Retries, "retries", 3, "retries of a request answered 429 or 5xx (or lost), with exponential backoff")
	f.IntVar(&o.Concurrency, "concurrency", 4, "requests in flight to the servers, over all endpoints")
	f.StringVar(&o.CountMethod, "count-method", "auto", "how the http engine counts: auto, input_tokens, tokenize or usage")
	f.BoolVar(&o.NoCache, "no-cache", false, "send every request, neither reading nor writing the response cache")
	f.StringVar(&o.CacheDir, "cache-dir", "", "response cache folder (default: strata-eval/responses in the user's cache folder)")
	f.Int64Var(&o.CacheMaxMB, "cache-max-mb", engine.DefaultCacheMax>>20, "response cache size cap in MB: past it the oldest entries are evicted (strata-eval cache shows it)")
	f.StringVar(&o.Expect, "expect", "", "expectations sidecar (JSON or YAML): case or conversation id → {question, scorer, answer}")
	f.Float64Var(&o.Tolerance, "divergence-tolerance", 0.01, "a verbatim arm diverges when its count differs from the reference arm's by more than this fraction")
	f.StringVar(&o.Reference, "reference-arm", "after", "arm a verbatim arm's server count is compared with")
	f.StringVar(&o.LlamaLib, "llama-lib", "", "folder of the llama.cpp libraries for --engine llama (default $"+engine.LlamaLibEnv+", then what make llama-libs fetched)")
	f.StringVar(&o.GPULayers, "gpu-layers", "all", "layers the llama engine puts on the GPU: all, none or a count")
}

// engineKindOf returns the kind --engine names ("": the default). Its build returns the
// engine; the offline engine it is given is always built: it decides the vision family and the
// computed counts every other engine is compared with.
func engineKindOf(name string) (engineKind, error) {
	if name == "" {
		return engineKinds[0], nil
	}
	for _, k := range engineKinds {
		if k.name == name {
			return k, nil
		}
	}
	return engineKind{}, usageErrorf("--engine %q: unknown (known: %s)", name, strings.Join(engineNames(), ", "))
}

// closeEngine frees what an engine holds once the run is over (the llama engine's model and
// context), when it holds anything.
func closeEngine(e engine.Engine) {
	if c, ok := e.(io.Closer); ok {
		_ = c.Close() // the run's results are written: nothing is lost if freeing fails
	}
}

// newLlamaEngine loads llama.cpp in process with the GGUF model of --model. The libraries
// are loaded only here, so every other command runs without them.
func newLlamaEngine(o *ReplayOptions) (*engine.Llama, error) {
	if o.Live.Model == "" {
		return nil, usageErrorf("--engine llama needs --model FILE.gguf")
	}
	layers, err := engine.ParseGPULayers(o.Live.GPULayers)
	if err != nil {
		return nil, usageErrorf("--gpu-layers: %v", err)
	}
	date, err := prompt.ParseTemplateDate(o.TemplateDate)
	if err != nil {
		return nil, usageErrorf("--template-date: %v", err)
	}
	l, err := engine.NewLlama(engine.LlamaConfig{Model: o.Live.Model, LibDir: o.Live.LlamaLib, GPULayers: layers,
		MaxTokens: o.Live.MaxTokens, ContextSize: o.Context, MMProj: o.MMProj, Template: o.Template, Vision: o.Vision,
		Rows: imagerows.RowOptions{MinTokens: o.MinTokens, MaxTokens: o.MaxTokens}, TemplateDate: date})
	if err != nil {
		return nil, fmt.Errorf("--engine llama: %w", err)
	}
	return l, nil
}

// newHTTPEngine builds the http engine of --endpoint and the live flags.
func newHTTPEngine(o *ReplayOptions) (*engine.HTTP, error) {
	if len(o.Endpoints) == 0 {
		return nil, usageErrorf("--engine http needs at least one --endpoint URL")
	}
	l := &o.Live
	cfg := engine.HTTPConfig{Endpoints: o.Endpoints, API: l.API, Model: l.Model, APIKeyEnv: l.APIKeyEnv,
		Timeout: l.Timeout, CountTimeout: l.CountTimeout, IdleTimeout: l.IdleTimeout, ServerWait: l.ServerWait, StartWait: l.ServerWait, Notes: o.IO.ErrOut,
		MaxRetries: l.Retries, Concurrency: l.Concurrency, MaxTokens: l.MaxTokens, Count: l.CountMethod,
		NumCtx: o.Context} // sent where the protocol carries it (Ollama's num_ctx)
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = -1 // --retries 0: none
	}
	date, err := prompt.ParseTemplateDate(o.TemplateDate)
	if err != nil {
		return nil, usageErrorf("--template-date: %v", err)
	}
	// the client settings that change a count key the cache with the server
	cfg.KeySettings = []string{"template=" + o.Template, "template-date=" + date.Format(time.DateOnly),
		fmt.Sprintf("image-min-tokens=%d", o.MinTokens), fmt.Sprintf("image-max-tokens=%d", o.MaxTokens)}
	if !l.NoCache {
		dir := l.CacheDir
		if dir == "" {
			var err error
			if dir, err = engine.DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		if l.CacheMaxMB <= 0 {
			return nil, usageErrorf("--cache-max-mb %d: want a size above 0", l.CacheMaxMB)
		}
		cache, err := engine.OpenCacheMax(dir, l.CacheMaxMB<<20)
		if err != nil {
			return nil, err
		}
		cfg.Cache = cache
	}
	h, err := engine.NewHTTP(cfg)
	if err != nil {
		return nil, usageError(err)
	}
	return h, nil
}
