package corpora

//go:generate go run ../internal/testkit/gensamples -out samples

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

// samples is the embedded sample corpus written by internal/testkit/gensamples.
//
//go:embed samples
var samples embed.FS

// Files of the sample corpus that are not recordings.
const (
	samplesManifest     = "manifest.json"
	samplesExpectations = "expectations.json"
)

// SampleFS returns the embedded sample corpus: recorded conversations in every supported
// format carrying pictures made by code, plus manifest.json (what each file holds) and
// expectations.json (a question with a checkable answer per conversation).
func SampleFS() fs.FS {
	sub, err := fs.Sub(samples, "samples")
	if err != nil { // cannot happen for a constant, valid directory name
		return samples
	}
	return sub
}

// SampleFiles returns the names of the recordings of the sample corpus, sorted.
func SampleFiles() ([]string, error) {
	entries, err := fs.ReadDir(SampleFS(), ".")
	if err != nil {
		return nil, fmt.Errorf("list samples: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || e.Name() == samplesManifest || e.Name() == samplesExpectations {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// SampleExpectations returns expectations.json: conversation id (as the readers assign it;
// manifest.json lists them per file) → question and answer.
func SampleExpectations() (map[string]Expectation, error) {
	data, err := fs.ReadFile(SampleFS(), samplesExpectations)
	if err != nil {
		return nil, fmt.Errorf("read samples/%s: %w", samplesExpectations, err)
	}
	var out map[string]Expectation
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("read samples/%s: %w", samplesExpectations, err)
	}
	return out, nil
}

// ReadSamples reads every recording of the sample corpus through Read with format detection
// and sends the conversations to e, each with its Expectation attached: the entry of
// expectations.json keyed by the conversation's ID, or else by "<file name>#<n>" for the
// n-th conversation (from 0) the reader emitted for that file. A file that fails does not stop
// the others; the errors are returned together.
func ReadSamples(ctx context.Context, e Emitter) error {
	names, err := SampleFiles()
	if err != nil {
		return err
	}
	expect, err := SampleExpectations()
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := readSample(ctx, name, expect, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func readSample(ctx context.Context, name string, expect map[string]Expectation, e Emitter) error {
	f, err := SampleFS().Open(name)
	if err != nil {
		return &ReadError{Loc: Location{File: path.Join("samples", name)}, Err: err}
	}
	defer f.Close()
	return Read(ctx, name, f, "", &expectingEmitter{next: e, file: name, expect: expect})
}

// expectingEmitter attaches sample expectations to the conversations it passes on.
type expectingEmitter struct {
	next   Emitter
	file   string
	expect map[string]Expectation
	n      int
}

func (x *expectingEmitter) Conversation(c *Conversation) error {
	ordinal := x.n
	x.n++
	if c.Expect == nil {
		if ex, ok := x.expect[c.ID]; ok {
			c.Expect = &ex
		} else if ex, ok := x.expect[fmt.Sprintf("%s#%d", x.file, ordinal)]; ok {
			c.Expect = &ex
		}
	}
	return x.next.Conversation(c)
}

func (x *expectingEmitter) Problem(err *ReadError) { x.next.Problem(err) }
