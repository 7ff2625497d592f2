package datasets_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/datasettest"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
)

// loaders are both file loaders, for tests that hold for either.
var loaders = map[string]func(string, datasets.LoadOptions) (*datasets.Dataset, error){
	"locomo":      locomo.Load,
	"longmemeval": longmemeval.Load,
}

// /dev/zero is refused at its first byte, not read until memory runs out.
func TestDevZeroFailsAtTheFirstByte(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for name, load := range loaders {
		t.Run(name, func(t *testing.T) {
			_, err := load("/dev/zero", datasets.LoadOptions{})
			datasettest.CheckRefusal(t, err, "/dev/zero", "line 1 (byte 0): malformed JSON: invalid character")
		})
	}
}

// sampleJSON is the embedded sample's file (LoCoMo schema), read as any
// user's file would be.
func sampleJSON(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("sample", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Files that are not the expected JSON fail at their first bad byte, named
// by line and byte.
func TestBrokenFilesNameTheirFirstBadByte(t *testing.T) {
	locomo := sampleJSON(t)
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
			_, err := loaders[c.loader](p, datasets.LoadOptions{})
			datasettest.CheckRefusal(t, err, p, c.want)
		})
	}
}

// Real files, both loaders: a file of exactly the cap loads, one a byte
// bigger is refused naming the flag that raises the cap (an endless stream:
// TestSizeCapEndless in package locomo).
func TestSizeCap(t *testing.T) {
	for name, load := range loaders {
		file := filepath.Join("testdata", "longmemeval_mini.json")
		if name == "locomo" {
			file = filepath.Join(t.TempDir(), "sample.json")
			os.WriteFile(file, sampleJSON(t), 0o644)
		}
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load(file, datasets.LoadOptions{MaxBytes: st.Size()}); err != nil {
			t.Errorf("%s: a file of exactly the cap refused: %v", name, err)
		}
		_, err = load(file, datasets.LoadOptions{MaxBytes: st.Size() - 1})
		datasettest.CheckRefusal(t, err, file, "--max-data-size")
	}
}

// Escapes of lone surrogates are JSON, as before: LongMemEval loads them
// (as U+FFFD), and LoCoMo's careful decoder does too.
func TestLoneSurrogateEscapesStillLoad(t *testing.T) {
	lme, _ := os.ReadFile(filepath.Join("testdata", "longmemeval_mini.json"))
	p := filepath.Join(t.TempDir(), "lme.json")
	os.WriteFile(p, bytes.Replace(lme, []byte("Tallinn"), []byte(`Tal\ud800linn`), 1), 0o644)
	if _, err := longmemeval.Load(p, datasets.LoadOptions{}); err != nil {
		t.Errorf("longmemeval: %v", err)
	}
	if _, err := locomo.Parse(bytes.Replace(sampleJSON(t), []byte("Biscuit"), []byte(`Bis\ud800cuit`), 1), "s.json", "locomo", datasets.LoadOptions{}); err != nil {
		t.Errorf("locomo: %v", err)
	}
}
