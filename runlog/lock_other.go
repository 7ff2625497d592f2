//go:build !unix

package runlog

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked")

// flock is a no-op where syscall.Flock does not exist: run directories
// are not locked there.
func flock(*os.File) error { return nil }
