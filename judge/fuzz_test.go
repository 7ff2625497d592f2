package judge

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseReply: under a CORRECT/WRONG prompt no reply reads PARTIAL;
// under one that offers PARTIAL the labels are the three; offering
// PARTIAL only adds PARTIAL readings (a reply read CORRECT or WRONG under
// one set reads the same, PARTIAL or nothing under the other); and the
// same reply always reads the same (no map order decides).
func FuzzParseReply(f *testing.F) {
	for _, c := range replyShapes {
		f.Add(c.in)
	}
	for _, c := range partialShapes {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseReply(text)
		if err == nil && v.Label != LabelCorrect && v.Label != LabelWrong {
			t.Fatalf("ParseReply(%q) label %q", text, v.Label)
		}
		g, gerr := ParseReplyIn(text, Graded)
		if gerr == nil && g.Label != LabelCorrect && g.Label != LabelWrong && g.Label != LabelPartial {
			t.Fatalf("ParseReplyIn(%q, Graded) label %q", text, g.Label)
		}
		if err == nil && gerr == nil && g.Label != v.Label && g.Label != LabelPartial {
			t.Fatalf("%q reads %s under Binary but %s under Graded", text, v.Label, g.Label)
		}
		if gerr == nil && g.Label != LabelPartial && (err != nil || v.Label != g.Label) {
			t.Fatalf("%q reads %s under Graded but %q (%v) under Binary", text, g.Label, v.Label, err)
		}
		for range 3 {
			if v2, err2 := ParseReply(text); v2 != v || (err2 == nil) != (err == nil) {
				t.Fatalf("ParseReply(%q) = %+v, %v, then %+v, %v", text, v, err, v2, err2)
			}
			if g2, err2 := ParseReplyIn(text, Graded); g2 != g || (err2 == nil) != (gerr == nil) {
				t.Fatalf("ParseReplyIn(%q, Graded) = %+v, %v, then %+v, %v", text, g, gerr, g2, err2)
			}
		}
	})
}

// negations and separators FuzzNegatedCorrect puts before CORRECT.
var (
	fuzzNegations = []string{"not", "isn't", "isn’t", "is not", "never", "no longer", "not quite", "not entirely",
		"wasn't", "cannot be", "doesn't seem", "I don't think it is", "not at all", "hardly", "no", "neither"}
	fuzzSeparators = []string{" ", "  ", "\t", " **", "** ", "\u00a0", " *", "-"}
)

// FuzzNegatedCorrect: a reply whose only label is a negated CORRECT, in
// any casing, amid any text that names no label, is never read as CORRECT,
// whether or not the prompt offers PARTIAL.
func FuzzNegatedCorrect(f *testing.F) {
	f.Add("The answer is", ".", uint8(0), uint8(0), uint64(0))
	f.Add("", "", uint8(1), uint8(1), uint64(0xffff))
	f.Add(`{"label": "`, `"}`, uint8(0), uint8(0), uint64(0x5555))
	f.Add("Verdict:", "\nThe date differs.", uint8(2), uint8(3), uint64(0x0f0f))
	f.Add("Reasoning: it differs.\nFinal answer:", "", uint8(5), uint8(2), uint64(0xff00))
	f.Add("no", "not", uint8(12), uint8(7), uint64(1))
	f.Fuzz(func(t *testing.T, before, after string, neg, sep uint8, caseMask uint64) {
		// The rest of the text must name no label: no word that holds one,
		// in ASCII letters of any case (the reader folds no other letters);
		// a JSON \u escape may spell a label too.
		for _, s := range []string{before, after} {
			low := lowerASCII(s)
			if strings.Contains(low, `\u`) {
				return
			}
			for _, l := range []string{"correct", "wrong", "yes", "true"} {
				if strings.Contains(low, l) {
					return
				}
			}
		}
		word := mixCase(fuzzNegations[int(neg)%len(fuzzNegations)], caseMask) +
			fuzzSeparators[int(sep)%len(fuzzSeparators)] + mixCase("correct", caseMask>>32)
		text := before + " " + word + " " + after
		for _, set := range []Labels{Binary, Graded} {
			if v, err := ParseReplyIn(text, set); err == nil && v.Label == LabelCorrect {
				t.Fatalf("ParseReplyIn(%q, %v) = CORRECT", text, set)
			}
		}
	})
}

// mixCase upper-cases the letters of s whose bit in mask is set.
func mixCase(s string, mask uint64) string {
	b := []byte(s)
	for i := range b {
		if 'a' <= b[i] && b[i] <= 'z' && mask>>(uint(i)%64)&1 == 1 {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
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
