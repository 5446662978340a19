package cli

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/engine"
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

// figure is a number the README shows with thousands separators (1,528,438): a measured figure
// that the command must still print.
var figure = regexp.MustCompile(`\b\d{1,3}(?:,\d{3})+\b`)

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
	"replay --engine llama --model model.gguf [--mmproj mmproj.gguf] --answer":                  "TestReplayLlamaEngine runs it on a tiny model with the llama.cpp libraries of make llama-libs",
	"record http --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 --out traffic.httprr": "TestRecordHTTPThenReplay runs it (until stopped) in front of a loopback server shaped like llama-server",
	"record mcp --out screenshot.jsonl -- npx -y @modelcontextprotocol/server-everything":       "TestRecordMCPWithSDK runs it with the Go MCP SDK's server and client",
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

// readmeWidth is the terminal width the console blocks of the pages show their tables at.
const readmeWidth = 110

// TestREADMECommands runs every strata-eval command of the README (and of the pages of
// documentedCommands), in order, from a folder that holds the repository's corpora and
// budgets.yaml, on a terminal of readmeWidth columns: each exits 0, every figure its console
// block shows is in what it prints, and every line it shows (a table line too: a page may leave
// lines out, not change them) is a line of what it prints. The live-server command runs against
// a loopback test server that counts with the offline engine.
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

	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Vision: defaultVision})
	if err != nil {
		t.Fatal(err)
	}
	srv := engine.NewTestServer(engine.TestServerConfig{Counter: off, Context: 262144, InputTokens: true, Props: true, Timings: true, Answer: visionAnswer})
	defer srv.Close()

	dir := t.TempDir()
	for _, name := range []string{"corpora", "budgets.yaml", "examples"} {
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))

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
		code := Run(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutWidth: readmeWidth})
		if code != 0 {
			t.Errorf("%s:%d: strata-eval %s: exit %d\n%s", c.page, c.line, strings.Join(c.args, " "), code, errOut.String())
			continue
		}
		got := out.String()
		printed := map[string]bool{}
		for _, line := range strings.Split(got, "\n") {
			printed[strings.TrimRight(line, " ")] = true
		}
		for _, shown := range c.shown {
			for _, f := range figure.FindAllString(shown, -1) {
				if !strings.Contains(got, f) {
					t.Errorf("%s:%d: strata-eval %s: the page shows %s; the command does not print it", c.page, c.line, strings.Join(c.args, " "), f)
				}
			}
			line := strings.TrimRight(shown, " ")
			if line == "" || line == "…" {
				continue
			}
			if !printed[line] {
				t.Errorf("%s:%d: strata-eval %s: the page shows the line %q; the command does not print it (at %d columns)", c.page, c.line, strings.Join(c.args, " "), line, readmeWidth)
			}
		}
	}
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
