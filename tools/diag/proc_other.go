//go:build !unix

package diag

import "os/exec"

// inGroup: without process groups, cancellation kills the process only.
func inGroup(*exec.Cmd) {}
