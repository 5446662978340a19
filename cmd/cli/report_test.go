package cli

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/results"
)

// findChromium returns a headless-capable Chromium on PATH, or skips the test saying how to get
// one (make test-deps installs Debian's chromium when it can).
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH to open report.html in: `make test-deps` installs Debian's chromium (as root or with sudo -n), or run `apt-get install -y chromium`")
	return ""
}

// dumpDOM opens a file in headless Chromium and returns the DOM after the page's scripts ran
// and its pictures loaded. Every request the browser makes goes through a loopback proxy, and
// the test fails on any the page makes: a report page fetches nothing.
func dumpDOM(t *testing.T, chromium, file string) string {
	t.Helper()
	dom, fetched := dumpDOMFetches(t, chromium, file)
	for _, f := range fetched {
		t.Errorf("the browser fetched %s opening %s", f, filepath.Base(file))
	}
	return dom
}

// browserOwnHost is a host Chromium itself calls whatever the page (sign-in, time, the new
// tab page): what it fetches there is not the page's doing.
var browserOwnHost = regexp.MustCompile(`(^|\.)(google\.com|gstatic\.com|googleapis\.com|gvt1\.com)(:\d+)?$`)

// dumpDOMFetches is dumpDOM returning what the page fetched through the proxy instead of failing.
func dumpDOMFetches(t *testing.T, chromium, file string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var fetched []string
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !browserOwnHost.MatchString(r.Host) {
			mu.Lock()
			fetched = append(fetched, r.Method+" "+r.Host+r.URL.Path)
			mu.Unlock()
		}
		http.Error(w, "no network for a report page", http.StatusForbidden)
	}))
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--proxy-server="+proxy.URL, "--proxy-bypass-list=<-loopback>",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", file, err, stderr.String())
	}
	proxy.Close()
	mu.Lock()
	defer mu.Unlock()
	return string(out), fetched
}

// TestChromiumProxySeesFetches: the proxy of dumpDOM sees what a page fetches, so that its
// silence on report.html means something.
func TestChromiumProxySeesFetches(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromium := findChromium(t)
	page := filepath.Join(t.TempDir(), "fetches.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><img src="http://picture.strata-eval.invalid/a.png">`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, fetched := dumpDOMFetches(t, chromium, page); !slices.Contains(fetched, "GET picture.strata-eval.invalid/a.png") {
		t.Fatalf("the proxy saw %q, not the page's picture", fetched)
	}
}

var (
	srcRe     = regexp.MustCompile(` src="([^"]*)"`)
	imgRe     = regexp.MustCompile(`<img [^>]*>`)
	rowRe     = regexp.MustCompile(`(?s)<tr data-outcome="[^"]*">.*?</tr>`)
	attrRe    = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	svgRe     = regexp.MustCompile(`<svg class="chart"[^>]*>`)
	barRe     = regexp.MustCompile(`<g class="bar"[^>]*>`)
	sectionRe = regexp.MustCompile(`<section class="case"[^>]*>`)
)

// attrs reads the attributes of one start tag.
func attrs(tag string) map[string]string {
	m := map[string]string{}
	for _, a := range attrRe.FindAllStringSubmatch(tag, -1) {
		m[a[1]] = html.UnescapeString(a[2])
	}
	return m
}

// chartBars reads the bars of the charts in a piece of the DOM: metric → arm → (value, drawn width).
func chartBars(t *testing.T, dom string) (map[string]map[string][2]float64, map[string]string) {
	t.Helper()
	bars := map[string]map[string][2]float64{}
	scales := map[string]string{}
	svgs := svgRe.FindAllStringIndex(dom, -1)
	for i, loc := range svgs {
		svg := attrs(dom[loc[0]:loc[1]])
		end := len(dom)
		if i+1 < len(svgs) {
			end = svgs[i+1][0]
		}
		metric := svg["data-metric"]
		scales[metric] = svg["data-scale"]
		bars[metric] = map[string][2]float64{}
		for _, tag := range barRe.FindAllString(dom[loc[1]:end], -1) {
			a := attrs(tag)
			v, err1 := strconv.ParseFloat(a["data-value"], 64)
			w, err2 := strconv.ParseFloat(a["data-drawn-width"], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("bar %s: value or drawn width missing (did the script run?)", tag)
			}
			bars[metric][a["data-arm"]] = [2]float64{v, w}
		}
	}
	return bars, scales
}

