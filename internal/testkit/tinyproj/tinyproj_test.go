package tinyproj

import (
	"fmt"
	"path/filepath"
	"testing"

	gguf "github.com/gpustack/gguf-parser-go"
)

// TestConfigsWriteAndParse writes every configuration and reads it back: the projector type,
// the sizes and every listed tensor, each a width×width matrix or a width vector.
func TestConfigsWriteAndParse(t *testing.T) {
	dir := t.TempDir()
	names := map[string]bool{}
	for _, c := range Configs() {
		if names[c.Name] {
			t.Errorf("configuration %s listed twice", c.Name)
		}
		names[c.Name] = true
		path := filepath.Join(dir, c.Name+".gguf")
		if err := Write(path, c, Width, 7); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.ParseGGUFFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		kv, ok := f.Header.MetadataKV.Get("clip.projector_type")
		if !ok || kv.ValueString() != c.Projector {
			t.Errorf("%s: clip.projector_type = %v, want %s", c.Name, kv.Value, c.Projector)
		}
		if kv, ok := f.Header.MetadataKV.Get("clip.vision.patch_size"); !ok || kv.ValueUint32() != uint32(c.PatchSize) {
			t.Errorf("%s: patch size %v, want %d", c.Name, kv.Value, c.PatchSize)
		}
		if len(f.TensorInfos) != len(c.Tensors) {
			t.Errorf("%s: %d tensors, want %d", c.Name, len(f.TensorInfos), len(c.Tensors))
		}
		for _, name := range c.Tensors {
			ti, ok := f.TensorInfos.Get(name)
			if !ok {
				t.Errorf("%s: no tensor %s", c.Name, name)
				continue
			}
			if ti.Dimensions[0] != Width {
				t.Errorf("%s: tensor %s has dims %v, want %d first", c.Name, name, ti.Dimensions, Width)
			}
		}
	}
}

// TestBuildRejects: a configuration without a projector type, sizes or width, or listing a
// tensor twice, is an error.
func TestBuildRejects(t *testing.T) {
	for _, c := range []Config{
		{Name: "no type", ImageSize: 1, PatchSize: 1},
		{Name: "no patch", Projector: "mlp", ImageSize: 1},
		{Name: "twice", Projector: "mlp", ImageSize: 1, PatchSize: 1, Tensors: []string{"mm.0.weight", "mm.0.weight"}},
	} {
		if _, _, err := Build(c, Width, 1); err == nil {
			t.Errorf("%s: no error", c.Name)
		}
	}
	if _, _, err := Build(Configs()[0], 0, 1); err == nil {
		t.Error("width 0: no error")
	}
}

// TestTower: Layers adds the complete vision tower to an mlp projector (block count, the
// patch and position embeddings sized by the picture's patches, every block's tensors, norm
// scales of 1), and is refused for a type whose graph it does not fit.
func TestTower(t *testing.T) {
	c, ok := ByName("llava-1.5")
	if !ok {
		t.Fatal("no llava-1.5")
	}
	c.Layers = 2
	path := filepath.Join(t.TempDir(), "tower.gguf")
	if err := Write(path, c, Width, 1); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.ParseGGUFFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if kv, ok := f.Header.MetadataKV.Get("clip.vision.block_count"); !ok || kv.ValueUint32() != 2 {
		t.Errorf("block count %v, want 2", kv.Value)
	}
	tower, err := Tower(c, Width)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(c.Tensors) + len(tower); len(f.TensorInfos) != want {
		t.Errorf("%d tensors, want %d", len(f.TensorInfos), want)
	}
	for name, dims := range map[string][]uint64{
		"v.patch_embd.weight": {14, 14, 3, Width}, "v.position_embd.weight": {Width, 24*24 + 1},
		"v.blk.1.ffn_down.weight": {Width, Width}, "v.blk.0.ln2.bias": {Width}, "v.class_embd": {Width},
	} {
		ti, ok := f.TensorInfos.Get(name)
		if !ok || fmt.Sprint(ti.Dimensions) != fmt.Sprint(dims) {
			t.Errorf("%s: %v (present %v), want dims %v", name, ti.Dimensions, ok, dims)
		}
	}
	if _, _, err := Build(Config{Name: "g", Projector: "gemma3", ImageSize: 896, PatchSize: 14, Layers: 1}, Width, 1); err == nil {
		t.Error("a tower for gemma3: no error")
	}
	if _, ok := ByName("no such configuration"); ok {
		t.Error("ByName found an unknown name")
	}
}
