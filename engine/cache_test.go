package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCacheBounded: past its size cap the cache evicts its oldest entries (to 90% of the cap),
// keeps the newest; Stats counts entries and bytes per server; Prune(0) clears it.
func TestCacheBounded(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCacheMax(dir, 4000)
	if err != nil {
		t.Fatal(err)
	}
	body := json.RawMessage(`{"pad":"` + strings.Repeat("x", 300) + `"}`)
	old := time.Now().Add(-time.Hour)
	var keys []string
	for i := range 12 {
		key := CacheKey("http/openai", "m", "s", "/p", []byte(fmt.Sprint(i)))
		keys = append(keys, key)
		server := "a"
		if i%3 == 0 {
			server = "b"
		}
		if err := c.Put(&CachedResponse{Key: key, Engine: "http/openai", Server: server, Status: 200, Body: body}); err != nil {
			t.Fatal(err)
		}
		// each entry older than the next
		if err := os.Chtimes(c.file(key), old.Add(time.Duration(i)*time.Second), old.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes > 4000 || st.Entries == 0 || st.Entries == 12 {
		t.Errorf("%d entries, %d bytes: want fewer than 12, at most the cap", st.Entries, st.Bytes)
	}
	if _, ok := c.Get(keys[11]); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c.Get(keys[0]); ok {
		t.Error("the oldest entry was kept")
	}
	sum := 0
	for _, s := range st.Servers {
		sum += s.Entries
	}
	if len(st.Servers) != 2 || sum != st.Entries {
		t.Errorf("servers %+v", st.Servers)
	}
	if n, err := c.Prune(0); err != nil || n != st.Entries {
		t.Errorf("clear removed %d, %v; want %d", n, err, st.Entries)
	}
	if n, _ := c.Len(); n != 0 {
		t.Errorf("%d entries after clearing", n)
	}
}
