package lexical

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/membench/membench/internal/testutil"
)

func TestWords(t *testing.T) {
	got := Words("Melanie's kids—3 of them—painted: a SUNSET!")
	want := []string{"melanie's", "kids", "3", "of", "them", "painted", "a", "sunset"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	// A curly apostrophe splits: Words feeds the hashed embedder as is.
	if got := Words("I’m"); !reflect.DeepEqual(got, []string{"i", "m"}) {
		t.Errorf("Words(I’m) = %q", got)
	}
}

func TestIsStopword(t *testing.T) {
	for _, w := range []string{"the", "i", "whom", "um"} {
		if !IsStopword(w) {
			t.Errorf("%q should be a stopword", w)
		}
	}
	for _, w := range []string{"paint", "The", "caroline", ""} {
		if IsStopword(w) {
			t.Errorf("%q should not be a stopword", w)
		}
	}
}

func TestStemJoinsInflections(t *testing.T) {
	groups := [][]string{
		{"paint", "paints", "painted", "painting", "paintings"},
		{"love", "loves", "loved", "loving"},
		{"live", "lives", "lived", "living"},
		{"study", "studies", "studied", "studying"},
		{"story", "stories"},
		{"hike", "hiking"},
		{"name", "names", "named"},
		{"glass", "glasses"},
		{"melanie", "melanie's"},
	}
	for _, g := range groups {
		for _, w := range g[1:] {
			if Stem(w) != Stem(g[0]) {
				t.Errorf("Stem(%q)=%q, Stem(%q)=%q", w, Stem(w), g[0], Stem(g[0]))
			}
		}
	}
	// Words that only look inflected, and short words, stay.
	for _, w := range []string{"class", "bus", "campus", "tennis", "sing", "red", "tied", "go"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
	if got := Stem("stopped"); got != "stopp" {
		t.Errorf("Stem(stopped) = %q, want stopp (no undoubling)", got)
	}
}

func TestContentWords(t *testing.T) {
	got := ContentWords("What paintings did Melanie’s kids paint? A painting, of course.")
	want := []string{"paint", "melani", "kid", "cours"} // "painting" dedupes into "paint"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ContentWords = %q, want %q", got, want)
	}
	skip := map[string]bool{"kids": true, "course": true}
	if got := ContentWords("Melanie's kids, of course", skip); !reflect.DeepEqual(got, []string{"melani"}) {
		t.Errorf("ContentWords with skip = %q", got)
	}
	if got := ContentWords("I am at 5 o'clock, x"); !reflect.DeepEqual(got, []string{"am", "o'clock"}) {
		t.Errorf("one-letter words and stopwords: %q", got)
	}
}

func TestSentences(t *testing.T) {
	text := "I ran 3.5 miles today! Did you?? Yes...\nWe called it \"Freedom.\" So fun (really!) ok\nNew line here [image: a dog on a beach ] and more."
	want := []string{"I ran 3.5 miles today!", "Did you??", "Yes...", "We called it \"Freedom.\"", "So fun (really!)", "ok", "New line here", "[image: a dog on a beach ]", "and more."}
	if got := Sentences(text); !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences =\n%q\nwant\n%q", got, want)
	}
	if got := Sentences("  \n ... \n"); len(got) != 0 {
		t.Errorf("blank and punctuation-only text gave %q", got)
	}
	if c, ok := Caption(want[7]); !ok || c != "a dog on a beach" {
		t.Errorf("Caption = %q, %v", c, ok)
	}
	if _, ok := Caption(want[0]); ok {
		t.Error("a plain sentence read as a caption")
	}
}

func TestResolveFirstPerson(t *testing.T) {
	cases := map[string]string{
		"I'm happy, my dog and I am fine. I have a cat.": "Mel is happy, Mel's dog and Mel is fine. Mel has a cat.",
		"Im sure I’ve told you about me.":                "Mel is sure Mel has told you about Mel.",
		"(I) went; the gym is mine":                      "(Mel) went; the gym is Mel's",
		"The im and ive words stay.":                     "The im and ive words stay.",
		// Curly quotes are multi-byte; they must be trimmed like straight ones.
		"She said “I love it” and ‘my’ turn.": "She said “Mel love it” and ‘Mel's’ turn.",
	}
	for in, want := range cases {
		if got := ResolveFirstPerson(in, "Mel"); got != want {
			t.Errorf("ResolveFirstPerson(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ResolveFirstPerson("I left", ""); got != "I left" {
		t.Errorf("no speaker: %q", got)
	}
}

// wordsReference is Words as first written: strings.FieldsFunc over the
// lowercased text.
func wordsReference(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// Words (and AppendWords) split exactly as the FieldsFunc definition did:
// the hashed embedder's vectors and the offline heuristics depend on it.
func TestWordsEqualsFieldsFunc(t *testing.T) {
	texts := []string{"", "   ", "Hello, World!", "it's 5 o'clock", "Caroline's LGBTQ+ group—2023!",
		"Ünïcödé ÉCOLE straße İstanbul ΣΊΣΥΦΟΣ", "tab\tnew\nline", "’curly’ 'straight'", "日本語のテキスト です",
		"٣ arabic digits ٤٥", "\xff\xfe invalid \xc3 bytes", "KELVIN \u212a sign", "x", "a-b_c.d", "Mixed123Digits456"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09' .,-\t’éÉßΣ日\u212a\u0130\u00a0!")
	for range 2000 {
		n := rng.IntN(30)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	if data, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		b, err := os.ReadFile(data)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
	} else {
		t.Logf("LoCoMo not found at %s: generated and listed texts only", data)
	}
	for _, s := range texts {
		want := wordsReference(s)
		if got := Words(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", s, got, want)
		}
		if got := AppendWords([]string{"keep"}, s); !reflect.DeepEqual(got, append([]string{"keep"}, want...)) {
			t.Fatalf("AppendWords(%q) = %q", s, got)
		}
	}
}
