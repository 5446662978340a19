// Command testprogress reads `go test -json` on stdin and shows the progress of a long test
// run package by package: a line for each package as it finishes (ok or FAIL, with its time),
// the output of each failed test, and, while packages run, a line every interval naming them.
// It exits 1 when a package failed or did not build, so that `make test` fails as go test does.
//
//	go test -json ./... | go run ./internal/testkit/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, 20*time.Second))
}

// progress is what run knows of the packages while they run.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	started map[string]time.Time // packages running, by when their first event came
	output  map[string][]string  // output of each running test and package, by "pkg test"
	done    int
	failed  []string
}

// run reads the events on r and writes the progress on w; every is how often it names the
// packages still running.
func run(r io.Reader, w io.Writer, every time.Duration) int {
	p := &progress{w: w, started: map[string]time.Time{}, output: map[string][]string{}}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.heartbeat()
			}
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // a build error or vet output: not JSON
			continue
		}
		p.handle(e)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.failed) > 0 {
		fmt.Fprintf(w, "FAIL: %d of %d packages: %s\n", len(p.failed), p.done, strings.Join(p.failed, ", "))
		return 1
	}
	if p.done == 0 {
		fmt.Fprintln(w, "FAIL: no test result read")
		return 1
	}
	fmt.Fprintf(w, "ok: %d packages\n", p.done)
	return 0
}

// handle takes one event.
func (p *progress) handle(e event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Action == "build-output" { // a compile error, named by ImportPath, not Package
		fmt.Fprint(p.w, e.Output)
		return
	}
	if e.Package == "" {
		return
	}
	if _, ok := p.started[e.Package]; !ok && e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
		p.started[e.Package] = time.Now()
	}
	key := e.Package + " " + e.Test
	switch e.Action {
	case "output":
		p.output[key] = append(p.output[key], e.Output)
	case "pass", "skip":
		delete(p.output, key)
		if e.Test == "" {
			p.finish(e, "ok  ")
		}
	case "fail":
		if e.Test != "" || len(p.output[key]) > 0 {
			for _, line := range p.output[key] {
				fmt.Fprint(p.w, line)
			}
		}
		delete(p.output, key)
		if e.Test == "" {
			p.failed = append(p.failed, e.Package)
			p.finish(e, "FAIL")
		}
	}
}

// finish writes the line of a package that ended.
func (p *progress) finish(e event, verdict string) {
	delete(p.started, e.Package)
	for k := range p.output {
		if strings.HasPrefix(k, e.Package+" ") {
			delete(p.output, k)
		}
	}
	p.done++
	fmt.Fprintf(p.w, "%s %-60s %6.1fs\n", verdict, e.Package, e.Elapsed)
}

// heartbeat names the packages running, the longest-running first.
func (p *progress) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.started) == 0 {
		return
	}
	names := make([]string, 0, len(p.started))
	for n := range p.started {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return p.started[names[i]].Before(p.started[names[j]]) })
	for i, n := range names {
		names[i] = fmt.Sprintf("%s (%ds)", strings.TrimPrefix(n, "github.com/strata-eval/strata-eval/"), int(time.Since(p.started[n]).Seconds()))
	}
	fmt.Fprintf(p.w, "… %d done, running: %s\n", p.done, strings.Join(names, ", "))
}
