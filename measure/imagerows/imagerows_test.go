package imagerows

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rowVector is one line of testdata/rows/vectors.tsv (docs/pipeline.md §10).
type rowVector struct {
	line                    int
	family                  string
	width, height           int
	total, rows, markers    int
	confidence, params, raw string
}

// loadRowVectors parses the machine-readable table of image-row vectors (docs/pipeline.md §10).
func loadRowVectors(t *testing.T) []rowVector {
	t.Helper()
	const path = "testdata/rows/vectors.tsv"
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []rowVector
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 8 {
			t.Fatalf("%s:%d: %d columns, want 8", path, line, len(cols))
		}
		nums := make([]int, 5)
		for i := range nums {
			n, err := strconv.Atoi(cols[1+i])
			if err != nil {
				t.Fatalf("%s:%d: column %d: %v", path, line, 2+i, err)
			}
			nums[i] = n
		}
		out = append(out, rowVector{
			line: line, family: cols[0], width: nums[0], height: nums[1],
			total: nums[2], rows: nums[3], markers: nums[4],
			confidence: cols[6], params: cols[7], raw: text,
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// expandFamilies turns "llamacpp/qwen2vl,qwen25vl,glm4v" into the three registry names.
func expandFamilies(spec string) []string {
	prefix := ""
	if i := strings.LastIndex(spec, "/"); i >= 0 {
		prefix, spec = spec[:i+1], spec[i+1:]
	}
	var out []string
	for _, part := range strings.Split(spec, ",") {
		out = append(out, prefix+part)
	}
	return out
}

// knownRowDeviations lists vectors (family name and size) that this package does
// not reproduce, with the reason. Every entry is reported by the test log; an
// entry that starts matching fails the test so the list stays honest.
var knownRowDeviations = map[string]string{}

func TestImageRowsSpecVectors(t *testing.T) {
	vectors := loadRowVectors(t)
	if len(vectors) < 190 {
		t.Fatalf("only %d vectors parsed, the spec table has 195", len(vectors))
	}
	checked := 0
	for _, v := range vectors {
		for _, name := range expandFamilies(v.family) {
			key := name + " " + strconv.Itoa(v.width) + "x" + strconv.Itoa(v.height)
			fam, err := FamilyByName(name)
			if err != nil {
				t.Errorf("line %d: %v", v.line, err)
				continue
			}
			got, err := ImageRows(fam, v.width, v.height, RowOptions{})
			ok := false
			switch {
			case v.total == -1:
				ok = err != nil && errors.Is(err, errAspectRatio)
			case err != nil:
				ok = false
			default:
				ok = got.Total == v.total && got.Rows == v.rows && got.Markers == v.markers
			}
			if reason, known := knownRowDeviations[key]; known {
				if ok {
					t.Errorf("line %d: %s now matches; remove it from knownRowDeviations", v.line, key)
				} else {
					t.Logf("known deviation %s: %s", key, reason)
				}
				checked++
				continue
			}
			if !ok {
				t.Errorf("line %d: %s: got total %d (rows %d + markers %d, resized %v, err %v), want %d (%d + %d)\n\t%s",
					v.line, key, got.Total, got.Rows, got.Markers, got.Resized, err, v.total, v.rows, v.markers, v.raw)
			}
			wantSource := SourceTokenizer
			if strings.HasPrefix(name, "openai/") || strings.HasPrefix(name, "anthropic/") {
				wantSource = SourceEstimate
			}
			if err == nil && got.Source != wantSource {
				t.Errorf("line %d: %s: source %q, want %q", v.line, key, got.Source, wantSource)
			}
			checked++
		}
	}
	if checked < 220 {
		t.Errorf("only %d family×size checks ran", checked)
	}
}

// TestImageRowsWorkedTables covers the worked tables the vectors do not list (hosted
// estimates, other LFM2 builds, MiniCPM-V 4.5) (docs/pipeline.md §10.2).
func TestImageRowsWorkedTables(t *testing.T) {
	sizes := [][2]int{{640, 360}, {160, 120}, {4320, 2432}, {1920, 1080}, {1, 1}, {28, 28}, {10000, 10}}
	tables := []struct {
		family string
		totals [7]int
	}{
		// OpenAI patch rule: fitted to 2048 px, patches within the budget, × multiplier rounded up.
		{"openai/gpt-4.1-mini", [7]int{389, 33, 3733, 3305, 2, 2, 104}},
		{"openai/gpt-5-nano", [7]int{360, 30, 2262, 2262, 2, 2, 96}},
		{"openai/o4-mini", [7]int{413, 35, 2594, 2594, 2, 2, 111}},
		{"openai/computer-use-preview-high", [7]int{323, 194, 839, 839, 194, 194, 581}},
		{"openai/gpt-5-low", [7]int{70, 70, 70, 70, 70, 70, 70}},
		// Anthropic
		{"anthropic/opus-4.7-class", [7]int{299, 30, 4784, 2691, 1, 1, 92}},
		{"anthropic/claude-legacy", [7]int{299, 30, 1560, 1560, 1, 1, 56}},
		{"anthropic/legacy-area750", [7]int{308, 26, 1592, 1590, 1, 2, 5}},
		// Gemini
		{"gemini/2.0-tiles", [7]int{258, 258, 6192, 1548, 258, 258, 3612}},
		{"gemini/1.5-vertex", [7]int{1548, 258, 6192, 1548, 258, 258, 10320}},
		{"gemini/3-high", [7]int{1120, 1120, 1120, 1120, 1120, 1120, 1120}},
		// The other llama.cpp behaviours of LFM2.
		{"llamacpp-b7980..b9585/lfm2-vl", [7]int{222, 72, 2311, 2311, 66, 66, 3078}},
		{"llamacpp-pre-b7980/lfm2-vl", [7]int{222, 72, 254, 254, 66, 66, 507}},
		// MiniCPM-V 4.0/4.5 and MiniCPM-o share 2.6's rule.
		{"llamacpp/minicpm-v-4.5", [7]int{198, 66, 595, 595, 66, 66, 198}},
		{"llamacpp/qwen2.5vl", [7]int{301, 26, 4082, 2693, 11, 11, 359}},
	}
	for _, tc := range tables {
		fam, err := FamilyByName(tc.family)
		if err != nil {
			t.Fatal(err)
		}
		for i, sz := range sizes {
			got, err := ImageRows(fam, sz[0], sz[1], RowOptions{})
			if err != nil {
				t.Errorf("%s %dx%d: %v", tc.family, sz[0], sz[1], err)
				continue
			}
			if got.Total != tc.totals[i] {
				t.Errorf("%s %dx%d: total %d (rows %d, markers %d, resized %v), want %d",
					tc.family, sz[0], sz[1], got.Total, got.Rows, got.Markers, got.Resized, tc.totals[i])
			}
		}
	}
}

// TestImageRowsDetails checks resized sizes, grids and the spec's worked arithmetic.
func TestImageRowsDetails(t *testing.T) {
	cases := []struct {
		family        string
		width, height int
		opts          RowOptions
		want          Rows
	}{
		// Worked example: Qwen2.5-VL 4320×2432 → 2380×1344, 85·48 rows.
		{"llamacpp/qwen2.5vl", 4320, 2432, RowOptions{}, Rows{Rows: 4080, Markers: 2, Total: 4082, Resized: PixelSize{2380, 1344}, Source: SourceTokenizer}},
		{"hf/qwen2.5vl", 4320, 2432, RowOptions{}, Rows{Rows: 13398, Markers: 2, Total: 13400, Resized: PixelSize{4312, 2436}, Source: SourceTokenizer}},
		{"llamacpp/qwen2.5vl", 1, 1, RowOptions{}, Rows{Rows: 9, Markers: 2, Total: 11, Resized: PixelSize{84, 84}, Source: SourceTokenizer}},
		{"hf/qwen2.5vl", 1, 1, RowOptions{}, Rows{Rows: 4, Markers: 2, Total: 6, Resized: PixelSize{56, 56}, Source: SourceTokenizer}},
		{"hf/qwen3vl", 160, 120, RowOptions{}, Rows{Rows: 70, Markers: 2, Total: 72, Resized: PixelSize{320, 224}, Source: SourceTokenizer}},
		{"llamacpp/qwen3vl", 10000, 10, RowOptions{}, Rows{Rows: 313, Markers: 2, Total: 315, Resized: PixelSize{10016, 32}, Source: SourceTokenizer}},
		{"llamacpp/pixtral-12b", 640, 360, RowOptions{}, Rows{Rows: 942, Markers: 1, Total: 943, Resized: PixelSize{640, 368}, Source: SourceTokenizer}},
		// Worked example: MiniCPM-V 2.6 640×360: 2 columns × 1 row.
		{"llamacpp/minicpm-v-2.6", 640, 360, RowOptions{}, Rows{Rows: 192, Markers: 6, Total: 198, Resized: PixelSize{840, 476}, Overview: PixelSize{602, 336}, Tiles: 2, Grid: PixelSize{2, 1}, Source: SourceTokenizer}},
		// Worked example: LFM2 1920×1080: 4×2 tiles, thumbnail 672×384.
		{"llamacpp/lfm2-vl", 1920, 1080, RowOptions{}, Rows{Rows: 2300, Markers: 11, Total: 2311, Resized: PixelSize{2048, 1024}, Overview: PixelSize{672, 384}, Tiles: 8, Grid: PixelSize{4, 2}, Source: SourceTokenizer}},
		// P1 (docs/pipeline.md §10.1): LFM2 thumbnail of 10000×10 is 16160×32 = 505 rows.
		{"llamacpp-2026-08/lfm2-vl", 10000, 10, RowOptions{}, Rows{Rows: 3065, Markers: 13, Total: 3078, Resized: PixelSize{5120, 512}, Overview: PixelSize{16160, 32}, Tiles: 10, Grid: PixelSize{10, 1}, Source: SourceTokenizer}},
		// The bound release tiles by the aligned area: 9984×16 is below 2·256·32², one picture, no thumbnail marker.
		{"llamacpp/lfm2-vl", 10000, 10, RowOptions{}, Rows{Rows: 505, Markers: 2, Total: 507, Resized: PixelSize{16160, 32}, Source: SourceTokenizer}},
		// P4 (docs/pipeline.md §10.1): InternVL 4320×2432 uses 12 tiles + overview.
		{"llamacpp/internvl", 4320, 2432, RowOptions{}, Rows{Rows: 3328, Markers: 2, Total: 3330, Resized: PixelSize{1792, 1344}, Overview: PixelSize{448, 448}, Tiles: 12, Grid: PixelSize{4, 3}, Source: SourceTokenizer}},
		{"llamacpp/idefics3-smolvlm2", 1, 1, RowOptions{}, Rows{Rows: 1088, Markers: 39, Total: 1127, Resized: PixelSize{2048, 2048}, Overview: PixelSize{512, 512}, Tiles: 16, Grid: PixelSize{4, 4}, Source: SourceTokenizer}},
		{"llamacpp/llava-1.6", 10000, 10, RowOptions{}, Rows{Rows: 2304, Markers: 0, Total: 2304, Resized: PixelSize{1008, 336}, Overview: PixelSize{336, 336}, Tiles: 3, Grid: PixelSize{3, 1}, Source: SourceTokenizer}},
		// OpenAI's published examples.
		{"openai/gpt-4o-high", 1024, 1024, RowOptions{}, Rows{Rows: 765, Total: 765, Resized: PixelSize{768, 768}, Tiles: 4, Grid: PixelSize{2, 2}, Source: SourceEstimate}},
		{"openai/gpt-4o-high", 2048, 4096, RowOptions{}, Rows{Rows: 1105, Total: 1105, Resized: PixelSize{768, 1536}, Tiles: 6, Grid: PixelSize{2, 3}, Source: SourceEstimate}},
		{"openai/patch32-before-multiplier", 1024, 1024, RowOptions{}, Rows{Rows: 1024, Total: 1024, Resized: PixelSize{1024, 1024}, Source: SourceEstimate}},
		{"openai/patch32-before-multiplier", 1800, 2400, RowOptions{}, Rows{Rows: 1452, Total: 1452, Resized: PixelSize{1056, 1408}, Source: SourceEstimate}},
		{"anthropic/opus-4.7-class", 4320, 2432, RowOptions{}, Rows{Rows: 4784, Total: 4784, Resized: PixelSize{2576, 1450}, Source: SourceEstimate}},
		// CLI limits: --image-min-tokens 1024 lifts a 1×1 picture to 32×32 rows.
		{"llamacpp/qwen2.5vl", 1, 1, RowOptions{MinTokens: 1024}, Rows{Rows: 1024, Markers: 2, Total: 1026, Resized: PixelSize{896, 896}, Source: SourceTokenizer}},
		// --image-max-tokens 16384 removes llama.cpp's cap (same box as HF here).
		{"llamacpp/qwen2.5vl", 4320, 2432, RowOptions{MaxTokens: 16384}, Rows{Rows: 13398, Markers: 2, Total: 13400, Resized: PixelSize{4312, 2436}, Source: SourceTokenizer}},
		// llama.cpp against Hugging Face (b): 1000×10 with HF's limits: llama.cpp keeps the clamped 1008×28, HF grows 0-high to 560×28.
		{"llamacpp/qwen2.5vl", 1000, 10, RowOptions{MinTokens: 4, MaxTokens: 16384}, Rows{Rows: 36, Markers: 2, Total: 38, Resized: PixelSize{1008, 28}, Source: SourceTokenizer}},
		{"hf/qwen2.5vl", 1000, 10, RowOptions{}, Rows{Rows: 20, Markers: 2, Total: 22, Resized: PixelSize{560, 28}, Source: SourceTokenizer}},
		// llama.cpp against Hugging Face (a): ties at .5 round away from zero in llama.cpp, to even in HF.
		{"llamacpp/qwen3vl", 10000, 100, RowOptions{}, Rows{Rows: 939, Markers: 2, Total: 941, Resized: PixelSize{10016, 96}, Source: SourceTokenizer}},
		{"hf/qwen3vl", 10000, 100, RowOptions{}, Rows{Rows: 936, Markers: 2, Total: 938, Resized: PixelSize{9984, 96}, Source: SourceTokenizer}},
		// Gemma 4 limits are overridable; Gemma 3 is fixed whatever the limits.
		{"llamacpp/gemma4", 1, 1, RowOptions{MinTokens: 252}, Rows{Rows: 256, Markers: 2, Total: 258, Resized: PixelSize{768, 768}, Source: SourceTokenizer}},
		{"llamacpp/gemma3", 1, 1, RowOptions{MinTokens: 1000, MaxTokens: 10}, Rows{Rows: 256, Markers: 2, Total: 258, Resized: PixelSize{896, 896}, Source: SourceTokenizer}},
	}
	for _, tc := range cases {
		fam, err := FamilyByName(tc.family)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ImageRows(fam, tc.width, tc.height, tc.opts)
		if err != nil {
			t.Errorf("%s %dx%d %+v: %v", tc.family, tc.width, tc.height, tc.opts, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %dx%d %+v:\n got %+v\nwant %+v", tc.family, tc.width, tc.height, tc.opts, got, tc.want)
		}
	}
}

func TestImageRowsErrors(t *testing.T) {
	qwen, err := FamilyByName("llamacpp/qwen2.5vl")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name          string
		fam           Family
		width, height int
		opts          RowOptions
		want          string
	}{
		{"zero width", qwen, 0, 10, RowOptions{}, "invalid picture size 0×10"},
		{"negative height", qwen, 10, -1, RowOptions{}, "invalid picture size"},
		{"too large", qwen, MaxImageSide + 1, 10, RowOptions{}, "exceeds"},
		{"negative limit", qwen, 10, 10, RowOptions{MinTokens: -1}, "token limits"},
		{"huge limit", qwen, 10, 10, RowOptions{MaxTokens: MaxTokenLimit + 1}, "token limits"},
		{"unknown rule", Family{Name: "x", Rule: "nope"}, 10, 10, RowOptions{}, `unknown rule "nope"`},
		{"unsupported projector", Family{Name: "x", Rule: RuleLlamaCpp, Projector: "ultravox", PatchSize: 14}, 10, 10, RowOptions{}, "not supported"},
		{"no projector", Family{Name: "x", Rule: RuleLlamaCpp}, 10, 10, RowOptions{}, "no projector type"},
		{"no patch", Family{Name: "x", Rule: RuleLlamaCpp, Projector: "qwen2vl_merger"}, 10, 10, RowOptions{}, "patch_size is 0"},
		{"paddle without limits", Family{Name: "x", Rule: RuleLlamaCpp, Projector: "paddleocr", PatchSize: 14}, 10, 10, RowOptions{}, "image_min_pixels"},
		{"inverted limits", qwen, 10, 10, RowOptions{MinTokens: 2000, MaxTokens: 1000}, "image_max_pixels (784000) is less than image_min_pixels (1568000)"},
		{"min above the built-in max", qwen, 10, 10, RowOptions{MinTokens: 5000}, "image_max_pixels (3211264) is less than image_min_pixels (3920000)"},
		{"idefics3 min tokens alone", mustFamily(t, "llamacpp/idefics3-smolvlm2"), 10, 10, RowOptions{MinTokens: 1024}, "image_max_pixels (-1) is less than image_min_pixels (4194304)"},
		{"hf aspect", Family{Name: "hf", Rule: RuleHFQwen, PatchSize: 14, MinPixels: 3136, MaxPixels: 12845056}, 201, 1, RowOptions{}, "aspect ratio"},
	}
	for _, tc := range cases {
		_, err := ImageRows(tc.fam, tc.width, tc.height, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ImageRows(Family{Name: "x", Rule: RuleLlamaCpp, Projector: "qwen2a", PatchSize: 16}, 10, 10, RowOptions{}); !errors.Is(err, ErrUnsupportedProjector) {
		t.Errorf("qwen2a: err = %v, want ErrUnsupportedProjector", err)
	}
}

func TestFamilyRegistry(t *testing.T) {
	names := Families()
	if len(names) < 50 {
		t.Fatalf("only %d families", len(names))
	}
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			t.Errorf("duplicate family %q", n)
		}
		seen[n] = true
		if i > 0 && names[i-1] > n {
			t.Errorf("Families not sorted at %q", n)
		}
		f, err := FamilyByName(n)
		if err != nil {
			t.Errorf("FamilyByName(%q): %v", n, err)
			continue
		}
		if f.Name != n || f.Note == "" {
			t.Errorf("family %q: name %q, note %q", n, f.Name, f.Note)
		}
		// Every family prices a common picture.
		r, err := ImageRows(f, 800, 600, RowOptions{})
		if err != nil || r.Rows <= 0 || r.Total != r.Rows+r.Markers {
			t.Errorf("family %q 800x600: %+v, %v", n, r, err)
		}
	}
	for _, alias := range []string{"LLAMACPP/QWEN25VL", " hf/qwen25vl ", "llamacpp/qwen2.5vl"} {
		if _, err := FamilyByName(alias); err != nil {
			t.Errorf("alias %q: %v", alias, err)
		}
	}
	if _, err := FamilyByName("llamacpp/qwen3-vl"); err == nil || !strings.Contains(err.Error(), `did you mean "llamacpp/qwen3vl"`) || strings.Contains(err.Error(), "gemini") {
		t.Errorf("unknown family: err = %v, want the closest names, not all of them", err)
	}
}

// TestSmartResizeFloat32 pins the float32 arithmetic: a case where float64 would differ.
func TestSmartResizeFloat32(t *testing.T) {
	// LFM2 1920×1080 thumbnail: β = √(2 073 600 / 262 144) = 2.8125 exactly in float32.
	got := llamaSmartResize(PixelSize{1920, 1080}, 32, 64*1024, 256*1024)
	if got != (PixelSize{672, 384}) {
		t.Errorf("LFM2 thumbnail = %v, want 672×384", got)
	}
	// Every result is a positive multiple of the alignment for a sweep of sizes.
	for w := 1; w < 3000; w += 37 {
		for h := 1; h < 3000; h += 53 {
			s := llamaSmartResize(PixelSize{w, h}, 28, 8*784, 4096*784)
			if s.Width <= 0 || s.Height <= 0 || s.Width%28 != 0 || s.Height%28 != 0 {
				t.Fatalf("%dx%d -> %v", w, h, s)
			}
			if n := int64(s.Width) * int64(s.Height); n > 4096*784 && w < 100*h && h < 100*w {
				t.Fatalf("%dx%d -> %v above the maximum", w, h, s)
			}
		}
	}
}

func FuzzImageRows(f *testing.F) {
	names := Families()
	f.Add(640, 360, uint8(0), 0, 0)
	f.Add(1, 1, uint8(5), 0, 0)
	f.Add(10000, 10, uint8(17), 0, 0)
	f.Add(1<<20, 1, uint8(30), 1024, 0)
	f.Add(1, 1<<20, uint8(44), 0, 16384)
	f.Add(1<<20, 1<<20, uint8(255), 8, 8)
	f.Fuzz(func(t *testing.T, width, height int, which uint8, minTok, maxTok int) {
		if width <= 0 || height <= 0 || width > 1<<20 || height > 1<<20 {
			return
		}
		if minTok < 0 || maxTok < 0 || minTok > 1<<16 || maxTok > 1<<16 {
			return
		}
		fam, err := FamilyByName(names[int(which)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		r, err := ImageRows(fam, width, height, RowOptions{MinTokens: minTok, MaxTokens: maxTok})
		if err != nil {
			if errors.Is(err, ErrPictureRefused) || errors.Is(err, errInvertedLimits) {
				return
			}
			t.Fatalf("%s %dx%d: %v", fam.Name, width, height, err)
		}
		if r.Rows <= 0 || r.Markers < 0 || r.Total != r.Rows+r.Markers || r.Total > math.MaxInt32 {
			t.Fatalf("%s %dx%d: implausible %+v", fam.Name, width, height, r)
		}
	})
}

func BenchmarkImageRows(b *testing.B) {
	for _, name := range []string{"llamacpp/qwen2.5vl", "llamacpp/lfm2-vl", "llamacpp/internvl", "hf/qwen3vl", "openai/gpt-4.1-mini"} {
		fam, err := FamilyByName(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(1920 * 1080 * 3) // the picture the cost stands for, as RGB
			for b.Loop() {
				if _, err := ImageRows(fam, 1920, 1080, RowOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// mustFamily returns a built-in family or fails the test.
func mustFamily(t *testing.T, name string) Family {
	t.Helper()
	f, err := FamilyByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestImageRowsReleaseFigures: totals that llama.cpp's multimodal library of the bound release
// counted for these pictures with its own build and projectors (figures reported alongside the
// bug they revealed: Gemma 4's 70..1120 limits, SmolVLM's tile rounding, LFM2's thumbnail marker
// and tiling threshold, Idefics3 honouring --image-max-tokens).
func TestImageRowsReleaseFigures(t *testing.T) {
	for _, tc := range []struct {
		family        string
		width, height int
		opts          RowOptions
		total         int
	}{
		{"llamacpp/gemma4", 1280, 800, RowOptions{}, 461},
		{"llamacpp/gemma4", 1920, 1080, RowOptions{}, 922},
		{"llamacpp/smolvlm-2b", 800, 3000, RowOptions{}, 752},
		{"llamacpp/smolvlm-2b", 10000, 100, RowOptions{}, 417},
		{"llamacpp/smolvlm-2b", 336, 336, RowOptions{}, 1416},
		{"llamacpp/lfm2-vl", 64, 64, RowOptions{}, 66},
		{"llamacpp/lfm2-vl", 730, 730, RowOptions{}, 1287},
		{"llamacpp/idefics3-smolvlm2", 1920, 1080, RowOptions{MaxTokens: 200}, 200},
	} {
		r, err := ImageRows(mustFamily(t, tc.family), tc.width, tc.height, tc.opts)
		if err != nil || r.Total != tc.total {
			t.Errorf("%s %d×%d %+v: total %d (%v), want %d", tc.family, tc.width, tc.height, tc.opts, r.Total, err, tc.total)
		}
	}
}
