package names

import (
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

func TestCheck(t *testing.T) {
	for _, s := range []string{"a", "my-run", "locomo-turns-cosine-0123456789", "a..b", ".hidden", "v1.2+rc_3", strings.Repeat("x", Max)} {
		if err := Check("--run-id", s); err != nil {
			t.Errorf("%q refused: %v", s, err)
		}
	}
	for _, s := range []string{"", "a b", "a\nb", "a\tb", "a\x1b[31m", "a/b", `a\b`, "é", "a\x00", "a:b", "a*b", strings.Repeat("x", Max+1), strings.Repeat("é", 30)} {
		err := Check("--run-id", s)
		if err == nil {
			t.Errorf("%q accepted", s)
			continue
		}
		if !badinput.Is(err) {
			t.Errorf("%q: not an input error: %v", s, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--run-id") || strings.ContainsAny(msg, "\n\t\x1b\x00") || len(msg) > 200 {
			t.Errorf("%q: message does not name the flag on one short line: %q", s, msg)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"my-run", "a\nb", "..", strings.Repeat("x", 101)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check("name", s)
		if err != nil && strings.ContainsAny(err.Error(), "\n\r\x1b") {
			t.Fatalf("message is not one clean line: %q", err)
		}
		if err == nil && (strings.ContainsAny(s, "/\\ \n\x00") || len(s) > Max) {
			t.Fatalf("%q accepted", s)
		}
	})
}

func TestCompareNatural(t *testing.T) {
	// Each list is in the order Compare must give it.
	for _, want := range [][]string{
		{"conv-9", "conv-10", "conv-26"},
		{"conv-26:2", "conv-26:10", "conv-30:1"},
		{"a9-b1", "a10-b1"},
		{"q01", "q1", "q2"},
		{"judge", "judge1", "judge_2"},
		{"evaluation_locomo2.json", "evaluation_locomo10.json"},
	} {
		got := slices.Clone(want)
		slices.Reverse(got)
		slices.SortFunc(got, Compare)
		if !slices.Equal(got, want) {
			t.Errorf("sorted %v, want %v", got, want)
		}
	}
}
