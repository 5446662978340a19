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

// ReadCases reads the cases an earlier run streamed to cases.jsonl (none when the file does
// not exist). A last line cut short by a kill is ignored; the file is then truncated to its
// last whole line so appended cases start on a line of their own.
func ReadCases(path string) (map[string]results.Case, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]results.Case{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]results.Case{}
	br := bufio.NewReader(f)
	var good int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var c results.Case
			if jerr := json.Unmarshal(line, &c); jerr == nil && c.ID != "" {
				out[c.ID] = c
				good += int64(len(line))
				continue
			}
			return nil, fmt.Errorf("resume: %s: line after byte %d is not a case", path, good)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if info, err := f.Stat(); err == nil && info.Size() != good {
		if err := os.Truncate(path, good); err != nil {
			return nil, fmt.Errorf("resume: cut the partial last line of %s: %w", path, err)
		}
	}
	return out, nil
}
