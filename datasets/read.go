package datasets

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/membench/membench/internal/badinput"
)

// Dataset files are read with two guards: no more than a size cap is ever
// read (a mistyped --data /dev/zero ends at the cap, not when memory runs
// out), and the JSON is checked as it streams in, so a file that is not
// JSON fails at its first bad byte rather than after being read whole.

// DefaultMaxBytes is the size cap when LoadOptions leaves MaxBytes 0:
// above every registered dataset (LongMemEval M is the largest).
const DefaultMaxBytes int64 = 4 << 30

// MaxBytesFlag is the command-line flag that raises the cap; errors name it.
const MaxBytesFlag = "--max-data-size"

// ReadFile reads a whole dataset file under the size cap (max <= 0 means
// DefaultMaxBytes), for loaders of small files that parse bytes; a file
// that cannot be opened is an input error ending with hint.
func ReadFile(path string, max int64, hint string) ([]byte, error) {
	return readCapped(path, hint, NewCapReader(nil, path, LoadOptions{MaxBytes: max}.Cap()))
}

// ReadInputFile reads a whole input file that is not a dataset (an answer
// key, a wrong-answer file, published results) under DefaultMaxBytes. No
// flag raises that cap: a file that large is the wrong file.
func ReadInputFile(path, hint string) ([]byte, error) {
	return readCapped(path, hint, &capReader{source: path, max: DefaultMaxBytes})
}

func readCapped(path, hint string, c *capReader) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badinput.Errorf("%s: %v; %s", path, err, hint)
	}
	defer f.Close()
	c.r = f
	b, err := io.ReadAll(c)
	if err != nil && !IsInputError(err) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, err
}

func (o LoadOptions) Cap() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// capReader passes at most max bytes of r through, then fails with an
// input error naming the file, the cap and the flag that raises it (flag:
// none for files no flag governs).
type capReader struct {
	r      io.Reader
	source string
	max, n int64
	flag   string
}

func NewCapReader(r io.Reader, source string, max int64) *capReader {
	return &capReader{r: r, source: source, max: max, flag: MaxBytesFlag}
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, c.tooBig()
	}
	// Ask for one byte past the cap at most, to learn whether there is one.
	if room := c.max + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n - 1, c.tooBig()
	}
	return n, err
}

func (c *capReader) tooBig() error {
	if c.flag == "" {
		return Bad("%s is larger than %s, the most membench reads of an input file of this kind; check that it is the right file", c.source, ByteSize(c.max))
	}
	return Bad("%s is larger than %s, the most membench reads of a dataset file; if it is the right file, raise the cap with %s (e.g. %s %s)",
		c.source, ByteSize(c.max), c.flag, c.flag, ByteSize(2*c.max))
}

// ByteSize writes n in the largest binary unit that keeps it whole enough
// to read ("4GiB", "1.5MiB", "512B"); ParseByteSize reads it back.
func ByteSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d%s", int64(f), units[u])
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".") + units[u]
}

// ParseByteSize reads a size: a number of bytes, or a number with a unit
// (KiB, MiB, GiB, TiB or K, M, G, T: powers of 1024; KB, MB, GB, TB:
// powers of 1000; case is free), e.g. "4GiB", "1.5G", "500MB".
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}[unit]
	if mult == 0 || num == "" || strings.Trim(num, "0123456789.") != "" || strings.Count(num, ".") > 1 {
		return 0, fmt.Errorf("%q is not a size such as 4GiB, 500MB or 1048576", s)
	}
	var f float64
	if _, err := fmt.Sscan(num, &f); err != nil {
		return 0, fmt.Errorf("%q is not a size such as 4GiB, 500MB or 1048576", s)
	}
	f *= mult
	if f >= 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(f), nil
}

// ListChecker reads a whole JSON value that must be a list, checking its
// syntax and UTF-8 as it streams, without keeping it. what describes the
// expected file for messages; line, when set, finds the line of a byte
// offset for messages.
type ListChecker struct {
	Source, What string
	List         string // "sample list", "item list"
	Line         func(off int64) (int, bool)
}

// check reads r to its end.
func (c ListChecker) Check(r io.Reader) error {
	d := jsontext.NewDecoder(NewUTF8Reader(r, c.Source), Permissive...)
	if err := c.Open(d); err != nil {
		return err
	}
	if err := d.SkipValue(); err != nil {
		return c.Syntax(err)
	}
	return c.Close(d)
}

// Permissive decodes what encoding/json accepts: repeated names and
// escapes of lone surrogates are the careful decoders' to judge.
var Permissive = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// open checks that d's value is a list, leaving the list unread.
func (c ListChecker) Open(d *jsontext.Decoder) error {
	switch k := d.PeekKind(); k {
	case '[':
		return nil
	case 0:
		_, err := d.ReadToken()
		if err == io.EOF {
			return Bad("%s is empty; %s", c.Source, c.What)
		}
		return c.Syntax(err)
	default:
		v, err := d.ReadValue()
		if err != nil {
			return c.Syntax(err)
		}
		return Bad("%s: %s, got %s first", c.Source, c.What, Show(json.RawMessage(v)))
	}
}

// close checks that nothing but white space follows the list.
func (c ListChecker) Close(d *jsontext.Decoder) error {
	v, err := d.ReadValue()
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		return Bad("%s: text after the closing ] of the %s (%s); remove it", c.at(d.InputOffset()-int64(len(v))), c.List, Show(json.RawMessage(v)))
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Bad("%s: text after the closing ] of the %s; remove it", c.at(se.ByteOffset), c.List)
	}
	return c.Syntax(err)
}

// at names a place in the file: "FILE line L (byte B)", or "FILE byte B"
// when the line is not known.
func (c ListChecker) at(off int64) string {
	if c.Line != nil {
		if l, ok := c.Line(off); ok {
			return fmt.Sprintf("%s line %d (byte %d)", c.Source, l, off)
		}
	}
	return fmt.Sprintf("%s byte %d", c.Source, off)
}

// syntax turns a decoder error into a one-line input error at its place.
// Errors that already are input errors (the UTF-8 check, the size cap)
// pass through; a failed read stays a plain error.
func (c ListChecker) Syntax(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	if badinput.Is(err) {
		return err
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Bad("%s: the file ends inside a value (cut short?); fix the file or re-fetch it with `membench datasets fetch`", c.Source)
		}
		return fmt.Errorf("read %s: %w", c.Source, err)
	}
	msg := strings.TrimPrefix(se.Err.Error(), "jsontext: ")
	if errors.Is(se.Err, io.ErrUnexpectedEOF) {
		msg = "the file ends inside a value (cut short?)"
	}
	return Bad("%s: malformed JSON: %s; fix the file or re-fetch it with `membench datasets fetch`", c.at(se.ByteOffset), oneLine(msg))
}

// FileLine finds the line of byte off of a regular file by reading up to
// it again (only when a message needs it).
func FileLine(path string) func(off int64) (int, bool) {
	return func(off int64) (int, bool) {
		if off == 0 {
			return 1, true
		}
		f, err := os.Open(path)
		if err != nil {
			return 0, false
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() < off {
			return 0, false
		}
		br := bufio.NewReaderSize(io.LimitReader(f, off), 1<<20)
		line := 1
		for {
			chunk, err := br.ReadSlice('\n')
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				line++
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return line, err == io.EOF
			}
		}
	}
}
