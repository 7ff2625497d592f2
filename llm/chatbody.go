package llm

import (
	"bytes"
	"context"
	"io"
	"net/http/httptrace"
	"sync/atomic"
)

// bodyBuf is a request body's bytes, reused for a later request once
// this one is done and every copy of the body the transport was given has
// been written whole. net/http may still be writing a body after Do
// returns (a server that replies before reading it), and it learns when a
// body is done only through Close on a reader type it does not know,
// which makes it flush the headers in a write of their own (and copy the
// body through a new buffer): the body is a bytes.Reader instead, and a
// body counts as done when httptrace's WroteRequest reports its write
// succeeded. A write that failed, or a body never written, keeps its
// reference: that buffer is left to the garbage collector, never reused
// while a reader might hold it.
type bodyBuf struct {
	b    []byte
	refs atomic.Int32
}

// bodyBufs holds idle body buffers (not a sync.Pool: a pool is emptied at
// every GC).
var bodyBufs = make(chan *bodyBuf, 64)

func getBodyBuf() *bodyBuf {
	var r *bodyBuf
	select {
	case r = <-bodyBufs:
		r.b = r.b[:0]
	default:
		r = &bodyBuf{b: make([]byte, 0, 4<<10)}
	}
	r.refs.Store(1) // the request's own
	return r
}

// release drops one reference; the last puts the buffer back.
func (r *bodyBuf) release() {
	if r.refs.Add(-1) != 0 || cap(r.b) > 1<<20 {
		return
	}
	select {
	case bodyBufs <- r:
	default:
	}
}

// body is one copy of the body for the transport (the first, or one for
// a retry or redirect through GetBody).
func (r *bodyBuf) body() io.ReadCloser {
	r.refs.Add(1)
	return io.NopCloser(bytes.NewReader(r.b))
}

// trace releases a body once its write succeeded.
func (r *bodyBuf) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			r.release()
		}
	}})
}
