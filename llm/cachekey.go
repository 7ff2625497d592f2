package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"
)

// keyHasher writes a cacheKey's JSON, byte for byte what json.Marshal
// writes for it, straight into sha256: the prompt is never copied into an
// encoder's buffer, and its bytes are escaped a run at a time
// (encoding/json's reflection and per-byte escaping were 4% of a warm
// LoCoMo rerun's CPU). TestCacheKeyIsMarshalHash and FuzzCacheKeyHash hold
// it to json.Marshal.
type keyHasher struct {
	h   hash.Hash
	buf []byte // small pieces gathered before each write
}

var keyHashers = sync.Pool{New: func() any { return &keyHasher{h: sha256.New(), buf: make([]byte, 0, 256)} }}

// hashOf returns the hex sha256 of k's JSON; ok is false for a key
// json.Marshal would refuse (a temperature that is NaN or infinite).
func hashOf(k cacheKey) (sum string, ok bool) {
	if math.IsNaN(k.Temperature) || math.IsInf(k.Temperature, 0) {
		return "", false
	}
	w := keyHashers.Get().(*keyHasher)
	defer keyHashers.Put(w)
	w.h.Reset()
	w.buf = w.buf[:0]
	w.raw(`{"v":`)
	w.buf = strconv.AppendInt(w.buf, int64(k.Version), 10)
	w.raw(`,"backend":`)
	w.str(k.Backend)
	w.raw(`,"model":`)
	w.str(k.Model)
	w.raw(`,"base_url":`)
	w.str(k.BaseURL)
	w.raw(`,"kind":`)
	w.str(k.Kind)
	w.raw(`,"messages":`)
	if k.Messages == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i, m := range k.Messages {
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"role":`)
			w.str(m.Role)
			w.raw(`,"content":`)
			w.str(m.Content)
			w.raw("}")
		}
		w.raw("]")
	}
	w.raw(`,"temperature":`)
	w.buf = appendFloat(w.buf, k.Temperature)
	w.raw(`,"max_tokens":`)
	w.buf = strconv.AppendInt(w.buf, int64(k.MaxTokens), 10)
	w.raw(`,"json":`)
	w.buf = strconv.AppendBool(w.buf, k.JSON)
	w.raw(`,"seed":`)
	if k.Seed == nil {
		w.raw("null")
	} else {
		w.buf = strconv.AppendInt(w.buf, int64(*k.Seed), 10)
	}
	w.raw(`,"choices":`)
	if k.Choices == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i, c := range k.Choices {
			if i > 0 {
				w.raw(",")
			}
			w.str(c)
		}
		w.raw("]")
	}
	w.raw("}")
	w.flush()
	var s [sha256.Size]byte
	return hex.EncodeToString(w.h.Sum(s[:0])), true
}

func (w *keyHasher) raw(s string) { w.buf = append(w.buf, s...) }

func (w *keyHasher) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

// long writes s (a run needing no escape) directly when it is long.
func (w *keyHasher) long(s string) {
	if len(s) < 128 {
		w.buf = append(w.buf, s...)
		if len(w.buf) >= 4<<10 {
			w.flush()
		}
		return
	}
	w.flush()
	w.h.Write([]byte(s)) // sha256's Write does not keep the slice
}

const hexDigits = "0123456789abcdef"

// keySafe marks the ASCII bytes Marshal writes as they are.
var keySafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// str is encoding/json's string encoding with HTML escaping (Marshal's):
// quotes, backslashes and control bytes escaped (\b \f \n \r \t by name),
// <, > and & as \u003c \u003e \u0026, U+2028 and U+2029 as \u2028 \u2029,
// and each byte of invalid UTF-8 as \ufffd.
func (w *keyHasher) str(s string) {
	w.buf = append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if keySafe[b] {
				i++
				continue
			}
			w.long(s[start:i])
			switch b {
			case '\\', '"':
				w.buf = append(w.buf, '\\', b)
			case '\b':
				w.buf = append(w.buf, '\\', 'b')
			case '\f':
				w.buf = append(w.buf, '\\', 'f')
			case '\n':
				w.buf = append(w.buf, '\\', 'n')
			case '\r':
				w.buf = append(w.buf, '\\', 'r')
			case '\t':
				w.buf = append(w.buf, '\\', 't')
			default:
				w.buf = append(w.buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			w.long(s[start:i])
			w.buf = append(w.buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			w.long(s[start:i])
			w.buf = append(w.buf, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	w.long(s[start:])
	w.buf = append(w.buf, '"')
}

// appendFloat is encoding/json's float64 format: shortest digits, 'e'
// notation below 1e-6 and from 1e21, with e-07 written e-7.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
