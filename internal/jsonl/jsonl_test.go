package jsonl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEachReadsLongLinesAndMarksTheTornTail(t *testing.T) {
	// A 20 MB line: more than bufio.Scanner's buffer in every reader that used it.
	long := `{"prediction":"` + strings.Repeat("x", 20<<20) + `"}`
	p := filepath.Join(t.TempDir(), "big.jsonl")
	os.WriteFile(p, []byte("{}\r\n"+long+"\n\n{\"torn\":"), 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lens []int
	var lasts []bool
	err = Each(f, func(n int, line []byte, last bool) error {
		if n != len(lens)+1 {
			t.Errorf("line numbered %d, want %d", n, len(lens)+1)
		}
		lens = append(lens, len(line))
		lasts = append(lasts, last)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, len(long), 0, len(`{"torn":`)}
	if len(lens) != 4 || lens[0] != want[0] || lens[1] != want[1] || lens[2] != 0 || lens[3] != want[3] {
		t.Fatalf("line lengths %v, want %v", lens, want)
	}
	if lasts[0] || lasts[1] || lasts[2] || !lasts[3] {
		t.Errorf("last flags %v, want only the torn tail", lasts)
	}
}

func TestEachStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Each(bytes.NewReader([]byte("a\nb\nc\n")), func(int, []byte, bool) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("err %v after %d lines", err, n)
	}
}
