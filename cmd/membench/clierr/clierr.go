// Package clierr carries the CLI's exit-code convention: 0 ok, 1 the run
// failed, 2 bad input or usage. The error kind itself lives in
// internal/badinput, which library packages return; this package only maps
// it to the exit code.
package clierr

import (
	"github.com/membench/membench/internal/badinput"
)

// Bad formats a bad-input error (a command's own flag check).
func Bad(format string, a ...any) error { return badinput.Errorf(format, a...) }

// AsBad marks err as bad input (nil stays nil).
func AsBad(err error) error { return badinput.Wrap(err) }

// Code maps an error to the process exit code.
func Code(err error) int {
	switch {
	case err == nil:
		return 0
	case badinput.Is(err):
		return 2
	}
	return 1
}
