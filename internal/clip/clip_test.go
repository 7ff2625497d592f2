package clip

import (
	"testing"
	"unicode/utf8"
)

func TestTo(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"a longer reply", 8, "a longer…"},
		{"né", 2, "n…"},  // é is two bytes: the cut steps back before it
		{"日本語", 4, "日…"}, // three-byte characters
		{"日本語", 2, "…"},  // not even one fits
		{"anything", 0, "…"},
	} {
		got := To(c.s, c.n)
		if got != c.want {
			t.Errorf("To(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("To(%q, %d) = %q is not valid UTF-8", c.s, c.n, got)
		}
	}
}
