package view

import (
	"context"
	"net"
)

// Methods only tests use, kept out of the binary.

// Sizes reports the JSON size and the gzipped size in bytes of what was
// packed so far: the index, and the transcript chunks read until now (all
// of them after an export).
func (e *Encoded) Sizes() (raw, gz int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.raw, e.gz
}

// Serve serves the app on ln until ctx ends, only to requests addressed
// to ln by a loopback name (OwnHostOnly).
func (e *Encoded) Serve(ctx context.Context, ln net.Listener) error {
	return serve(ctx, ln, e.Handler())
}
