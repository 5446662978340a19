package engine

import (
	"fmt"
	"path/filepath"
)

// Model is the file name of the GGUF model the engine runs.
func (l *Llama) Model() string { return filepath.Base(l.Info().Model) }

// Describe says what runs the model: llama.cpp's release, backend and device, the layers
// offloaded, the model's context, and why pictures do not reach it without a multimodal library.
func (l *Llama) Describe() Description {
	info := l.Info()
	d := Description{Context: info.Context,
		Server: fmt.Sprintf("llama.cpp %s in process, backend %s, device %s, %d/%d layers offloaded", info.Release, info.Backend, info.Device, info.GPULayers, info.Layers)}
	if !info.Multimodal {
		d.Server += "; pictures: " + info.MultimodalNote
		d.Blind = "the llama engine has no multimodal library: " + info.MultimodalNote
	}
	return d
}
