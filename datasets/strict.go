package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/membench/membench/internal/badinput"
)

// InputError marks a problem with the user's dataset file or arguments
// (the CLI exits 2 on it), as opposed to a failure of the machine.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// bad formats an InputError; it wraps a badinput error, so the CLI exits 2
// on it without knowing this type.
func Bad(format string, a ...any) error { return &InputError{Err: badinput.Errorf(format, a...)} }

// IsInputError reports whether err (or anything it wraps) is an InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// DecodeField decodes raw into v and reports a type mismatch in the
// dataset's own terms ("qa[3].category: want a number, got \"x\"") rather
// than Go's ("locomoQA.qa.category of type int"). where names raw's place.
func DecodeField(raw json.RawMessage, v any, where string) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %v", where, err)
	}
	// te.Field is the dotted path of JSON keys inside v; find the value it
	// names so the message shows what the file holds.
	got := raw
	path := where
	if te.Field != "" {
		for _, k := range strings.Split(te.Field, ".") {
			var obj map[string]json.RawMessage
			if json.Unmarshal(got, &obj) != nil {
				break
			}
			sub, ok := obj[k]
			if !ok {
				break
			}
			got = sub
			if path == "" {
				path = k
			} else {
				path += "." + k
			}
		}
	}
	// A list whose element has the wrong type: name the element.
	if g := bytes.TrimSpace(got); len(g) > 0 && g[0] == '[' && te.Type != nil && te.Type.Kind() != reflect.Slice {
		var elems []json.RawMessage
		if json.Unmarshal(g, &elems) == nil {
			for i, el := range elems {
				if json.Unmarshal(el, reflect.New(te.Type).Interface()) != nil {
					got, path = el, fmt.Sprintf("%s[%d]", path, i)
					break
				}
			}
		}
	}
	if path == "" {
		path = "value"
	}
	want := wantType(te.Type)
	if g := bytes.TrimSpace(got); want == "a number" && te.Type.Kind() != reflect.Float64 && len(g) > 0 && (g[0] == '-' || (g[0] >= '0' && g[0] <= '9')) {
		want = "a whole number" // 3.5 where an int belongs
	}
	return fmt.Errorf("%s: want %s, got %s", path, want, Show(got))
}

// wantType names a Go type the way a dataset's documentation would.
func wantType(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Slice || t.Elem().Kind() == reflect.Struct || t.Elem().Kind() == reflect.Map {
			return "a list"
		}
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(wantType(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return wantType(t.Elem())
	}
	return t.String()
}

// show renders a JSON value for an error message, cut short.
func Show(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	}
	s := string(raw)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return oneLine(s)
}

// oneLine quotes text that would break a one-line message (newlines,
// control bytes, invalid UTF-8), and leaves the rest as written.
func oneLine(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 }) {
		return strconv.Quote(s)
	}
	return s
}

// ScalarText reads an answer: a string or a number (LoCoMo writes some
// years as integers); null or absent is empty. Objects, lists and booleans
// are refused: stringifying them would make gold text like {"obj": 1}.
func ScalarText(raw json.RawMessage, where string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%s: %v", where, err)
		}
		return s, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("%s: %v", where, err)
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("%s: want a string or a number, got %s", where, Show(raw))
}

// LineAt is the 1-based line holding byte offset off of data.
func LineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// utf8Reader passes bytes through and fails at the first one that is not
// part of valid UTF-8, naming its line, for files too big to hold whole.
type utf8Reader struct {
	r      io.Reader
	source string
	carry  []byte // an incomplete rune at the end of the last read
	off    int64  // bytes checked so far
	line   int
}

func NewUTF8Reader(r io.Reader, source string) *utf8Reader {
	return &utf8Reader{r: r, source: source, line: 1}
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	buf := append(u.carry, p[:n]...)
	u.carry = nil
	i := 0
	for i < len(buf) {
		if buf[i] < utf8.RuneSelf {
			if buf[i] == '\n' {
				u.line++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(buf[i:]) && err == nil {
				// Possibly a rune split across reads: check it next time.
				u.carry = append([]byte(nil), buf[i:]...)
				break
			}
			return 0, Bad("%s line %d (byte %d): not UTF-8 (byte 0x%02x); re-save the file as UTF-8 or re-fetch it with `membench datasets fetch`", u.source, u.line, u.off+int64(i), buf[i])
		}
		i += size
	}
	u.off += int64(i)
	return n, err
}

// who names an element by its id, or by its index when it has none.
func Who(kind string, i int, id string) string {
	if id != "" {
		return kind + " " + oneLine(id)
	}
	return kind + " " + strconv.Itoa(i)
}

// Required decodes a field that must be present.
func Required(raw json.RawMessage, v any, where, hint string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("field %q missing; %s", where, hint)
	}
	return DecodeField(raw, v, where)
}
