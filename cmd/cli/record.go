package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/recorder"
)

func newRecordCmd(io *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "record",
		Short: "Record what a client really sends: an HTTP recording proxy and an MCP stdio tap",
		Example: examples("# relay an MCP stdio server (here cat stands for one) and record the session",
			"strata-eval record mcp --out session.jsonl -- cat"),
		Long: helpWithExit(`Commands that sit between a client and its server and record the traffic in a form replay
reads (docs/recording.md).`),
	}
	c.AddCommand(newRecordHTTPCmd(io), newRecordMCPCmd(io))
	return c
}

// RecordHTTPOptions are the flags and streams of `record http`.
type RecordHTTPOptions struct {
	IO       *IOStreams
	Listen   string
	Upstream string
	Out      string
}

func newRecordHTTPCmd(io *IOStreams) *cobra.Command {
	opts := &RecordHTTPOptions{IO: io}
	c := &cobra.Command{
		Use:   "http --listen ADDR --upstream URL --out FILE",
		Short: "A reverse proxy in front of an OpenAI- or Anthropic-compatible server that records every exchange",
		Example: examples("# in front of llama-server on :8080; point the client at :8081; Ctrl-C ends the recording",
			"# strata-eval record http --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 --out traffic.httprr",
			"# then replay it against the same server",
			"# strata-eval replay --engine http --endpoint http://127.0.0.1:8080 traffic.httprr"),
		Long: helpWithExit(`Listens on --listen and forwards every request to --upstream unchanged, streaming each
response back as it comes (SSE included). Each complete exchange is appended to FILE, an httprr
trace (created 0600) that replay and corpus inspect read: the request body, the response with
the usage and timings the server reported. Bodies go through disk, never memory; Authorization,
API-key and cookie headers are never written, and credentials in URLs are redacted. An exchange
cut short (the client gone, the upstream down: 502) is not recorded and says so on stderr.
Ctrl-C stops the proxy and leaves FILE holding whole exchanges only.

Exit status 0 after Ctrl-C; 1 when the address cannot be listened on or FILE cannot be written;
2 for a bad flag, or a FILE that exists and is not an httprr trace.`),
		Args: wrapArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runRecordHTTP(cmd.Context(), opts) },
	}
	f := c.Flags()
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:8081", "address to listen on")
	f.StringVar(&opts.Upstream, "upstream", "", "the server to forward to (http://127.0.0.1:8080)")
	f.StringVar(&opts.Out, "out", "", "the httprr trace to append to")
	return c
}

func runRecordHTTP(ctx context.Context, opts *RecordHTTPOptions) error {
	u, err := url.Parse(opts.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("--upstream must be an http or https URL, not %q", opts.Upstream)
	}
	if opts.Out == "" {
		return usageErrorf("--out FILE is required")
	}
	stats, err := recorder.RecordHTTP(ctx, recorder.HTTPOptions{
		Listen: opts.Listen, Upstream: u, Out: opts.Out, Log: opts.IO.ErrOut,
		Ready: func(addr string) {
			fmt.Fprintf(opts.IO.ErrOut, "record http: http://%s → %s, recording to %s (Ctrl-C stops)\n", addr, u.Redacted(), opts.Out)
		},
	})
	if errors.Is(err, recorder.ErrNotRecording) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "record http: %d exchange(s) recorded to %s, %d not recorded\n", stats.Recorded, opts.Out, stats.NotRecorded)
	return nil
}

// RecordMCPOptions are the flags and streams of `record mcp`.
type RecordMCPOptions struct {
	IO     *IOStreams
	Out    string
	Server []string
}

func newRecordMCPCmd(io *IOStreams) *cobra.Command {
	opts := &RecordMCPOptions{IO: io}
	c := &cobra.Command{
		Use:   "mcp --out FILE -- SERVER [ARG...]",
		Short: "Start an MCP stdio server and record every frame between it and the client",
		Example: examples("# a client's config names this command instead of the server; here cat stands for the server",
			"strata-eval record mcp --out session.jsonl -- cat"),
		Long: helpWithExit(`Starts the MCP server SERVER with its arguments and relays the client's stdin to it and its
stdout back, byte for byte; the server's stderr passes through. Every frame, both ways, is
appended to FILE (created 0600) as a JSON line {"ts":…,"dir":"client->server"|"server->client",
"message":FRAME}: an MCP stdio transcript replay reads. A line that is not JSON is relayed and
recorded as a string, which replay reports as a problem at its line. Point the client's MCP
server command at strata-eval record mcp --out FILE -- SERVER ARG... instead of SERVER.

Exit status 0 when the server exits cleanly (or on Ctrl-C); 1 when it cannot be started, exits
with a failure, or FILE cannot be written; 2 for a bad flag or no SERVER.`),
		Args: wrapArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server = args
			return runRecordMCP(cmd.Context(), opts)
		},
	}
	c.Flags().SetInterspersed(false) // flags after SERVER are the server's
	c.Flags().StringVar(&opts.Out, "out", "", "the transcript to append to")
	return c
}

func runRecordMCP(ctx context.Context, opts *RecordMCPOptions) error {
	if opts.Out == "" {
		return usageErrorf("--out FILE is required")
	}
	return recorder.RecordMCP(ctx, recorder.MCPOptions{Out: opts.Out, Server: opts.Server,
		Stdin: opts.IO.In, Stdout: opts.IO.Out, Stderr: opts.IO.ErrOut})
}
