//go:build !unix

package ollamaserver

import "os/exec"

// ownGroup leaves cmd as it is: process groups are a unix matter.
func ownGroup(*exec.Cmd) {}

// killGroup ends nothing beyond the server, which the test's cleanup kills.
func killGroup(*exec.Cmd) {}
