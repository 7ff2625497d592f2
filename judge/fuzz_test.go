package judge

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"reason": "same city", "label": "CORRECT"}`,
		"```json\n{\"label\": \"WRONG\", \"reason\": \"other year\"}\n```",
		`Here you go: {"label":"correct"} hope it helps`, `{"verdict": "incorrect"}`,
		"CORRECT", "WRONG.", "The answer is not correct.", "CORRECT - the answer is not wrong",
		`{"label": "maybe"}`, "correct or wrong?", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseReply(text)
		if err == nil && v.Label != LabelCorrect && v.Label != LabelWrong {
			t.Fatalf("ParseReply(%q) label %q", text, v.Label)
		}
	})
}

func FuzzMetrics(f *testing.F) {
	for _, p := range [][2]string{
		{"Biscuit", "Biscuit"}, {"in 2022", "2022"}, {"She went to Paris, then Rome", "Paris, Rome"},
		{"The dog's name is Biscuit.", "biscuit"}, {"", "x"}, {"running runs ran", "run"},
		{"Not mentioned in the conversation", "No information available"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, pred, gold string) {
		for name, v := range map[string]float64{
			"TokenF1": TokenF1(pred, gold), "MultiF1": MultiF1(pred, gold), "BLEU1": BLEU1(pred, gold),
		} {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("%s(%q, %q) = %v, outside [0, 1]", name, pred, gold, v)
			}
		}
		if a, b := TokenF1(pred, gold), TokenF1(gold, pred); math.Abs(a-b) > 1e-12 {
			t.Fatalf("TokenF1 not symmetric: %v vs %v", a, b)
		}
		if len(Tokens(pred)) > 0 && TokenF1(pred, pred) != 1 {
			t.Fatalf("TokenF1(%q, itself) = %v", pred, TokenF1(pred, pred))
		}
	})
}

func FuzzStem(f *testing.F) {
	for _, w := range []string{"running", "caresses", "ponies", "relational", "generalizations", "sky", "naïve", "a", ""} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		s := Stem(w)
		if utf8.ValidString(w) && !utf8.ValidString(s) {
			t.Fatalf("Stem(%q) = %q, not UTF-8", w, s)
		}
		// Step 1b may add one "e"; nothing else grows a word.
		if utf8.RuneCountInString(s) > utf8.RuneCountInString(strings.ToLower(w))+1 {
			t.Fatalf("Stem(%q) = %q grew", w, s)
		}
		if w == strings.ToLower(w) && len(w) <= 2 && s != w {
			t.Fatalf("Stem(%q) = %q; words of 1-2 letters stay", w, s)
		}
	})
}
