package datasets

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

// loaders are both file loaders, for tests that hold for either.
var loaders = map[string]func(string, LoadOptions) (*Dataset, error){
	"locomo":      LoadLoCoMo,
	"longmemeval": LoadLongMemEval,
}

// checkRefusal: err is a one-line input error naming the file and holding want.
func checkRefusal(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s accepted", path)
	}
	msg := err.Error()
	if !IsInputError(err) || !strings.HasPrefix(msg, path) || !strings.Contains(msg, want) || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error %q (%T); want one input-error line starting with %s and holding %q", msg, err, path, want)
	}
}

// /dev/zero is refused at its first byte, not read until memory runs out.
func TestDevZeroFailsAtTheFirstByte(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for name, load := range loaders {
		t.Run(name, func(t *testing.T) {
			_, err := load("/dev/zero", LoadOptions{})
			checkRefusal(t, err, "/dev/zero", "line 1 (byte 0): malformed JSON: invalid character")
		})
	}
}

// Files that are not the expected JSON fail at their first bad byte, named
// by line and byte.
func TestBrokenFilesNameTheirFirstBadByte(t *testing.T) {
	locomo := SampleJSON()
	lme, err := os.ReadFile(filepath.Join("testdata", "longmemeval_mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, loader string
		data         []byte
		want         string
	}{
		{"html page", "locomo", []byte("<!DOCTYPE html>\n<html>Not Found</html>"), "line 1 (byte 0): malformed JSON: invalid character '<'"},
		{"html page", "longmemeval", []byte("<!DOCTYPE html>\n<html>Not Found</html>"), "line 1 (byte 0): malformed JSON: invalid character '<'"},
		{"cut short", "locomo", locomo[:len(locomo)/2], "ends inside a value (cut short?)"},
		{"cut short", "longmemeval", lme[:len(lme)/2], "ends inside a value (cut short?)"},
		{"bad byte on line 3", "locomo", []byte("[\n {\"sample_id\": \"a\",\n  \"conversation\": ?}]"), "line 3 (byte 40): malformed JSON: invalid character '?'"},
		{"bad byte on line 3", "longmemeval", []byte("[\n {\"question_id\": \"a\",\n  \"question\": ?}]"), "line 3 (byte 38): malformed JSON: invalid character '?'"},
		{"an object", "locomo", []byte(`{"sample_id": "a"}`), "a LoCoMo file is a JSON list of samples"},
		{"an object", "longmemeval", []byte(`{"question_id": "a"}`), "a LongMemEval file is a JSON list of items"},
		{"empty", "locomo", nil, "is empty"},
		{"empty", "longmemeval", []byte(" \n"), "is empty"},
		// Broken UTF-8 before a syntax error is reported first.
		{"latin-1 then junk", "locomo", []byte("[{\"sample_id\": \"caf\xe9\"} junk"), "line 1 (byte 19): not UTF-8 (byte 0xe9)"},
	} {
		t.Run(c.loader+" "+c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "data.json")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loaders[c.loader](p, LoadOptions{})
			checkRefusal(t, err, p, c.want)
		})
	}
}

// endless is valid JSON's beginning followed by one string that never
// ends; it counts what is read of it.
type endless struct {
	head []byte
	n    int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n < int64(len(e.head)) {
			p[i] = e.head[e.n]
		} else {
			p[i] = 'a'
		}
		e.n++
	}
	return len(p), nil
}

// A file bigger than the cap is refused naming the flag that raises it, and
// no more than the cap (and the one byte that shows it is bigger) is read.
func TestSizeCap(t *testing.T) {
	const max = 1 << 20
	src := &endless{head: []byte(`[{"sample_id": "`)}
	_, err := readLoCoMo(src, 0, "endless.json", "locomo", LoadOptions{MaxBytes: max})
	checkRefusal(t, err, "endless.json", "is larger than 1MiB, the most membench reads of a dataset file; if it is the right file, raise the cap with --max-data-size")
	if src.n > max+1 {
		t.Errorf("read %d bytes with a cap of %d", src.n, max)
	}
	// Real files, both loaders: the cap refuses what the default takes.
	for name, load := range loaders {
		file := filepath.Join("testdata", "longmemeval_mini.json")
		if name == "locomo" {
			file = filepath.Join(t.TempDir(), "sample.json")
			os.WriteFile(file, SampleJSON(), 0o644)
		}
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load(file, LoadOptions{MaxBytes: st.Size()}); err != nil {
			t.Errorf("%s: a file of exactly the cap refused: %v", name, err)
		}
		_, err = load(file, LoadOptions{MaxBytes: st.Size() - 1})
		checkRefusal(t, err, file, "--max-data-size")
	}
}

