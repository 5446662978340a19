package cli

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
)

// Version is the release version of strata-eval; builds may set it with -ldflags -X.
var Version = "0.1.0-dev"

// Commit and BuildDate may be set with -ldflags -X (make build does) when the build records no
// VCS information (GOFLAGS=-buildvcs=false, a source tree without .git).
var (
	Commit    = ""
	BuildDate = ""
)

// buildVersion is what a binary knows of where it comes from.
type buildVersion struct {
	Version  string
	Commit   string
	Date     string // the commit's date (vcs.time, a pseudo-version's) or the build's (BuildDate)
	Modified bool   // built from a tree with uncommitted changes
	Go       string
}

// pseudoVersion is the tail of a Go pseudo-version (v0.0.0-20261201213000-abcdef123456): the
// commit's UTC time and the first 12 hex digits of its hash, what `go install …@latest` records.
var pseudoVersion = regexp.MustCompile(`(\d{14})-([0-9a-f]{12})(\+incompatible)?$`)

// readBuildVersion reads the commit and its date from the build information: the VCS stamp
// (vcs.revision, vcs.time, vcs.modified) of a build in a clone, else the pseudo-version of a
// module installed with go install, else the -ldflags values.
func readBuildVersion(info *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Version: Version, Commit: Commit, Date: BuildDate}
	if !ok || info == nil {
		return v
	}
	v.Go = info.GoVersion
	if mv := info.Main.Version; mv != "" && mv != "(devel)" {
		v.Version = mv
		if m := pseudoVersion.FindStringSubmatch(mv); m != nil {
			v.Commit = m[2]
			if t, err := time.Parse("20060102150405", m[1]); err == nil {
				v.Date = t.UTC().Format(time.RFC3339)
			}
		}
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Date = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// write prints the version, the commit and its date, and the Go version.
func (v buildVersion) write(w io.Writer) error {
	commit, date := v.Commit, v.Date
	if commit == "" {
		commit = "unknown (built without VCS information; `make build` records it)"
	} else if v.Modified {
		commit += " (with uncommitted changes)"
	}
	if date == "" {
		date = "unknown"
	}
	goVersion := v.Go
	if goVersion == "" {
		goVersion = "unknown"
	}
	_, err := fmt.Fprintf(w, "strata-eval %s\ncommit  %s\ndate    %s\ngo      %s\n", v.Version, commit, date, goVersion)
	return err
}

func newVersionCmd(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Example: examples("strata-eval version"),
		Short:   "Print the version of strata-eval, its commit and date, and the Go version",
		Long: helpWithExit(`Prints the version, the commit the binary was built from and its date, and the Go version,
read from the build information (runtime/debug.ReadBuildInfo): the VCS stamp of a build in a clone,
the pseudo-version of go install …@latest, or what make build records with -ldflags.`),
		Args: wrapArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return readBuildVersion(debug.ReadBuildInfo()).write(io.Out)
		},
	}
}
