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
	"time"
)

// Cache stores server responses on disk, one file per request, keyed by a hash of the engine,
// the model and the exact request (path and body). Only successful responses and refusals are
// stored; rate limits, server errors and transport failures never are. A nil *Cache stores
// nothing and finds nothing.
type Cache struct {
	dir string
}

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

// OpenCache opens (creating it if needed) a response cache in dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("open response cache: no folder given")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open response cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
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
	return nil
}

// Len counts the stored responses.
func (c *Cache) Len() (int, error) {
	if c == nil {
		return 0, nil
	}
	n := 0
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Ext(p) == ".json" {
			n++
		}
		return nil
	})
	return n, err
}
