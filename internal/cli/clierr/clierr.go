// Package clierr carries the CLI's exit-code convention: 0 ok, 1 the run
// failed, 2 bad input or usage. Commands wrap input problems with Bad so
// main can exit 2 with a one-line message that names the file/flag and fix.
package clierr

import (
	"errors"
	"fmt"
)

// BadInput marks an error caused by the user's input (exit code 2).
type BadInput struct{ Err error }

func (b *BadInput) Error() string { return b.Err.Error() }
func (b *BadInput) Unwrap() error { return b.Err }

// Bad formats a bad-input error.
func Bad(format string, a ...any) error { return &BadInput{Err: fmt.Errorf(format, a...)} }

// AsBad wraps err as bad input (nil stays nil).
func AsBad(err error) error {
	if err == nil {
		return nil
	}
	var b *BadInput
	if errors.As(err, &b) {
		return err
	}
	return &BadInput{Err: err}
}

// Code maps an error to the process exit code.
func Code(err error) int {
	if err == nil {
		return 0
	}
	var b *BadInput
	if errors.As(err, &b) {
		return 2
	}
	return 1
}