// TestHTMLReportInChromium replays the sample corpus with --out, opens report.html in a real
// headless Chromium and reads the DOM its script built: two charts over all cases and two per
// case (prompt tokens, image rows), one bar per arm carrying the figure of results.json and a
// width the browser laid out (none for a zero, the longest for the largest value), a log scale
// where the bars differ by 100× (the headline case), and the pictures table with every outcome.
func TestHTMLReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromium := findChromium(t)
	r, _ := replayJSON(t) // the embedded sample corpus; replayJSON keeps the folder to itself
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "replay", "--summary", "--out", dir); code != ExitOK {
		t.Fatalf("replay --out: exit %d\n%s", code, errOut)
	}
	page := filepath.Join(dir, "report.html")
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<link", "@import", "url("} {
		if strings.Contains(string(raw), bad) {
			t.Errorf("report.html loads something (%q): it must be self-contained", bad)
		}
	}
	for _, m := range srcRe.FindAllStringSubmatch(string(raw), -1) {
		if !strings.HasPrefix(m[1], "data:image/") {
			t.Errorf("report.html loads %.60q: its pictures must be inline", m[1])
		}
	}
	if len(raw) > 4<<20 {
		t.Errorf("report.html is %d bytes: a page of thumbnails stays under 4 MiB", len(raw))
	}
	dom := dumpDOM(t, chromium, page)
	checkPicturesShown(t, r, dom)

	if want := fmt.Sprintf(`data-charts="%d"`, 2+2*len(r.Cases)); !strings.Contains(dom, want) {
		t.Fatalf("the page did not draw its charts: want %s on <body>", want)
	}
	armsEnd := strings.Index(dom, `id="case-charts"`)
	if armsEnd < 0 {
		t.Fatal("no case charts in the DOM")
	}
	total, _ := chartBars(t, dom[:armsEnd])
	for _, s := range r.Summary {
		if got := total["prompt_tokens"][s.Arm][0]; got != float64(s.PromptTokens) {
			t.Errorf("all cases, arm %s: prompt tokens bar %v, want %d", s.Arm, got, s.PromptTokens)
		}
		if got := total["image_rows"][s.Arm][0]; got != float64(s.ImageRows) {
			t.Errorf("all cases, arm %s: image rows bar %v, want %d", s.Arm, got, s.ImageRows)
		}
	}

	sections := sectionRe.FindAllStringIndex(dom, -1)
	if len(sections) != len(r.Cases) {
		t.Fatalf("%d case sections, want %d", len(sections), len(r.Cases))
	}
	for i, loc := range sections {
		end := len(dom)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		c := r.Cases[i]
		if id := attrs(dom[loc[0]:loc[1]])["data-case"]; id != c.ID {
			t.Fatalf("section %d is case %q, want %q", i, id, c.ID)
		}
		bars, scales := chartBars(t, dom[loc[1]:end])
		for metric, get := range map[string]func(a results.ArmCase) int{
			"prompt_tokens": func(a results.ArmCase) int { return a.PromptTokens },
			"image_rows":    func(a results.ArmCase) int { return a.ImageRows },
		} {
			if len(bars[metric]) != len(c.Arms) {
				t.Errorf("case %s: %d %s bars, want one per arm (%d)", c.ID, len(bars[metric]), metric, len(c.Arms))
			}
			largest, widest := 0, 0.0
			for _, a := range c.Arms {
				b := bars[metric][a.Arm]
				if b[0] != float64(get(a)) {
					t.Errorf("case %s arm %s: %s bar %v, want %d", c.ID, a.Arm, metric, b[0], get(a))
				}
				if (get(a) == 0) != (b[1] == 0) {
					t.Errorf("case %s arm %s: %s %d drawn %v wide", c.ID, a.Arm, metric, get(a), b[1])
				}
				if get(a) > largest {
					largest = get(a)
				}
				widest = max(widest, b[1])
			}
			for _, a := range c.Arms {
				if get(a) == largest && largest > 0 && bars[metric][a.Arm][1] != widest {
					t.Errorf("case %s: the largest %s (arm %s) is not the widest bar", c.ID, metric, a.Arm)
				}
			}
		}
		if c.ID == "openai-chat-chatbox-screenshot.json#0@6" {
			if scales["prompt_tokens"] != "log" {
				t.Errorf("headline case: prompt tokens on a %q scale, want log (1,395,284 vs 1,808)", scales["prompt_tokens"])
			}
			if b := bars["prompt_tokens"]; !(b["before"][1] > b["after"][1] && b["after"][1] > 0) {
				t.Errorf("headline case: before drawn %v, after %v", b["before"][1], b["after"][1])
			}
		}
	}

	pictures := 0
	outcomes := map[string]bool{}
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			for _, p := range a.Pictures {
				pictures++
				outcomes[string(p.Outcome)] = true
			}
		}
	}
	if got := strings.Count(dom, "<tr data-outcome="); got != pictures {
		t.Errorf("pictures table: %d rows, want %d", got, pictures)
	}
	for o := range outcomes {
		if !strings.Contains(dom, `<tr data-outcome="`+o+`"`) {
			t.Errorf("pictures table: no picture %s", o)
		}
	}
}

