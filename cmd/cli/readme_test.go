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
			cmd, _, _ := strings.Cut(line, "#")
			cmd = strings.TrimSpace(strings.ReplaceAll(cmd, "> /dev/null", ""))
			cmds = append(cmds, readmeCommand{page: page, line: n, args: strings.Fields(cmd)[1:]})
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
// the fewest commands each holds (a guard against code blocks the test no longer reads).
var documentedCommands = []struct {
	page string
	min  int
}{{"README.md", 5}, {"docs/count-and-rows.md", 4}}

// TestREADMECommands runs every strata-eval command of the README (and of the pages of
// documentedCommands), in order, from a folder that holds the repository's corpora and
// budgets.yaml: each exits 0, and every figure and every plain (non-table) line its console
// block shows is in what it prints. The live-server command runs against a loopback test server
// that counts with the offline engine.
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
	for _, name := range []string{"corpora", "budgets.yaml"} {
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))

	for _, c := range cmds {
		args := append([]string(nil), c.args...)
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
		got := out.String()
		for _, shown := range c.shown {
			for _, f := range figure.FindAllString(shown, -1) {
				if !strings.Contains(got, f) {
					t.Errorf("%s:%d: strata-eval %s: the page shows %s; the command does not print it", c.page, c.line, strings.Join(c.args, " "), f)
				}
			}
			plain := strings.TrimSpace(shown)
			if plain == "" || plain == "…" || strings.ContainsAny(plain, "│┌├└─") {
				continue
			}
			if !strings.Contains(got, plain) {
				t.Errorf("%s:%d: strata-eval %s: the page shows the line %q; the command does not print it", c.page, c.line, strings.Join(c.args, " "), plain)
			}
		}
	}
}
