package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/results"
)

// Shard selects the cases of shard Index of Count by a stable hash of the case id; the zero
// value selects every case.
type Shard struct {
	Index, Count int
}

// ParseShard reads --shard "i/n" (0 ≤ i < n); "" is every case.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, usageErrorf("--shard must be i/n with 0 ≤ i < n, not %q", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Includes reports whether the case id belongs to this shard (FNV-1a 64 of the id, mod n).
func (s Shard) Includes(id string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	io.WriteString(h, id)
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// String renders the shard as "i/n" ("" for all cases).
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ResumeCases reads the cases an earlier run streamed to cases.jsonl, for --resume (none when
// the file does not exist). A last line cut short by a kill is ignored; the file is then
// truncated to its last whole line so appended cases start on a line of their own. A case that
// failed (its error recorded) is not kept: the file is rewritten without it, so that the
// resumed run replays it and writes it once. failed counts those cases.
func ResumeCases(path string) (kept map[string]results.Case, failed int, err error) {
	cases, lines, err := readCases(path)
	if err != nil {
		return nil, 0, err
	}
	for id, c := range cases {
		if c.Error != "" {
			delete(cases, id)
			failed++
		}
	}
	if failed == 0 {
		return cases, 0, nil
	}
	// keep each remaining case's last line, in file order
	last := map[string]int{}
	for i, l := range lines {
		last[l.id] = i
	}
	err = fsutil.WriteAtomic(path, func(w io.Writer) error {
		for i, l := range lines {
			if _, ok := cases[l.id]; !ok || last[l.id] != i {
				continue
			}
			if _, err := w.Write(l.raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("resume: rewrite %s without its failed cases: %w", path, err)
	}
	return cases, failed, nil
}

// caseLine is one whole line of cases.jsonl and the id of its case.
type caseLine struct {
	id  string
	raw []byte
}

// readCases reads cases.jsonl: the cases by id (the last line of an id wins) and the lines.
func readCases(path string) (map[string]results.Case, []caseLine, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]results.Case{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	out := map[string]results.Case{}
	var lines []caseLine
	br := bufio.NewReader(f)
	var good int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var c results.Case
			if jerr := json.Unmarshal(line, &c); jerr == nil && c.ID != "" {
				out[c.ID] = c
				lines = append(lines, caseLine{id: c.ID, raw: line})
				good += int64(len(line))
				continue
			}
			return nil, nil, fmt.Errorf("resume: %s: line after byte %d is not a case", path, good)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if info, err := f.Stat(); err == nil && info.Size() != good {
		if err := os.Truncate(path, good); err != nil {
			return nil, nil, fmt.Errorf("resume: cut the partial last line of %s: %w", path, err)
		}
	}
	return out, lines, nil
}
