package judge

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/membench/membench"
)

// The byte-wise fold in mentionsJSON is exact only if no rune outside
// ASCII lowers to one of the four letters.
func TestMentionsJSONEqualsToLower(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		switch unicode.ToLower(r) {
		case 'j', 's', 'o', 'n':
			t.Fatalf("%U lowers to %q: mentionsJSON's ASCII fold would miss it", r, unicode.ToLower(r))
		}
	}
	old := func(msgs []membench.Message) bool {
		for _, m := range msgs {
			if strings.Contains(strings.ToLower(m.Content), "json") {
				return true
			}
		}
		return false
	}
	pieces := []string{"j", "J", "s", "S", "o", "O", "n", "N", "json", "JSON", "jSoN", "js", "on", " ", "\n", "ſ", "K", "İ", "\xff", "\xe2\x80", "*", "J\u0301", "ｊｓｏｎ", "Jason"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		msgs := []membench.Message{{Role: "user", Content: b.String()}}
		if got, want := mentionsJSON(msgs), old(msgs); got != want {
			t.Fatalf("mentionsJSON(%q) = %v, strings.ToLower says %v", b.String(), got, want)
		}
	}
	for _, c := range []struct {
		s    string
		want bool
	}{{"Reply in JSON.", true}, {"reply in Json", true}, {"no such word", false}, {"J-S-O-N", false}, {"", false}} {
		if got := mentionsJSON([]membench.Message{{Content: "x"}, {Content: c.s}}); got != c.want {
			t.Errorf("mentionsJSON(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
