//go:build unix

package ollamaserver

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that the model runners Ollama starts
// can be ended with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends the process group of the started cmd: the server and its runners.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
