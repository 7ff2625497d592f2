// Package jsonenc writes JSON by appending, byte for byte as encoding/json's
// Marshal writes it, for the records and requests made once or more per
// model request, where encoding/json's reflection, per-call encoder state
// and output copies are paid on every request.
//
// Types encoded by hand implement Marshaler; Append encodes any value,
// falling back to encoding/json for the rest and for values a hand encoder
// declines (a NaN, a time outside RFC 3339), so what is written and every
// error are encoding/json's. The tests hold every function here to
// json.Marshal (fuzzed), and each hand-encoded type has a test that sets
// every field by reflection and compares with json.Marshal, so a field
// added later without teaching its encoder fails a test.
package jsonenc

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Marshaler is a type that appends its own JSON (json.Marshal's bytes) to
// b. ok false means it declined (a value json.Marshal refuses or that the
// hand encoder does not handle): Append then uses encoding/json, and the
// returned slice is ignored.
type Marshaler interface {
	AppendJSON(b []byte) (out []byte, ok bool)
}

// Append appends v's JSON as json.Marshal writes it: through v's own
// AppendJSON when it has one and accepts, otherwise through json.Marshal
// (with its error).
func Append(b []byte, v any) ([]byte, error) {
	if m, ok := v.(Marshaler); ok {
		if out, ok := m.AppendJSON(b); ok {
			return out, nil
		}
	}
	js, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, js...), nil
}

// Value appends v with json.Marshal, for the parts of a hand-encoded
// record not worth a hand encoder (free-form maps); ok is false when
// json.Marshal fails.
func Value(b []byte, v any) ([]byte, bool) {
	js, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, js...), true
}

const hexDigits = "0123456789abcdef"

// safe marks the ASCII bytes Marshal writes as they are: not a control
// byte, quote, backslash, or one of HTML's <, > and &.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// String appends s quoted as Marshal writes it (HTML escaping on): quotes,
// backslashes and control bytes escaped (\b \f \n \r \t by name, others as
// \u00XX), <, > and & as \u003c \u003e \u0026, U+2028 and U+2029 as
// \u2028 \u2029, and each byte of invalid UTF-8 as \ufffd. Runs needing no
// escape are copied whole.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Strings appends a []string as Marshal writes it: null for nil.
func Strings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, s)
	}
	return append(b, ']')
}

// Finite reports whether Marshal accepts f (it refuses NaN and ±Inf).
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Float appends f as Marshal writes a float64 (bits 64) or float32
// (bits 32, f the float32's value): shortest digits, 'e' notation below
// 1e-6 and from 1e21, with e-07 written e-7. f must be Finite.
func Float(b []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Int appends n.
func Int(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// Bool appends true or false.
func Bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// Time appends t as time.Time's MarshalJSON writes it (RFC 3339 with
// nanoseconds, quoted); ok is false for a time it refuses (a year outside
// [0, 9999], an offset of 24 hours or more).
func Time(b []byte, t time.Time) ([]byte, bool) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return b, false
	}
	return append(b, '"'), true
}

// Slice appends s as Marshal writes a slice of a hand-encoded type: null
// for nil; ok is false if an element declines.
func Slice[T Marshaler](b []byte, s []T) ([]byte, bool) {
	if s == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = v.AppendJSON(b); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}