// The cap reader passes the bytes up to the cap, then fails for good.
func TestCapReader(t *testing.T) {
	c := newCapReader(strings.NewReader("0123456789"), "f", 4)
	got, err := io.ReadAll(c)
	if string(got) != "0123" || !IsInputError(err) {
		t.Fatalf("read %q, %v", got, err)
	}
	if _, err := c.Read(make([]byte, 8)); !IsInputError(err) {
		t.Fatalf("second read after the cap: %v", err)
	}
	got, err = io.ReadAll(newCapReader(strings.NewReader("0123"), "f", 4))
	if string(got) != "0123" || err != nil {
		t.Fatalf("exactly the cap: %q, %v", got, err)
	}
}

// An input file no flag governs (an answer key, a wrong-answer file) is
// capped without pointing at --max-data-size, which its command lacks.
func TestInputFileCapNamesNoFlag(t *testing.T) {
	_, err := io.ReadAll(&capReader{r: strings.NewReader("0123456789"), source: "key.json", max: 4})
	if !IsInputError(err) || strings.Contains(err.Error(), "--max") || !strings.Contains(err.Error(), "key.json is larger than 4B, the most membench reads of an input file of this kind") {
		t.Fatalf("over the cap: %v", err)
	}
	p := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(p, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadInputFile(p, "give a key file"); err != nil || string(b) != `{"a":1}` {
		t.Fatalf("a small input file: %q, %v", b, err)
	}
	if _, err := ReadInputFile(p+".missing", "give a key file"); !badinput.Is(err) || !strings.HasSuffix(err.Error(), "; give a key file") {
		t.Fatalf("a missing input file: %v", err)
	}
}

// Escapes of lone surrogates are JSON, as before: LongMemEval loads them
// (as U+FFFD), and LoCoMo's careful decoder does too.
func TestLoneSurrogateEscapesStillLoad(t *testing.T) {
	lme, _ := os.ReadFile(filepath.Join("testdata", "longmemeval_mini.json"))
	p := filepath.Join(t.TempDir(), "lme.json")
	os.WriteFile(p, bytes.Replace(lme, []byte("Tallinn"), []byte(`Tal\ud800linn`), 1), 0o644)
	if _, err := LoadLongMemEval(p, LoadOptions{}); err != nil {
		t.Errorf("longmemeval: %v", err)
	}
	if _, err := parseLoCoMo(bytes.Replace(SampleJSON(), []byte("Biscuit"), []byte(`Bis\ud800cuit`), 1), "s.json", "locomo", LoadOptions{}); err != nil {
		t.Errorf("locomo: %v", err)
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "4g": 4 << 30, "1.5G": 3 << 29, "500MB": 500e6, "1048576": 1 << 20, " 2 KiB ": 2048, "8TB": 8e12} {
		if got, err := ParseByteSize(in); err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "NaN", "Inf", "-1", "1e3", "4 parsecs", "1.2.3", "99999999999TiB", "0x10"} {
		if n, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) = %d, accepted", in, n)
		}
	}
	if s := ByteSize(4 << 30); s != "4GiB" {
		t.Errorf("ByteSize(4GiB) = %s", s)
	}
	if n, err := ParseByteSize(ByteSize(3 << 29)); err != nil || n != 3<<29 {
		t.Errorf("1.5GiB does not read back: %d, %v", n, err)
	}
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"4GiB", "1.5g", "500MB", "12", "", "-3k", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseByteSize(s)
		if err == nil && n < 0 {
			t.Fatalf("%q read as %d", s, n)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("message not one line: %q", err)
		}
		if err == nil {
			// What it reads, written back, reads the same.
			if m, err := ParseByteSize(strconv.FormatInt(n, 10)); err != nil || m != n {
				t.Fatalf("%q = %d, but %d reads as %d, %v", s, n, n, m, err)
			}
		}
	})
}
