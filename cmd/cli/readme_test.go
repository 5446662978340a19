package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/results"
)

// readmeCommand is one strata-eval command of the README, with the output it shows (console
// blocks only).
type readmeCommand struct {
	page  string
	line  int
	args  []string
	shown []string
}

// readmeCommands reads the strata-eval commands of the README's code blocks: `$ strata-eval …`
// lines of console blocks (the lines after one, up to the next `$`, are its shown output) and
// `strata-eval …` lines of sh blocks (a trailing `# comment` and a `> /dev/null` dropped).
func readmeCommands(t *testing.T, page string, readme []byte) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	lang := ""
	in := false
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			in = !in
			lang = strings.TrimPrefix(line, "```")
			continue
		}
		if !in {
			continue
		}
		switch {
		case lang == "console" && strings.HasPrefix(line, "$ "):
			cmd := strings.TrimPrefix(line, "$ ")
			if !strings.HasPrefix(cmd, "strata-eval ") {
				t.Fatalf("%s:%d: a console block runs %q, not strata-eval", page, n, cmd)
			}
			cmds = append(cmds, readmeCommand{page: page, line: n, args: strings.Fields(cmd)[1:]})
		case lang == "console" && len(cmds) > 0:
			cmds[len(cmds)-1].shown = append(cmds[len(cmds)-1].shown, line)
		case lang == "sh" && strings.HasPrefix(line, "strata-eval "):
			first := n
			for strings.HasSuffix(line, "\\") && sc.Scan() { // a command continued on the next line
				n++
				line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(sc.Text())
			}
			cmd, _, _ := strings.Cut(line, "#")
			cmd = strings.TrimSpace(strings.ReplaceAll(cmd, "> /dev/null", ""))
			cmds = append(cmds, readmeCommand{page: page, line: first, args: strings.Fields(cmd)[1:]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// documentedCommands are the pages whose strata-eval commands run in TestREADMECommands, with
// the fewest commands each holds (a guard against code blocks the test no longer reads);
// TestEveryPageIsRead checks that every page with a command is listed.
var documentedCommands = []struct {
	page string
	min  int
}{{"README.md", 5}, {"docs/arms.md", 2}, {"docs/budgets.md", 5}, {"docs/count-and-rows.md", 4}, {"docs/engines.md", 2},
	{"docs/exit-codes.md", 1}, {"docs/formats.md", 2}, {"docs/recording.md", 5}, {"docs/scale.md", 6}, {"docs/scoring.md", 1}}

// placeholders are the words the pages use for the user's own files, and what the test names
// instead: the sample corpus, the sample expectations.
var placeholders = map[string]string{
	"corpus/":     "corpora/samples/",
	"PATH...":     "corpora/samples/",
	"expect.yaml": "corpora/samples/expectations.json",
	"other.yaml":  "corpora/samples/expectations.json",
	// what the recorders of docs/recording.md wrote: a real httprr trace, a sample MCP transcript
	"traffic.httprr":   "corpora/testdata/real/langchaingo-moonshot-openai-compat-tool-result.httprr",
	"screenshot.jsonl": "corpora/samples/mcp-stdio-2025-06-18.jsonl",
}

// notRun are the documented commands the test does not run, each with the test that runs the
// same command.
var notRun = map[string]string{
	"replay --engine llama --model model.gguf [--mmproj mmproj.gguf] --answer":                                                               "TestReplayLlamaEngine runs it on a tiny model with the llama.cpp libraries of make llama-libs",
	"record http --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 --out traffic.httprr":                                              "TestRecordHTTPThenReplay runs it (until stopped) in front of a loopback server shaped like llama-server",
	"record mcp --out screenshot.jsonl -- npx -y @modelcontextprotocol/server-everything":                                                    "TestRecordMCPWithSDK runs it with the Go MCP SDK's server and client",
	"replay --engine http --api ollama --endpoint http://127.0.0.1:11434 --model tiny --tokenizer tiny.gguf --template Modelfile --ctx 8192": "TestLiveOllama runs it against a real Ollama (make ollama) serving the tiny model",
	"replay --engine http --api openai --endpoint http://127.0.0.1:11434 --model tiny --tokenizer tiny.gguf --template Modelfile --ctx 8192": "TestLiveOllamaOpenAI runs it against a real Ollama (make ollama) serving the tiny model",
}

// runnable turns a documented command into the arguments the test runs: an optional
// [--flag value] group is left out and the placeholders are named.
func runnable(args []string) []string {
	var out []string
	optional := false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "["):
			optional = !strings.HasSuffix(a, "]")
			continue
		case optional:
			optional = !strings.HasSuffix(a, "]")
			continue
		}
		if p, ok := placeholders[a]; ok {
			a = p
		}
		out = append(out, a)
	}
	return out
}

