package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// templateOracleTableEnv names a file the template oracle writes its table to (make
// template-oracle); without it TestTemplateOracle is skipped, as it starts llama-server once
// per template of the release (about an hour on 2 cores).
const templateOracleTableEnv = "TEMPLATE_ORACLE_TABLE"

// templateOracleShort are the release's templates whose server count still differs from the
// computed one on some arm of the corpora. The oracle fails when a template not listed differs
// or a listed one is equal on every arm, so the list cannot go stale.
var templateOracleShort = map[string]bool{}

// templateOracleRow is one template's line of the table.
type templateOracleRow struct {
	name      string
	equal, of int
	// refused counts the arms the template itself refuses to render (its raise_exception, as
	// Llama 3.1's on two tool calls in one turn; llama-server refuses those requests too).
	refused               int
	first, reason, failed string
}

// TestTemplateOracle replays the sample corpus and the real recordings against llama-server of
// the release, started with each of the release's chat templates (models/templates, unpacked
// into .cache/llama-templates by make test-deps) and the tiny Qwen3 model, with --engine http
// --template T --template-date today: per template, the arms whose server count equals the
// computed one, of those the server counted (requests with pictures are refused by the tiny
// model and not compared), and the first differing line of the two renderings.
func TestTemplateOracle(t *testing.T) {
	tablePath := os.Getenv(templateOracleTableEnv)
	if tablePath == "" {
		t.Skipf("skipping the template oracle: $%s not set (make template-oracle)", templateOracleTableEnv)
	}
	bin, root, model := liveSetup(t, tinymodel.Options{})
	templates, _ := filepath.Glob(filepath.Join(root, ".cache", "llama-templates", "*.jinja"))
	if len(templates) == 0 {
		t.Fatal("no .cache/llama-templates/*.jinja: run make test-deps")
	}
	var table []templateOracleRow
	for _, tmpl := range templates {
		name := strings.TrimSuffix(filepath.Base(tmpl), ".jinja")
		t.Run(name, func(t *testing.T) {
			row := templateOracleRun(t, bin, root, model, tmpl)
			row.name = name
			table = append(table, row)
			checkTemplateOracleRow(t, row)
		})
	}
	writeTemplateOracleTable(t, tablePath, table)
}

// templateOracleRun starts llama-server with the template and replays both corpora against it.
func templateOracleRun(t *testing.T, bin, root, model, tmpl string) templateOracleRow {
	url := llamaserver.Start(t, bin, model, "-c", "8192", "-np", "1", "-t", "1", "--jinja", "--chat-template-file", tmpl)
	var row templateOracleRow
	for _, corpus := range liveCorpora(root) {
		args := append(liveHTTPArgs(url), "--tokenizer", model, "--turns", "all", "--template", tmpl, "--template-date", "today")
		code, stderr, r := replayLive(t, t.TempDir(), append(args, corpus.paths...)...)
		if r == nil {
			row.failed = fmt.Sprintf("%s corpus: exit %d: %s", corpus.name, code, lastLine(stderr))
			continue
		}
		refusedBefore := row.refused
		countTemplateOracleArms(&row, r)
		if code != ExitOK && !(code == ExitInputs && row.refused > refusedBefore) {
			row.failed = fmt.Sprintf("%s corpus: exit %d: %s", corpus.name, code, lastLine(stderr))
		}
	}
	return row
}

// countTemplateOracleArms adds the arms of r the server counted to row: how many, how many
// equal the computed count, and the first differing line of the first that does not.
func countTemplateOracleArms(row *templateOracleRow, r *results.Report) {
	for _, c := range r.Cases {
		for _, e := range c.Errors {
			if e.Arm == "" || !strings.Contains(e.Message, "render chat template") {
				row.failed = c.ID + ": " + c.Error
				continue
			}
			row.refused++
			if row.reason == "" {
				row.reason = e.Message[strings.LastIndex(e.Message, ": ")+2:]
			}
		}
		for _, a := range c.Arms {
			if a.CountDiff == nil || a.TextSource != results.SourceServer {
				continue
			}
			row.of++
			if *a.CountDiff == 0 {
				row.equal++
				continue
			}
			if row.first == "" {
				row.first = describeMismatch(*a.CountDiff, a.Mismatch)
			}
		}
	}
}

