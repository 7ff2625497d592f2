package audit

import (
	"strings"
	"testing"
)

// negations and separators FuzzNegatedSupported puts before SUPPORTED.
var (
	fuzzNegations = []string{"not", "isn't", "isn’t", "is not", "never", "no longer", "not fully", "not entirely",
		"wasn't", "cannot be", "doesn't seem", "I don't think it is", "not at all", "hardly", "no", "neither"}
	fuzzSeparators = []string{" ", "  ", "\t", " **", "** ", "\u00a0", " *", "-"}
)

// FuzzNegatedSupported: a reply whose only audit label is a negated
// SUPPORTED, in any casing, amid any text, is never read as SUPPORTED. The
// judge's own words (correct, wrong) are allowed around it: they are not
// audit labels.
func FuzzNegatedSupported(f *testing.F) {
	f.Add("The entry is", ".", uint8(0), uint8(0), uint64(0))
	f.Add("", "", uint8(1), uint8(1), uint64(0xffff))
	f.Add(`{"verdict": "`, `"}`, uint8(0), uint8(0), uint64(0x5555))
	f.Add("Verdict:", "\nThe dog is not in the utterance.", uint8(2), uint8(3), uint64(0x0f0f))
	f.Add("The name is correct, but", "by the source.", uint8(6), uint8(0), uint64(0xff00))
	f.Add("Reasoning: it is wrong.\nFinal verdict:", "", uint8(5), uint8(2), uint64(0xff00))
	f.Add("no", "not", uint8(12), uint8(7), uint64(1))
	f.Fuzz(func(t *testing.T, before, after string, neg, sep uint8, caseMask uint64) {
		// The rest of the text must hold no audit label in ASCII letters of
		// any case (the reader folds no other letters); a JSON \u escape
		// may spell one too.
		for _, s := range []string{before, after} {
			low := lowerASCII(s)
			if strings.Contains(low, `\u`) {
				return
			}
			for _, l := range []string{"support", "yes", "true"} {
				if strings.Contains(low, l) {
					return
				}
			}
		}
		word := mixCase(fuzzNegations[int(neg)%len(fuzzNegations)], caseMask) +
			fuzzSeparators[int(sep)%len(fuzzSeparators)] + mixCase("supported", caseMask>>32)
		text := before + " " + word + " " + after
		if v, err := ParseVerdict(text); err == nil && v.Supported {
			t.Fatalf("ParseVerdict(%q) = SUPPORTED", text)
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
