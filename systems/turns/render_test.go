package turns

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/internal/tokens"
)

// MakeContext's token count, summed line by line, equals counting the
// rendered context whole: on turns whose ends and starts are hard for the
// pre-tokenizer (punctuation, spaces, newlines inside the text, digits,
// contractions, emoji), and on 3,000 random contexts of real LoCoMo turns.
func TestJoinedTokensAreExact(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var items []membench.Item
	for i, text := range []string{
		"Sure.", "what?!", "ends with spaces   ", "line\nbreak inside\n", "42", "it's", "I'll", "emoji 🎉",
		"\r", "", " ", "slash/", "...", "[bracket]", "café", "A", "\t", "trailing newline\n\n", "50%", "(ok)",
	} {
		sp := "Caroline"
		if i%3 == 0 {
			sp = "" // a turn without speaker starts "[date] text"
		}
		items = append(items, membench.Item{ID: "x", Text: text, Time: at.Add(time.Duration(i) * time.Minute), Speaker: sp})
	}
	items[7].Time = time.Time{} // "[no date] ..."
	check := func(name string, sel []membench.Item) {
		c := MakeContext(sel, OrderTime)
		// The whole text is never counted before, so this is the encoder's
		// own count, not a memoised sum.
		if whole := tokens.Count(c.Rendered); c.Tokens != whole {
			t.Fatalf("%s: summed %d tokens, the whole context has %d:\n%s", name, c.Tokens, whole, c.Rendered)
		}
	}
	for i := range items {
		for j := range items {
			check("pair", []membench.Item{items[i], items[j]})
		}
	}
	check("all", items)

	path, ok := testutil.SharedPath("datasets", "locomo10.json")
	if !ok {
		t.Skipf("LoCoMo not found at %s: the real-context half of this test needs it", path)
	}
	d, err := locomo.Load(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		conv := d.Conversations[rng.IntN(len(d.Conversations))]
		turns := conv.AllTurns()
		var sel []membench.Item
		for range 1 + rng.IntN(12) {
			sel = append(sel, TurnItem(turns[rng.IntN(len(turns))], 0))
		}
		check(conv.ID, sel)
	}
}

// The sum rests on every line starting with "[": a line that did not would
// break it, so Line's first byte is checked too.
func TestLineStartsWithBracket(t *testing.T) {
	for _, it := range []membench.Item{{Text: "x"}, {Text: "y", Speaker: "S", Time: time.Now()}} {
		if l := Line(it); !strings.HasPrefix(l, "[") {
			t.Fatalf("Line = %q", l)
		}
	}
}

// Line and MakeContext's rendering are written into one buffer; this holds
// them to the plain formula: "[" date "] " speaker ": " and the text with
// newlines as spaces, lines joined by newlines.
func TestLineIsTheFormula(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var items []membench.Item
	for i, text := range []string{"", "a", "two\nlines", "\n", "\n\nx\n", "ends\n", "café\n🎉", strings.Repeat("long ", 300)} {
		for _, sp := range []string{"", "Caroline", "Mel Jones"} {
			for _, tm := range []time.Time{{}, at.Add(time.Duration(i) * time.Hour), time.Date(12345, 1, 2, 3, 4, 0, 0, time.UTC)} {
				items = append(items, membench.Item{Text: text, Speaker: sp, Time: tm})
			}
		}
	}
	formula := func(it membench.Item) string {
		s := "[" + FormatTime(it.Time) + "] "
		if it.Speaker != "" {
			s += it.Speaker + ": "
		}
		return s + strings.ReplaceAll(it.Text, "\n", " ")
	}
	var want []string
	for _, it := range items {
		if got := Line(it); got != formula(it) {
			t.Fatalf("Line(%+v) = %q, want %q", it, got, formula(it))
		}
		want = append(want, formula(it))
	}
	if got := MakeContext(items, OrderScore).Rendered; got != strings.Join(want, "\n") {
		t.Fatalf("MakeContext rendered\n%q\nwant\n%q", got, strings.Join(want, "\n"))
	}
	if c := MakeContext(nil, OrderTime); c.Rendered != "" || c.Tokens != 0 {
		t.Fatalf("empty context: %+v", c)
	}
}
