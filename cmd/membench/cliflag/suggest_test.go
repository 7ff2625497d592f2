package cliflag

import (
	"path/filepath"
	"testing"
)

func TestPatternMatchesEveryPath(t *testing.T) {
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{"results/locomo-a", "results/locomo-b", "results/locomo-c"}, "results/locomo-*"},
		{[]string{"results/a/manifest.json", "results/b/manifest.json"}, "results/*/manifest.json"},
		{[]string{"a/x", "b/x"}, "*/x"},
		{[]string{"results/k-10", "results/k-100"}, "results/k-10*"},
		{[]string{"results/é1", "results/é2"}, "results/é*"},
		{[]string{"results/ä", "results/ö"}, "results/*"}, // never half a character
		{[]string{"results/one"}, "results/*"},
		{[]string{"one"}, "*"},
		{nil, "*"},
	} {
		got := Pattern(c.paths)
		if got != c.want {
			t.Errorf("Pattern(%q) = %q, want %q", c.paths, got, c.want)
		}
		for _, p := range c.paths {
			if ok, err := filepath.Match(got, p); err != nil || !ok {
				t.Errorf("Pattern(%q) = %q does not match %q", c.paths, got, p)
			}
		}
	}
}
