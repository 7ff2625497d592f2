package datasets

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

// The cap reader passes the bytes up to the cap, then fails for good.
func TestCapReader(t *testing.T) {
	c := NewCapReader(strings.NewReader("0123456789"), "f", 4)
	got, err := io.ReadAll(c)
	if string(got) != "0123" || !IsInputError(err) {
		t.Fatalf("read %q, %v", got, err)
	}
	if _, err := c.Read(make([]byte, 8)); !IsInputError(err) {
		t.Fatalf("second read after the cap: %v", err)
	}
	got, err = io.ReadAll(NewCapReader(strings.NewReader("0123"), "f", 4))
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
