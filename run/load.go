package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/results"
)

// EmbeddedInput is the name the embedded sample corpus goes by in reports.
const EmbeddedInput = "(embedded sample corpus)"

// StdinPath is the path that names standard input on the command line; StdinInput is the name
// its recording goes by in case ids and reports.
const (
	StdinPath  = "-"
	StdinInput = "stdin"
)

// LoadResult is what reading the inputs gave besides the conversations themselves.
type LoadResult struct {
	Problems []*corpora.ReadError
	Inputs   []string // files read
	// Stdin is the digest of what was read from standard input (when a path was "-").
	Stdin *results.Input
	// Digests are the sizes and digests of the files read, by path, computed as they were
	// read (the report's inputs).
	Digests map[string]results.Input
}

// Digest returns the size and digest of an input read by the load: the one computed while it
// was read, or else (the embedded corpus, a file not read whole) one computed now.
func (l *LoadResult) Digest(path string) results.Input {
	if path == StdinInput && l.Stdin != nil {
		return *l.Stdin
	}
	if d, ok := l.Digests[path]; ok {
		return d
	}
	return describeInput(path)
}

// Err is nil when every input was read, and an *InputsError otherwise.
func (l *LoadResult) Err() error {
	if len(l.Problems) == 0 {
		return nil
	}
	return &InputsError{Problems: len(l.Problems)}
}

// problemEmitter forwards conversations to a callback and keeps problems.
type problemEmitter struct {
	each func(*corpora.Conversation) error
	res  *LoadResult
	// conversations counts the conversations emitted so far.
	conversations int
	// runs counts the base64 runs of tool text streamed past while reading (nil: none).
	runs corpora.LargeRunOptions
}

// NewRunCounter is corpora.LargeRunOptions: the run's counter, or nil.
func (p *problemEmitter) NewRunCounter() corpora.RunCounter {
	if p.runs == nil {
		return nil
	}
	return p.runs.NewRunCounter()
}

// LargeRunChars is corpora.LargeRunOptions: the length runs' options set (0: the readers').
func (p *problemEmitter) LargeRunChars() int {
	if p.runs == nil {
		return 0
	}
	return p.runs.LargeRunChars()
}

// runCounting is the corpora.LargeRunOptions of a replay: its offline engine's run counter,
// and the length from which runs are streamed past (0: the readers'; tests set less).
type runCounting struct {
	off   *engine.Offline
	chars int
}

func (r runCounting) NewRunCounter() corpora.RunCounter { return r.off.NewRunCounter() }
func (r runCounting) LargeRunChars() int                { return r.chars }

func (p *problemEmitter) Conversation(c *corpora.Conversation) error {
	p.conversations++
	return p.each(c)
}
func (p *problemEmitter) Problem(err *corpora.ReadError) {
	p.res.Problems = append(p.res.Problems, err)
}

// inputFile is a file to read; FromDir marks one found by walking a folder, Stdin standard
// input ("-").
type inputFile struct {
	Path    string
	FromDir bool
	Stdin   bool
}

// expanded is what expandPaths found: the files to read, and what it skipped or could not
// follow, to be told (never skipped silently).
type expanded struct {
	files    []inputFile
	notes    []string
	problems []*corpora.ReadError
}

// expandPaths turns directories into the sorted list of files under them. Symbolic links are
// followed, to files and to folders, wherever they point (docs/decisions.md): each real file
// is read once and each real folder walked once, so a link loop ends; a broken link is a
// problem; anything that is not a regular file (a FIFO, a socket, a device) is skipped with a
// note, never opened. A path that cannot be opened (it does not exist, it may not be read) is
// a problem too, and the others go on; "-" is standard input.
func expandPaths(paths []string) (expanded, error) {
	var ex expanded
	seenFiles := map[string]string{} // real path → the path it was first found by
	for _, p := range paths {
		if p == StdinPath {
			ex.files = append(ex.files, inputFile{Path: p, Stdin: true})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			ex.problems = append(ex.problems, &corpora.ReadError{Loc: corpora.Location{File: p}, Err: err})
			continue
		}
		if !info.IsDir() {
			ex.files = append(ex.files, inputFile{Path: p})
			continue
		}
		var files []string
		seenDirs := map[string]bool{}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			seenDirs[real] = true
		}
		if err := ex.walk(p, seenDirs, seenFiles, &files); err != nil {
			return ex, err
		}
		sort.Strings(files)
		for _, f := range files {
			ex.files = append(ex.files, inputFile{Path: f, FromDir: true})
		}
	}
	return ex, nil
}

// walk adds the files under dir to files, following symbolic links.
func (ex *expanded) walk(dir string, seenDirs map[string]bool, seenFiles map[string]string, files *[]string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, d := range entries {
		path := filepath.Join(dir, d.Name())
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			info, err := os.Stat(path)
			if err != nil {
				target, _ := os.Readlink(path)
				ex.problems = append(ex.problems, &corpora.ReadError{Loc: corpora.Location{File: path},
					Err: fmt.Errorf("broken symbolic link to %s: %w", target, err)})
				continue
			}
			mode = info.Mode().Type()
		}
		switch {
		case mode.IsDir():
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				return err
			}
			if seenDirs[real] {
				ex.notes = append(ex.notes, fmt.Sprintf("skipped %s: a link to a folder already read (%s)", path, real))
				continue
			}
			seenDirs[real] = true
			if err := ex.walk(path, seenDirs, seenFiles, files); err != nil {
				return err
			}
		case mode.IsRegular():
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				return err
			}
			if first, ok := seenFiles[real]; ok {
				ex.notes = append(ex.notes, fmt.Sprintf("skipped %s: the same file as %s, read once", path, first))
				continue
			}
			seenFiles[real] = path
			*files = append(*files, path)
		default:
			ex.notes = append(ex.notes, fmt.Sprintf("skipped %s: not a regular file (%s)", path, mode))
		}
	}
	return nil
}

