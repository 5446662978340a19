package engine

// llama.cpp's server (llama-server), whatever protocol it is spoken to with: GET /props says
// its context, model file and build; POST /apply-template renders its chat template.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// probeLlamaServer asks for /props: ok when the server is llama.cpp's (its /props gives
// n_ctx); an error that says nobody answers (ErrServerGone) is returned, any other failure to
// read it is the report's ContextErr.
func probeLlamaServer(ctx context.Context, h *HTTP) (r ServerReport, ok bool, err error) {
	info, ok, err := h.props(ctx)
	if errors.Is(err, ErrServerGone) {
		return r, false, err
	}
	r = ServerReport{ContextErr: err, ContextSource: "/props", ModelPath: info.ModelPath, CompareTokenizer: true,
		Identity: info.Identity, NoPictures: info.NoPictures}
	if ok {
		r.Server, r.Context = info.Build, info.Context
	}
	return r, ok, nil
}

// ApplyTemplate asks a llama.cpp server for the prompt its chat template makes of req
// (POST /apply-template, the body of a count). ok is false when the server has no such
// endpoint (not llama.cpp) or the protocol is not one llama.cpp serves.
func (h *HTTP) ApplyTemplate(ctx context.Context, req Request) (prompt string, ok bool, err error) {
	if !h.proto.ServesTemplates() {
		return "", false, nil
	}
	body, err := h.body(req, false)
	if err != nil {
		return "", false, err
	}
	ep := h.pick()
	var answer *string
	check := func(data []byte) error {
		var v struct {
			Prompt *string `json:"prompt"`
		}
		if json.Unmarshal(data, &v) != nil || v.Prompt == nil {
			return &unsupportedError{fmt.Sprintf("%s/apply-template: no prompt in the answer", ep.display)}
		}
		answer = v.Prompt
		return nil
	}
	// The prompt holds the request's text: the answer may be as large as the request.
	limit := int64(len(body)) + maxPropsBody
	if _, err := h.post(ctx, ep, call{method: http.MethodPost, path: "/apply-template", body: body, count: true, limit: limit, check: check, noCache: true}); err != nil {
		var unsupported *unsupportedError
		if errors.As(notFoundAsUnsupported(err), &unsupported) {
			return "", false, nil
		}
		return "", false, err
	}
	return *answer, true, nil
}

// ServerInfo is what llama.cpp's GET /props says about the server.
type ServerInfo struct {
	Context   int    `json:"n_ctx,omitempty"`
	ModelPath string `json:"model_path,omitempty"`
	Build     string `json:"build_info,omitempty"`
	// Identity is what changes a count: the model file, the build, the modalities, the chat
	// template and n_ctx; NoPictures says modalities.vision is false.
	Identity   []string `json:"-"`
	NoPictures bool     `json:"-"`
}

// props asks the first endpoint for llama.cpp's /props, retried like any request: false (and
// no error) when the server has none (404, 405, 501, an answer that is not JSON or has no
// n_ctx: a server of another kind); an error when it could not be read.
func (h *HTTP) props(ctx context.Context) (ServerInfo, bool, error) {
	var info ServerInfo
	check := func(data []byte) error {
		var v struct {
			Settings struct {
				NCtx json.RawMessage `json:"n_ctx"`
			} `json:"default_generation_settings"`
			ModelPath  string          `json:"model_path"`
			Build      string          `json:"build_info"`
			Template   string          `json:"chat_template"`
			Modalities json.RawMessage `json:"modalities"`
		}
		if json.Unmarshal(data, &v) != nil {
			return &unsupportedError{"/props is not JSON"} // a server of another kind
		}
		var vision struct {
			Vision *bool `json:"vision"`
		}
		_ = json.Unmarshal(v.Modalities, &vision)
		info = ServerInfo{ModelPath: v.ModelPath, Build: v.Build, NoPictures: vision.Vision != nil && !*vision.Vision,
			Identity: []string{"model_path=" + v.ModelPath, "build_info=" + v.Build, "modalities=" + identityJSON(v.Modalities),
				"chat_template=" + v.Template, "n_ctx=" + string(v.Settings.NCtx)}}
		if v.Settings.NCtx == nil {
			return nil
		}
		var err error
		info.Context, err = checkCount(v.Settings.NCtx, "n_ctx", maxServerCount)
		return err
	}
	ok, err := h.probeGET(ctx, "/props", check)
	if err != nil || !ok {
		return ServerInfo{}, false, err // !ok: not llama.cpp, no /props
	}
	return info, info.Context > 0, nil
}

// modelsIdentity is what GET /v1/models says of the models served (llama.cpp's meta, vLLM's
// model card: max_model_len, root), their creation times left out; "" when the server has
// no such list.
func (h *HTTP) modelsIdentity(ctx context.Context) string {
	var list string
	check := func(data []byte) error {
		var v struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(data, &v) != nil || v.Data == nil {
			return &unsupportedError{"/v1/models: no data in the answer"}
		}
		list = identityJSON(v.Data, "created")
		return nil
	}
	if ok, err := h.probeGET(ctx, "/v1/models", check); !ok || err != nil {
		return ""
	}
	return "models=" + list
}
