//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// ownGroup puts cmd in a process group of its own; cancelling it sends
// SIGTERM to the group (browsers.mjs stops its browser on it), and
// killGroup ends what is left.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}

// killGroup kills cmd's process group (what it started and left running).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
