package audit

import (
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
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

// FuzzParseWrong: any bytes either parse into answers that each have an
// id (unique), a question and recorded runs the file lists, or fail as bad
// input; and the recorded tally never counts more than there are answers.
func FuzzParseWrong(f *testing.F) {
	f.Add([]byte(`{"question_id": "locomo_0_qa0", "answer": "8 May 2023"}` + "\n" + `{"question_id": "conv-b:1", "answer": "x", "llm_judgments": {"j1": true}}`))
	f.Add([]byte(`{"accuracy": 0.5, "detailed_results": {"u_0": [{"question_id": "locomo_0_qa0", "question": "q", "golden_answer": 2022,
 "generated_answer": "2021", "category": "2", "llm_judgments": {"judgment_1": true, "judgment_2": false}}]}}`))
	f.Add([]byte(`{"detailed_results": {"c": [{"question_id": "a", "generated_answer": "x"}]}} {}`))
	f.Add([]byte("{\"question_id\": \"a\", \"answer\": \"x\", \"category\": 5}\n\n{\"question_id\": \"a\""))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWrong(data, "fuzz")
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("ParseWrong error is not bad input: %v", err)
			}
			return
		}
		if len(w.Answers) == 0 || (w.Format != FormatScored && w.Format != FormatJSONL) {
			t.Fatalf("%d answers, format %q", len(w.Answers), w.Format)
		}
		seen := map[string]bool{}
		for _, a := range w.Answers {
			if a.ID == "" || seen[a.ID] || a.Question == nil {
				t.Fatalf("answer %+v (seen %v)", a, seen[a.ID])
			}
			seen[a.ID] = true
			for r := range a.Recorded {
				if !slices.Contains(w.Runs, r) {
					t.Fatalf("run %q not in %v", r, w.Runs)
				}
			}
		}
		if len(w.Runs) == 0 || w.NeedsData() {
			return
		}
		jr, err := Recorded(w)
		if err != nil {
			t.Fatal(err)
		}
		o := jr.Overall()
		if o.Answers != len(w.Answers) || o.Rate < 0 || o.Rate > 1 || o.Lo > o.Rate+1e-12 || o.Hi < o.Rate-1e-12 {
			t.Fatalf("overall %+v of %d answers", o, len(w.Answers))
		}
		for _, rc := range o.Runs {
			if rc.Accepted > rc.Judged || rc.Judged > len(w.Answers) {
				t.Fatalf("run %+v of %d answers", rc, len(w.Answers))
			}
		}
	})
}

// ParseRates never panics, names the file in every error, and every rate
// it returns is a fraction.
func FuzzParseRates(f *testing.F) {
	f.Add([]byte(`{"file": "w.json", "answers": 2, "judges": [{"judge": "llm", "kind": "llm", "rows": [{"category": "overall", "answers": 2, "rate": 0.5, "lo": 0.1, "hi": 0.9}]}]}`))
	f.Add([]byte(`{"detailed_results": {"c": [{"question_id": "q", "question": "Q?", "golden_answer": "g", "generated_answer": "w", "category": 4, "llm_judgments": {"judgment_1": true}}]}}`))
	f.Add([]byte(`{"judges": [{"judge": "x", "rows": [{"rate": 7}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseRates(data, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		for _, j := range a.Judges {
			if o := j.Overall(); !(o.Rate >= 0 && o.Rate <= 1) {
				t.Fatalf("judge %s: rate %v", j.Judge, o.Rate)
			}
		}
	})
}
