package tokens

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// everyCut counts s as the sum of its pieces when it is cut at every
// splittable place (not only the ones cuts picks), straight through the
// encoder: the strongest form of the claim that cutting is exact.
func everyCut(s string) int {
	n, start := 0, 0
	for i := 1; i < len(s); i++ {
		if splittable(s, i) {
			n += count(s[start:i])
			start = i
		}
	}
	return n + count(s[start:])
}

// tricky holds the places where a pre-token could reach across a cut:
// newline runs, '/' after a newline, contractions, whitespace before and
// after newlines, digits runs, non-ASCII letters and marks beside ASCII.
var tricky = []string{
	"a \n\n b", "x.\n/y", "line\n/path", "it's Tom's 'S 'll 'RE", "end.\n\n[D1:2] next",
	"  \t\n  x", "word\n  \n\tword", "1234567\n89", "café\nnaïve — “quoted”", "a\r\nb\r\n\r\n[c]",
	"x\u00a0y z\u2028w", "日本語 text\n中文。[x]", "e\u0301 e\u0301\nx", "a' b' 's 'd", "$1,000.50/yr\n//c",
	"\n\n\n[", "a\n", "\nb", " ", "a-b_c:d;e!f?g", "ünï cödé\n\ntext ", "tab\tsep\tvals\n1\t2",
}

func TestCutsAreExact(t *testing.T) {
	var texts []string
	texts = append(texts, samples...)
	texts = append(texts, tricky...)
	// A real conversation rendered as a context, and as the start of a
	// prompt around it.
	var b strings.Builder
	for _, line := range locomoLines(t, 2500) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	ctx := b.String()
	texts = append(texts, ctx, "Use the memories below.\n\n"+ctx+"\nQuestion: When did Caroline go?\nAnswer:")
	// Random mixtures of the tricky bits.
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var m strings.Builder
		for range 12 {
			m.WriteString(tricky[r.IntN(len(tricky))])
			if r.IntN(3) == 0 {
				m.WriteString(samples[r.IntN(len(samples))])
			}
		}
		texts = append(texts, m.String())
	}
	for _, s := range texts {
		if got, want := everyCut(s), count(s); got != want {
			t.Fatalf("cut at every splittable place: %d tokens, whole: %d, in %q", got, want, trim(s))
		}
	}
}

// locomoLines renders up to n LoCoMo turns as contexts show them.
func locomoLines(t *testing.T, n int) []string {
	t.Helper()
	raw, err := os.ReadFile(testutil.Shared(t, "datasets", "locomo10.json"))
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range samples {
		for k := 1; len(out) < n; k++ {
			var turns []struct{ Speaker, Text string }
			v, ok := s.Conversation[fmt.Sprintf("session_%d", k)]
			if !ok || json.Unmarshal(v, &turns) != nil {
				break
			}
			for _, tu := range turns {
				out = append(out, fmt.Sprintf("[8 May 2023 13:56] %s: %s", tu.Speaker, tu.Text))
			}
		}
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// FuzzCutsAreExact: for any text, the pieces at every splittable place
// add up to the whole's count.
func FuzzCutsAreExact(f *testing.F) {
	for _, s := range append(append([]string{}, samples...), tricky...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := everyCut(s), count(s); got != want {
			t.Fatalf("cut at every splittable place: %d tokens, whole: %d, in %q", got, want, s)
		}
	})
}

// prose is n bytes of text with words, punctuation and line breaks.
func prose(n int, seed uint64) string {
	words := strings.Fields("the a quick brown fox jumps over lazy dog Priya shaped blue bowls at community arts center, and Tomas walked Biscuit. Why? 2023 it's")
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(40) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()[:n]
}

// A long turn inside many different prompts is encoded about once, not
// once per prompt: the encoder's bytes stay near the turn's length as the
// prompts add up to many times it. (Counting every prompt whole would
// encode every byte of every prompt.) The counts stay exact.
func TestLongTurnIsEncodedOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		turn string
	}{
		{"prose", prose(1<<20, 1)},
		{"one sentence repeated", strings.Repeat("I adopted a greyhound named Biscuit. ", 1<<20/37)},
		{"one long word", strings.Repeat("x", 256<<10)},
		{"no spaces", strings.Repeat("日本語のテキスト", 16<<10)},
	} {
		t.Run(c.name, func(t *testing.T) {
			const prompts = 30
			lines := locomoLines(t, 40)
			before := encodedBytes.Load()
			total := 0
			var first string
			for i := range prompts {
				// The turn among other turns, at a different place in each
				// prompt, as a retrieval context holds it.
				at := i % len(lines)
				ctx := strings.Join(append(append(append([]string{}, lines[:at]...), "[8 May 2023 13:56] Priya: "+c.turn), lines[at:]...), "\n")
				p := fmt.Sprintf("Answer from the memories.\n\n%s\n\nQuestion %d: what did Priya say?\nAnswer:", ctx, i)
				if i == 0 {
					first = p
				}
				Count(p)
				total += len(p)
			}
			enc := encodedBytes.Load() - before
			t.Logf("%d prompts, %d bytes in all; encoder read %d bytes", prompts, total, enc)
			if enc > 2*int64(len(c.turn))+int64(prompts)*64<<10 {
				t.Fatalf("the encoder read %d bytes for %d prompts holding one %d-byte turn: the turn is encoded per prompt", enc, prompts, len(c.turn))
			}
			if got, want := Count(first), count(first); got != want {
				t.Fatalf("counted in pieces: %d tokens, whole: %d", got, want)
			}
		})
	}
}