// describeMismatch is a differing arm in one line: server − computed and where the two
// renderings part.
func describeMismatch(diff int, m *results.CountMismatch) string {
	switch {
	case m == nil:
		return fmt.Sprintf("%+d", diff)
	case m.Line == 0:
		return fmt.Sprintf("%+d: %s", diff, m.Note)
	default:
		return fmt.Sprintf("%+d, line %d: server %q, computed %q", diff, m.Line, m.Server, m.Computed)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// checkTemplateOracleRow fails a template that replayed with errors, that the server counted
// fewer than 50 arms of, or whose equality is not what templateOracleShort says.
func checkTemplateOracleRow(t *testing.T, row templateOracleRow) {
	t.Helper()
	t.Logf("%d / %d arms equal %s", row.equal, row.of, row.first)
	if row.failed != "" {
		t.Errorf("replay failed: %s", row.failed)
	}
	if row.of < 50 {
		t.Errorf("only %d arms compared, want at least 50", row.of)
	}
	switch short := templateOracleShort[row.name]; {
	case short && row.equal == row.of:
		t.Errorf("equal on every arm now: delete it from templateOracleShort")
	case !short && row.equal != row.of:
		t.Errorf("%d of %d arms differ: %s", row.of-row.equal, row.of, row.first)
	}
}

// writeTemplateOracleTable logs the table (template, arms equal / compared, the first
// differing line) and writes it to path.
func writeTemplateOracleTable(t *testing.T, path string, table []templateOracleRow) {
	sort.Slice(table, func(i, j int) bool { return table[i].name < table[j].name })
	var b strings.Builder
	b.WriteString("| template | arms equal / compared | refused by the template | first difference |\n| --- | --- | --- | --- |\n")
	allEqual, equal, of, refused := 0, 0, 0, 0
	for _, r := range table {
		note := r.first
		if r.failed != "" {
			note = strings.TrimSpace(r.failed + " " + note)
		}
		why := ""
		if r.refused > 0 {
			why = fmt.Sprintf("%d (%s)", r.refused, r.reason)
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %s | %s |\n", r.name, r.equal, r.of, why, strings.ReplaceAll(note, "|", `\|`))
		if r.equal == r.of && r.of > 0 && r.failed == "" {
			allEqual++
		}
		equal, of, refused = equal+r.equal, of+r.of, refused+r.refused
	}
	fmt.Fprintf(&b, "| all: %d of %d templates equal on every arm | %d / %d | %d | |\n", allEqual, len(table), equal, of, refused)
	t.Log("\n" + b.String())
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Error(err)
	}
}

// TestTemplateOracleTableInDocs: the table of docs/pipeline.md is the oracle's: a row for each
// template of the release (when make test-deps has unpacked them), the templates short of
// equal on some arm are those templateOracleShort lists, and the last row sums the others.
func TestTemplateOracleTableInDocs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "pipeline.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "#### The template oracle")
	if !ok {
		t.Fatal("docs/pipeline.md has no section \"The template oracle\"")
	}
	names := map[string]bool{}
	var equal, of, allEqual int
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 3 || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| template ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		name := strings.TrimPrefix(cells[0], "| ")
		var e, o int
		if _, err := fmt.Sscanf(cells[1], "%d / %d", &e, &o); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		if strings.HasPrefix(name, "all: ") {
			if e != equal || o != of || !strings.HasPrefix(name, fmt.Sprintf("all: %d of %d ", allEqual, len(names))) {
				t.Errorf("last row %q, want %d of %d templates, %d / %d arms", line, allEqual, len(names), equal, of)
			}
			break
		}
		names[name] = true
		equal, of = equal+e, of+o
		if e == o {
			allEqual++
		}
		if short := e != o; short != templateOracleShort[name] {
			t.Errorf("%s: %d / %d in the docs, templateOracleShort says short %v", name, e, o, templateOracleShort[name])
		}
	}
	root, _ := tinymodel.RepoRoot()
	templates, _ := filepath.Glob(filepath.Join(root, ".cache", "llama-templates", "*.jinja"))
	for _, tmpl := range templates {
		if name := strings.TrimSuffix(filepath.Base(tmpl), ".jinja"); !names[name] {
			t.Errorf("no row for %s", name)
		}
	}
	if len(templates) > 0 && len(names) != len(templates) {
		t.Errorf("%d rows for %d templates", len(names), len(templates))
	}
}
