package systems

import (
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
)

// Parse reads "k=v" pairs (as given to --opt).
func Parse(pairs []string) (membench.Options, error) {
	o := membench.Options{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, badinput.Errorf("--opt %q: want key=value, e.g. --opt k=20", p)
		}
		o[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return o, nil
}

// Reader reads a system's options one after another and keeps the first
// error, so parsing a config is a list of reads and checks with one error
// test at the end; the error is the one a read-and-return-at-once parser
// would give.
type Reader struct {
	o   membench.Options
	Err error
}

// Read starts reading o.
func Read(o membench.Options) *Reader { return &Reader{o: o} }

func (r *Reader) keep(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Failf records a check's error unless an earlier one is recorded.
func (r *Reader) Failf(format string, args ...any) { r.keep(fmt.Errorf(format, args...)) }

// Int reads an integer option.
func (r *Reader) Int(key string, def int) int {
	n, err := r.o.Int(key, def)
	r.keep(err)
	return n
}

// Min reads an integer option that must be at least min.
func (r *Reader) Min(key string, def, min int) int {
	n := r.Int(key, def)
	if n < min {
		r.Failf("option %s=%d: want an integer of at least %d", key, n, min)
	}
	return n
}

// Float reads a float option.
func (r *Reader) Float(key string, def float64) float64 {
	f, err := r.o.Float(key, def)
	r.keep(err)
	return f
}

// Bool reads a boolean option.
func (r *Reader) Bool(key string, def bool) bool {
	b, err := r.o.Bool(key, def)
	r.keep(err)
	return b
}

// String reads a string option, checked against allowed when given.
func (r *Reader) String(key, def string, allowed ...string) string {
	s, err := r.o.String(key, def, allowed...)
	r.keep(err)
	return s
}
