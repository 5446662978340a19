package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is the release version of strata-eval; builds may set it with -ldflags -X.
var Version = "0.1.0-dev"

// versionString reports the version with the VCS revision when the build knows it.
func versionString() string {
	v := Version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		v += " " + info.GoVersion
	}
	return v
}

func newVersionCmd(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of strata-eval",
		Args:  wrapArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(io.Out, "strata-eval %s\n", versionString())
			return err
		},
	}
}
