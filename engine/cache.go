package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Cache stores server responses on disk, one file per request, keyed by a hash of the engine,
// the model, the server's identity and the exact request (path and body). Only successful
// responses and refusals are stored; rate limits, server errors and transport failures never
// are. It is bounded: past its size cap the oldest entries are evicted. A nil *Cache stores
// nothing and finds nothing.
type Cache struct {
	dir string
	max int64
	// mu guards size, the bytes of the entries as last walked plus those put since.
	mu   sync.Mutex
	size int64
}

// DefaultCacheMax is the response cache's size cap when none is given: 1 GiB.
const DefaultCacheMax = 1 << 30

// CachedResponse is one stored response.
type CachedResponse struct {
	Key    string          `json:"key"`
	Engine string          `json:"engine"`
	Model  string          `json:"model"`
	Server string          `json:"server,omitempty"` // the server as identified (http_identity.go)
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
	Stored time.Time       `json:"stored"`
}

// OpenCache opens (creating it if needed) a response cache in dir, capped at DefaultCacheMax.
func OpenCache(dir string) (*Cache, error) {
	return OpenCacheMax(dir, DefaultCacheMax)
}

// OpenCacheMax opens (creating it if needed) a response cache in dir, capped at max bytes:
// the oldest entries are evicted when a put takes it past the cap.
func OpenCacheMax(dir string, max int64) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("open response cache: no folder given")
	}
	if max <= 0 {
		return nil, fmt.Errorf("open response cache %s: a size cap of %d bytes", dir, max)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open response cache %s: %w", dir, err)
	}
	c := &Cache{dir: dir, max: max}
	entries, err := c.entries()
	if err != nil {
		return nil, fmt.Errorf("open response cache %s: %w", dir, err)
	}
	for _, e := range entries {
		c.size += e.size
	}
	return c, nil
}

// DefaultCacheDir is the response cache's folder when none is given: strata-eval/responses
// under the user's cache folder.
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("response cache folder: %w", err)
	}
	return filepath.Join(base, "strata-eval", "responses"), nil
}

// Dir is the cache's folder.
func (c *Cache) Dir() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// CacheKey is the hex SHA-256 of the engine name, the model, the server's identity, the
// request path and the exact request body, each length-prefixed so that no two requests share
// a key.
func CacheKey(engineName, model, server, path string, body []byte) string {
	h := sha256.New()
	for _, s := range [][]byte{[]byte(engineName), []byte(model), []byte(server), []byte(path), body} {
		fmt.Fprintf(h, "%d:", len(s))
		h.Write(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) file(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the stored response for key; false when there is none (or it cannot be read).
func (c *Cache) Get(key string) (*CachedResponse, bool) {
	if c == nil || len(key) < 2 {
		return nil, false
	}
	data, err := os.ReadFile(c.file(key))
	if err != nil {
		return nil, false
	}
	var r CachedResponse
	if err := json.Unmarshal(data, &r); err != nil || r.Key != key {
		return nil, false // a damaged entry is a miss; Put rewrites it
	}
	return &r, true
}

// Put stores a response under its key, atomically (temporary file and rename).
func (c *Cache) Put(r *CachedResponse) error {
	if c == nil {
		return nil
	}
	if len(r.Key) < 2 {
		return fmt.Errorf("cache put: bad key %q", r.Key)
	}
	if r.Stored.IsZero() {
		r.Stored = time.Now().UTC()
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("cache put %s: %w", r.Key, err)
	}
	path := c.file(r.Key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cache put %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cache put %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cache put %s: %w", path, err)
	}
	c.mu.Lock()
	c.size += int64(len(data))
	over := c.size > c.max
	c.mu.Unlock()
	if over {
		// evicted to 90% of the cap, so that the next puts do not walk the cache again
		if _, err := c.Prune(c.max / 10 * 9); err != nil {
			return fmt.Errorf("cache put: %w", err)
		}
	}
	return nil
}

// Len counts the stored responses.
func (c *Cache) Len() (int, error) {
	if c == nil {
		return 0, nil
	}
	entries, err := c.entries()
	return len(entries), err
}

// cacheEntry is one stored response file.
type cacheEntry struct {
	path string
	size int64
	mod  time.Time
}

// entries lists the stored responses.
func (c *Cache) entries() ([]cacheEntry, error) {
	var out []cacheEntry
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || filepath.Ext(p) != ".json" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, cacheEntry{path: p, size: info.Size(), mod: info.ModTime()})
		return nil
	})
	return out, err
}

// Prune evicts the oldest entries until the cache holds at most max bytes (0: every entry),
// and returns how many it removed.
func (c *Cache) Prune(max int64) (int, error) {
	if c == nil {
		return 0, nil
	}
	entries, err := c.entries()
	if err != nil {
		return 0, fmt.Errorf("prune response cache %s: %w", c.dir, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].mod.Before(entries[j].mod) })
	var size int64
	for _, e := range entries {
		size += e.size
	}
	removed := 0
	for _, e := range entries {
		if size <= max {
			break
		}
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("prune response cache: %w", err)
		}
		size -= e.size
		removed++
	}
	c.mu.Lock()
	c.size = size
	c.mu.Unlock()
	return removed, nil
}

// CacheServer is what the cache holds of one server.
type CacheServer struct {
	// Server is the server as identified when its answers were stored (http_identity.go).
	Server  string
	Entries int
	Bytes   int64
}

// CacheStats is what the cache holds: its entries and bytes, per server (most entries first).
type CacheStats struct {
	Dir     string
	Max     int64
	Entries int
	Bytes   int64
	Servers []CacheServer
}

// Stats reads every entry's server and size.
func (c *Cache) Stats() (CacheStats, error) {
	st := CacheStats{Dir: c.dir, Max: c.max}
	entries, err := c.entries()
	if err != nil {
		return st, fmt.Errorf("read response cache %s: %w", c.dir, err)
	}
	by := map[string]*CacheServer{}
	for _, e := range entries {
		var r struct {
			Engine string `json:"engine"`
			Server string `json:"server"`
		}
		server := "(unreadable)"
		if data, err := os.ReadFile(e.path); err == nil && json.Unmarshal(data, &r) == nil {
			server = r.Server
			if server == "" {
				server = "(not identified: " + r.Engine + ")"
			}
		}
		s := by[server]
		if s == nil {
			s = &CacheServer{Server: server}
			by[server] = s
		}
		s.Entries++
		s.Bytes += e.size
		st.Entries++
		st.Bytes += e.size
	}
	for _, s := range by {
		st.Servers = append(st.Servers, *s)
	}
	sort.Slice(st.Servers, func(i, j int) bool {
		a, b := st.Servers[i], st.Servers[j]
		return a.Entries > b.Entries || (a.Entries == b.Entries && a.Server < b.Server)
	})
	return st, nil
}