// readmeWidth is the width the console blocks of the pages show their tables at: the program's
// own when its output is not a terminal and $COLUMNS is unset.
const readmeWidth = results.DefaultWidth

// updateDocs, set to 1, makes TestREADMECommands write what the commands print into the
// console blocks of the pages (each run of shown lines replaced by the printed lines there),
// for a change that changes the output on purpose: review the diff.
const updateDocs = "STRATA_EVAL_UPDATE_DOCS"

// TestREADMECommands runs every strata-eval command of the README (and of the pages of
// documentedCommands), in order, from a folder that holds the repository's corpora and
// budgets.yaml, with the program's own table width: each exits 0, and its console block shows
// exactly what it prints (compareShown), where a "…" line marks lines left out. The live-server
// command runs against a loopback test server that counts with the offline engine.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the sample corpus several times")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []readmeCommand
	for _, d := range documentedCommands {
		page, err := os.ReadFile(filepath.Join(root, d.page))
		if err != nil {
			t.Fatal(err)
		}
		found := readmeCommands(t, d.page, page)
		if len(found) < d.min {
			t.Fatalf("%s has %d strata-eval commands; the test reads at least %d (did the code blocks change?)", d.page, len(found), d.min)
		}
		cmds = append(cmds, found...)
	}

	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base"})
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), Context: 262144, InputTokens: true, Props: true, Timings: true, Answer: visionAnswer})
	defer srv.Close()

	dir := t.TempDir()
	for _, name := range []string{"corpora", "budgets.yaml", "examples"} {
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
	t.Setenv("COLUMNS", "")
	update := os.Getenv(updateDocs) == "1"
	edits := map[string][]shownEdit{}

	for _, c := range cmds {
		if why, ok := notRun[strings.Join(c.args, " ")]; ok {
			t.Logf("%s:%d: not run here: %s", c.page, c.line, why)
			continue
		}
		args := runnable(c.args)
		for i, a := range args {
			if strings.HasPrefix(a, "http://127.0.0.1:") {
				args[i] = srv.URL
			}
		}
		var out, errOut bytes.Buffer
		code := Run(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != 0 {
			t.Errorf("%s:%d: strata-eval %s: exit %d\n%s", c.page, c.line, strings.Join(c.args, " "), code, errOut.String())
			continue
		}
		if len(c.shown) == 0 {
			continue
		}
		problems, want := compareShown(c.shown, strings.Split(out.String(), "\n"))
		if update {
			edits[c.page] = append(edits[c.page], shownEdit{from: c.line, n: len(c.shown), lines: want})
			continue
		}
		for _, p := range problems {
			t.Errorf("%s:%d: strata-eval %s: %s (%s=1 writes what it prints into the page)", c.page, c.line, strings.Join(c.args, " "), p, updateDocs)
		}
	}
	for page, es := range edits {
		writeShown(t, filepath.Join(root, page), es)
	}
}

// shownEdit replaces the n lines a page shows after the command on line from.
type shownEdit struct {
	from, n int
	lines   []string
}

// writeShown applies the edits to a page.
func writeShown(t *testing.T, path string, edits []shownEdit) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i := len(edits) - 1; i >= 0; i-- { // from the bottom, so that line numbers hold
		e := edits[i]
		lines = append(lines[:e.from], append(append([]string(nil), e.lines...), lines[e.from+e.n:]...)...)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareShown compares the lines a console block shows after a command with the lines it
// printed (trailing blanks aside). The shown lines, cut at "…" lines, are runs of consecutive
// printed lines in order; a block that does not begin with "…" begins where the output does,
// one that does not end with "…" ends where it does. It returns what differs, and the lines the
// block should show: each run replaced by the printed lines where it is found (as many, and on
// to the end of a table cut short; to the end of the output for the last), the "…" lines kept.
func compareShown(shown, printed []string) (problems, want []string) {
	for i := range printed {
		printed[i] = strings.TrimRight(printed[i], " ")
	}
	for len(printed) > 0 && printed[len(printed)-1] == "" {
		printed = printed[:len(printed)-1]
	}
	var runs [][]string
	run := []string{}
	for _, s := range shown {
		if s = strings.TrimRight(s, " "); s == "…" {
			runs = append(runs, run)
			run = []string{}
			continue
		}
		run = append(run, s)
	}
	runs = append(runs, run)
	// runs[0] is empty when the block begins with "…", the last when it ends with one
	find := func(line string, from int) int {
		for i := from; i < len(printed); i++ {
			if printed[i] == line {
				return i
			}
		}
		return -1
	}
	pos := 0
	for k, r := range runs {
		if k > 0 {
			want = append(want, "…")
		}
		if len(r) == 0 {
			continue
		}
		start := pos
		if k > 0 {
			if start = find(r[0], pos); start < 0 {
				problems = append(problems, fmt.Sprintf("the page shows %q; the command does not print it after line %d", r[0], pos+1))
				want = append(want, r...)
				continue
			}
		}
		last := k == len(runs)-1
		end := min(start+len(r), len(printed))
		switch {
		case last:
			end = len(printed)
		case len(runs[k+1]) > 0:
			if next := find(runs[k+1][0], start+1); next >= 0 && next < end {
				end = next
			}
		}
		if !last && !slices.Equal(printed[start:end], r) {
			// the run changed: what the update writes runs on to the end of the table it is in
			for end < len(printed) && strings.ContainsAny(printed[end][:min(len(printed[end]), 3)], "│├└") {
				end++
			}
		}
		got := printed[start:end]
		if !slices.Equal(got, r) {
			problems = append(problems, fmt.Sprintf("the page shows\n%s\nthe command prints\n%s", strings.Join(r, "\n"), strings.Join(got, "\n")))
		}
		want = append(want, got...)
		pos = start + len(got)
	}
	return problems, want
}

// TestREADMEConsoleBlocksFit: the console blocks of the pages of documentedCommands are no
// wider than readmeWidth, so that a page shows its tables without scrolling sideways.
func TestREADMEConsoleBlocksFit(t *testing.T) {
	for _, d := range documentedCommands {
		page, err := os.ReadFile(filepath.Join("..", "..", d.page))
		if err != nil {
			t.Fatal(err)
		}
		in := false
		for n, line := range strings.Split(string(page), "\n") {
			if strings.HasPrefix(line, "```") {
				in = line == "```console"
				continue
			}
			if in && utf8.RuneCountInString(line) > readmeWidth {
				t.Errorf("%s:%d: a console line of %d characters, wider than %d", d.page, n+1, utf8.RuneCountInString(line), readmeWidth)
			}
		}
	}
}

// TestEveryPageIsRead: every page of the README and docs/ whose sh or console blocks hold a
// strata-eval command is one of documentedCommands.
func TestEveryPageIsRead(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, d := range documentedCommands {
		listed[d.page] = true
	}
	for _, p := range append(pages, filepath.Join("..", "..", "README.md")) {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
		if n := len(readmeCommands(t, rel, body)); n > 0 && !listed[filepath.ToSlash(rel)] {
			t.Errorf("%s holds %d strata-eval command(s) that no test runs: add it to documentedCommands", rel, n)
		}
	}
}

// TestCompareShown: a console block shows exactly what the command prints, "…" lines standing
// for lines left out; a line left out without one, a border missing or a line changed is found.
func TestCompareShown(t *testing.T) {
	printed := strings.Split("header\n\n┌──┐\n│ a│\n└──┘\n\nsummary\n│ b│\n", "\n")
	for _, tt := range []struct {
		name  string
		shown string
		ok    bool
	}{
		{"all of it", "header\n\n┌──┐\n│ a│\n└──┘\n\nsummary\n│ b│", true},
		{"the head, then …", "header\n\n┌──┐\n│ a│\n└──┘\n…", true},
		{"… then the tail", "…\nsummary\n│ b│", true},
		{"a middle", "…\n┌──┐\n│ a│\n└──┘\n…", true},
		{"borders left out", "header\n\n│ a│\n…", false},
		{"a line left out without …", "header\n\n┌──┐\n│ a│\n└──┘\n\nsummary", false},
		{"the head left out without …", "┌──┐\n│ a│\n└──┘\n…", false},
		{"a line changed", "header\n\n┌──┐\n│ x│\n└──┘\n…", false},
	} {
		problems, want := compareShown(strings.Split(tt.shown, "\n"), slices.Clone(printed))
		if (len(problems) == 0) != tt.ok {
			t.Errorf("%s: problems %q", tt.name, problems)
		}
		if tt.ok && strings.Join(want, "\n") != tt.shown {
			t.Errorf("%s: the update would write %q", tt.name, want)
		}
	}
}