// checkPicturesShown checks the pictures of the page as the browser decoded them: every picture
// of the report that has a thumbnail is shown in its row (and what the agent made of it beside
// it), every picture of the page decoded to the size its tag gives, and every picture the
// replay held the bytes of has a thumbnail (the report's budget is not spent).
func checkPicturesShown(t *testing.T, r *results.Report, dom string) {
	t.Helper()
	if r.ThumbnailsCut {
		t.Fatalf("the sample corpus spent the thumbnail budget")
	}
	thumbs := map[string]bool{}
	for _, th := range r.Thumbnails {
		thumbs[th.SHA256[:16]] = true
	}
	imgs := imgRe.FindAllString(dom, -1)
	if want := fmt.Sprintf(`data-pictures="%d"`, len(imgs)); !strings.Contains(dom, want) {
		t.Fatalf("the page did not report its pictures loaded: want %s on <body>", want)
	}
	for _, tag := range imgs {
		a := attrs(tag)
		if want := a["width"] + "x" + a["height"]; a["data-natural"] != want || strings.HasPrefix(want, "0x") {
			t.Errorf("picture %s decoded to %q, want %s", a["alt"], a["data-natural"], want)
		}
	}
	rows := rowRe.FindAllString(dom, -1)
	i, shown := 0, 0
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			for _, p := range a.Pictures {
				if i >= len(rows) {
					t.Fatalf("the pictures table has %d rows, fewer than the report's pictures", len(rows))
				}
				var want []string
				for _, d := range []string{p.SHA256, resizedDigest(p)} {
					if len(d) >= 16 && thumbs[d[:16]] {
						want = append(want, d[:16])
					}
				}
				var got []string
				for _, tag := range imgRe.FindAllString(rows[i], -1) {
					got = append(got, attrs(tag)["data-thumb"])
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("case %s arm %s picture %s: thumbnails %v, want %v", c.ID, a.Arm, p.Loc, got, want)
				}
				if p.SHA256 != "" && p.Type != "" && !p.Problem && !thumbs[p.SHA256[:16]] {
					t.Errorf("case %s arm %s picture %s (%s): no thumbnail", c.ID, a.Arm, p.Loc, p.Type)
				}
				shown += len(got)
				i++
			}
		}
	}
	if shown == 0 || len(r.Thumbnails) < 10 {
		t.Errorf("%d thumbnails shown, %d in the report: the sample corpus has more pictures", shown, len(r.Thumbnails))
	}
}

// resizedDigest is the digest of what the agent made of a picture ("" when it kept it).
func resizedDigest(p results.Picture) string {
	if p.Resized == nil {
		return ""
	}
	return p.Resized.ToSHA256
}
