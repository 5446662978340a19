package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadBuildVersion: the commit and its date come from the VCS stamp of a build in a clone,
// from the pseudo-version go install records, or from the -ldflags values.
func TestReadBuildVersion(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "75c7896abcdef0123456789abcdef0123456789a"}, {Key: "vcs.time", Value: "2026-12-01T21:30:00Z"},
		{Key: "vcs.modified", Value: "true"}}}
	v := readBuildVersion(stamped, true)
	if v.Commit != "75c7896abcdef0123456789abcdef0123456789a" || v.Date != "2026-12-01T21:30:00Z" || !v.Modified || v.Go != "go1.26.8" || v.Version != Version {
		t.Errorf("VCS stamp: %+v", v)
	}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201213000-75c7896abcde"}}
	v = readBuildVersion(installed, true)
	if v.Commit != "75c7896abcde" || v.Date != "2026-12-01T21:30:00Z" || v.Version != "v0.0.0-20261201213000-75c7896abcde" {
		t.Errorf("pseudo-version: %+v", v)
	}
	var b strings.Builder
	if err := readBuildVersion(nil, false).write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "commit  unknown (built without VCS information") {
		t.Errorf("no build information:\n%s", b.String())
	}
}

// TestVersionCommand prints the version, the commit, the date and the Go version.
func TestVersionCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "version")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"strata-eval " + Version, "\ncommit  ", "\ndate    ", "\ngo      go1."} {
		if !strings.Contains(out, w) {
			t.Errorf("version lacks %q:\n%s", w, out)
		}
	}
}
