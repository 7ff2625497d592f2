// Package badinput marks errors caused by the user's input (a flag, a file,
// a field) as opposed to failures of the run itself. Library packages
// return these; only the command line (cmd/membench/clierr) turns them into
// exit code 2, so the engine knows nothing about exit codes.
package badinput

import (
	"errors"
	"fmt"
)

// Error is an input problem; its message names the flag, file or field and
// the fix.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf formats an input error; %w keeps the cause reachable.
func Errorf(format string, a ...any) error { return &Error{Err: fmt.Errorf(format, a...)} }

// Wrap marks err as an input error (nil stays nil). An error that already
// is one comes back unchanged, so wrapping twice does not nest.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{Err: err}
}

// Is reports whether err, or any error it wraps, is an input error: an
// *Error, or a library's own error type that says so with BadInput() (e.g.
// analysis.MixedError, which carries data the caller reads).
func Is(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return true
	}
	var bi interface{ BadInput() bool }
	return errors.As(err, &bi) && bi.BadInput()
}
