package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/engine"
)

// CacheOptions are the flags and streams of `cache`.
type CacheOptions struct {
	IO  *IOStreams
	Dir string
	// Prune evicts the oldest entries down to MaxMB; Clear removes every entry.
	Prune bool
	MaxMB int64
	Clear bool
}

func newCacheCmd(io *IOStreams) *cobra.Command {
	opts := &CacheOptions{IO: io}
	c := &cobra.Command{
		Use:     "cache",
		Example: examples("strata-eval cache --cache-dir responses", "strata-eval cache --cache-dir responses --prune --max-mb 100", "strata-eval cache --cache-dir responses --clear"),
		Short:   "Show the response cache of the http engine (entries, size, per server); prune or clear it",
		Long: helpWithExit(`Shows the response cache the http engine keeps (--cache-dir, else strata-eval/responses in
the user's cache folder): its entries and size, and per server, as each was identified when its
answers were stored (what the server said of itself, the client settings that change a count and
the counts of a fixed text and picture). The cache is capped (--cache-max-mb of replay, 1024 MB by
default): past the cap the oldest entries are evicted. --prune evicts the oldest entries down to
--max-mb; --clear removes every entry.`),
		Args: wrapArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCache(cmd.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Dir, "cache-dir", "", "response cache folder (default: strata-eval/responses in the user's cache folder)")
	c.Flags().BoolVar(&opts.Prune, "prune", false, "evict the oldest entries until the cache holds at most --max-mb")
	c.Flags().Int64Var(&opts.MaxMB, "max-mb", engine.DefaultCacheMax>>20, "size --prune leaves the cache at, in MB")
	c.Flags().BoolVar(&opts.Clear, "clear", false, "remove every entry")
	return c
}

func runCache(_ context.Context, opts *CacheOptions) error {
	if opts.Prune && opts.Clear {
		return usageErrorf("--prune and --clear: give one")
	}
	if opts.MaxMB < 0 {
		return usageErrorf("--max-mb %d: want 0 or more", opts.MaxMB)
	}
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = engine.DefaultCacheDir(); err != nil {
			return err
		}
	}
	c, err := engine.OpenCache(dir)
	if err != nil {
		return err
	}
	if opts.Prune || opts.Clear {
		keep := opts.MaxMB << 20
		if opts.Clear {
			keep = 0
		}
		n, err := c.Prune(keep)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "strata-eval: %d entr(ies) removed\n", n)
	}
	st, err := c.Stats()
	if err != nil {
		return err
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "response cache %s: %d entr(ies), %s (cap %s)\n", st.Dir, st.Entries, megabytes(st.Bytes), megabytes(st.Max))
	if len(st.Servers) == 0 {
		return nil
	}
	fmt.Fprintf(out, "%8s  %9s  %s\n", "entries", "size", "server")
	for _, s := range st.Servers {
		fmt.Fprintf(out, "%8d  %9s  %s\n", s.Entries, megabytes(s.Bytes), s.Server)
	}
	return nil
}

// megabytes writes a size in MB with one decimal.
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
