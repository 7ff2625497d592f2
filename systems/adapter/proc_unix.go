//go:build unix

package adapter

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the child in its own process group, so killing it also
// ends what it started (sh -c "python3 m.py" leaves python holding stdout).
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(c *exec.Cmd) {
	if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil {
		c.Process.Kill()
	}
}