// Load reads every path (the embedded sample corpus when there is none) and calls each for
// every conversation. A file that cannot be read is a problem; the others go on.
//
// The files found by walking a folder whose format cannot be told (a README, a manifest) are
// skipped and counted in one note on notes; a file named on the command line whose format
// cannot be told is a *NotRecordingError before anything is read.
func Load(ctx context.Context, paths []string, format corpora.Format, notes io.Writer, each func(*corpora.Conversation) error) (*LoadResult, error) {
	return LoadFrom(ctx, paths, nil, format, notes, each)
}

// LoadFrom is Load with standard input: a path "-" reads a recording from stdin (named
// "stdin" in case ids; its format is told from its first bytes unless format names it).
func LoadFrom(ctx context.Context, paths []string, stdin io.Reader, format corpora.Format, notes io.Writer, each func(*corpora.Conversation) error) (*LoadResult, error) {
	return LoadCounting(ctx, paths, stdin, format, notes, nil, each)
}

// LoadCounting is LoadFrom whose readers stream the base64 runs of tool text past as runs say
// (corpora.LargeRunOptions: a counter for each, the length from which they are streamed; nil:
// such a run has no count, and a text holding one cannot be counted).
func LoadCounting(ctx context.Context, paths []string, stdin io.Reader, format corpora.Format, notes io.Writer, runs corpora.LargeRunOptions, each func(*corpora.Conversation) error) (*LoadResult, error) {
	if n := countStdin(paths); n > 1 {
		return nil, usageErrorf("standard input (-) is named %d times; name it once", n)
	}
	res := &LoadResult{}
	em := &problemEmitter{each: each, res: res, runs: runs}
	if len(paths) == 0 {
		res.Inputs = append(res.Inputs, EmbeddedInput)
		return res, corpora.ReadSamples(ctx, em)
	}
	ex, err := expandPaths(paths)
	if err != nil {
		return nil, asUsage(err)
	}
	if format == "" {
		for _, in := range ex.files {
			if in.FromDir || in.Stdin {
				continue
			}
			if _, err := corpora.DetectFile(in.Path); errors.Is(err, corpora.ErrUnknownFormat) {
				return nil, &NotRecordingError{Path: in.Path}
			}
		}
	}
	var skipped []string
	defer func() { noteSkipped(notes, skipped) }()
	for _, n := range ex.notes {
		fmt.Fprintf(notes, "strata-eval: %s\n", n)
	}
	res.Problems = append(res.Problems, ex.problems...)
	for _, in := range ex.files {
		f := in.Path
		if err := ctx.Err(); err != nil {
			return res, err
		}
		before, problems := em.conversations, len(res.Problems)
		var err error
		if in.Stdin {
			f = StdinInput
			err = readStdin(ctx, stdin, format, em, res)
		} else {
			h := newInputHash()
			n, whole, rerr := corpora.ReadFileDigest(ctx, f, format, em, h)
			if whole {
				if res.Digests == nil {
					res.Digests = map[string]results.Input{}
				}
				res.Digests[f] = inputInfo(f, n, h)
			}
			err = rerr
		}
		if err == nil && em.conversations == before && len(res.Problems) == problems {
			fmt.Fprintf(notes, "strata-eval: %s holds no conversation to replay (no request and no tool call in it); skipped\n", f)
		}
		var re *corpora.ReadError
		switch {
		case in.FromDir && errors.Is(err, corpora.ErrUnknownFormat):
			skipped = append(skipped, f)
			continue
		case err == nil:
			res.Inputs = append(res.Inputs, f)
		case errors.As(err, &re):
			res.Inputs = append(res.Inputs, f)
			res.Problems = append(res.Problems, re)
		case errors.Is(err, context.Canceled):
			return res, err
		default:
			res.Inputs = append(res.Inputs, f)
			res.Problems = append(res.Problems, &corpora.ReadError{Loc: corpora.Location{File: f}, Err: err})
		}
	}
	return res, nil
}

// maxSkippedNames is how many of the files skipped as not recordings are named; the rest are
// counted.
const maxSkippedNames = 5

// noteSkipped tells, in one line, the files of the folders read that are not recordings (a
// README, a manifest, a script): how many, and the first maxSkippedNames of them.
func noteSkipped(notes io.Writer, skipped []string) {
	if len(skipped) == 0 {
		return
	}
	what := "files that are not recordings"
	if len(skipped) == 1 {
		what = "file that is not a recording"
	}
	names := skipped[:min(len(skipped), maxSkippedNames)]
	more := ""
	if n := len(skipped) - len(names); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	fmt.Fprintf(notes, "strata-eval: skipped %d %s: %s%s\n", len(skipped), what, strings.Join(names, ", "), more)
}

// countStdin counts the paths naming standard input.
func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == StdinPath {
			n++
		}
	}
	return n
}

// readStdin reads the recording on stdin, hashing it on the way for the report's inputs.
func readStdin(ctx context.Context, stdin io.Reader, format corpora.Format, e corpora.Emitter, res *LoadResult) error {
	if stdin == nil {
		return &corpora.ReadError{Loc: corpora.Location{File: StdinInput}, Err: errors.New("no standard input to read")}
	}
	h := newInputHash()
	cr := &countingReader{r: io.TeeReader(stdin, h)}
	err := corpora.Read(ctx, StdinInput, cr, format, e)
	in := inputInfo(StdinInput, cr.n, h)
	res.Stdin = &in
	return err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
