package judge

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
)

// ParseReply reads a judge model's reply by meaning, never by substring:
// "NOT CORRECT" is not CORRECT. The first step that finds a verdict
// decides:
//
//  1. JSON. When the reply holds a JSON object (bare, in a code fence or
//     amid prose) with a label field (label, verdict, judgment, result,
//     grade, decision, final_label, final_verdict, final_answer, correct,
//     is_correct; keys in any case), that field is the verdict and the
//     prose around it is reasoning. Its value must be one of the closed set
//     CORRECT, TRUE, YES / WRONG, INCORRECT, FALSE, NO (any case, stray
//     quotes, punctuation or markdown allowed; correct/is_correct may be a
//     JSON bool). Anything else ("NOT CORRECT", "maybe"), or two label
//     fields (or objects) that disagree, makes the reply invalid.
//  2. A bare reply that is one of those words ("Yes.", "**WRONG**").
//  3. Labelled verdicts: "Label: WRONG", "**Verdict:** correct",
//     "Verdict - not correct", "Final answer: CORRECT". The words after the
//     key, up to the end of that sentence, are read as in step 4. A
//     "final"/"overall" key outranks the others; labelled verdicts of the
//     same rank that disagree make the reply invalid.
//  4. Prose: each "correct", "incorrect" and "wrong" as a whole word. A
//     negation before it in its clause flips it ("not correct", "ISN'T
//     CORRECT", "is never correct", "no longer correct", "not quite
//     correct" are WRONG; "not wrong" is CORRECT). A negation reaches
//     further back before "correct" than before "wrong": a stray one may
//     turn CORRECT into WRONG but should not make a WRONG CORRECT. A
//     sentence that is one closed-set word ("No.") counts too. Labels in
//     capitals, as the prompts spell them, outrank lower-case words, so
//     reasoning that calls the answer "wrong" before a final "CORRECT"
//     reads CORRECT. The labels of a rank must all agree, else the reply
//     is invalid.
//
// Prose that is not a verdict: a question ("Is it correct?"), "the/a
// correct ..." (which names the gold: "the correct answer is 2022"), and a
// hedge: "partially", "mostly", "almost" correct (or wrong) gives no
// verdict. Our strict prompt calls a partial answer WRONG and our lenient
// one calls it CORRECT, so the reader does not choose for the model: with
// no other label such a reply is invalid, and the judge asks again.
//
// A reply with no verdict returns an error; the LLM judge then asks again
// (Reasks times) and records the verdict as invalid if it stays so.
//
// ParseReply reads replies to a CORRECT/WRONG prompt; ParseReplyIn reads
// those to a prompt that offers PARTIAL too.
func ParseReply(text string) (Reply, error) { return ParseReplyIn(text, Binary) }

// ParseReplyIn is ParseReply for a prompt offering the labels set. Under
// Graded, PARTIAL joins the closed set with its spellings "partially
// correct", "partly correct" and "partial credit" (any case, spaces,
// hyphens or underscores), so {"label": "partial"}, "Verdict: partially
// correct" and a bare "PARTIAL" read PARTIAL; in prose, a partial hedge
// ("partially", "partly", "partial", "half", "halfway", "somewhat",
// "semi") before correct or wrong gives PARTIAL, as do "PARTIAL" in
// capitals and "partial credit". Negations are honoured as before: a
// negated correct is WRONG ("not partially correct" too), a negated
// PARTIAL gives no verdict, and the other hedges ("mostly", "almost")
// still give none. Under Binary no reply reads PARTIAL: those spellings
// are no verdict, as described above.
func ParseReplyIn(text string, set Labels) (Reply, error) {
	if v, found, err := jsonVerdict(text, set); found {
		return v, err
	}
	if l := closedLabel(text, set); l != "" {
		return Reply{Label: l, Reason: strings.TrimSpace(text)}, nil
	}
	l, err := textVerdict(text, set)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Label: l, Reason: strings.TrimSpace(text)}, nil
}

// closed is the label set a JSON field or a bare reply may hold; graded
// adds what a prompt offering PARTIAL accepts too.
var (
	closed = map[string]string{
		"CORRECT": LabelCorrect, "TRUE": LabelCorrect, "YES": LabelCorrect,
		"WRONG": LabelWrong, "INCORRECT": LabelWrong, "FALSE": LabelWrong, "NO": LabelWrong,
	}
	graded = map[string]string{
		"PARTIAL": LabelPartial, "PARTIALLY CORRECT": LabelPartial, "PARTLY CORRECT": LabelPartial, "PARTIAL CREDIT": LabelPartial,
	}
)

// closedWord is the label of an upper-case word (or words joined by one
// space) of the closed set of set; else "".
func closedWord(w string, set Labels) string {
	if l := closed[w]; l != "" {
		return l
	}
	if set == Graded {
		return graded[w]
	}
	return ""
}

// closedLabel is the label s names when, stripped of space, quotes,
// punctuation and markdown, it is one word of the closed set, or under
// Graded one entry of PARTIAL's (its words joined by spaces, hyphens or
// underscores); else "".
// Case is folded for ASCII only, so no look-alike letter (ſ, K) makes a label.
func closedLabel(s string, set Labels) string {
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(".,!?;:\"'*_`#[](){}<>“”‘’", r)
	})
	if l := closed[upperASCII(s)]; l != "" || set != Graded {
		return l
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '-' || r == '_' })
	return graded[upperASCII(strings.Join(words, " "))]
}

// JSON keys that hold the verdict, and those that may hold the reason.
var (
	labelKeys  = map[string]bool{"label": true, "verdict": true, "judgment": true, "judgement": true, "result": true, "grade": true, "decision": true, "final_label": true, "final_verdict": true, "final_answer": true, "correct": true, "is_correct": true}
	reasonKeys = []string{"reason", "reasoning", "explanation", "rationale", "justification"}
)

// jsonVerdict reads step 1; found says the reply had a JSON object with a
// label field, so its answer (or error) is final. Every object in the
// reply counts: two that disagree leave no verdict.
func jsonVerdict(text string, set Labels) (v Reply, found bool, err error) {
	labels := map[string]bool{}
	for rest, n := text, 0; n < 16; n++ {
		body := llm.ExtractJSON(rest)
		var obj map[string]any
		at := strings.Index(rest, body)
		if !strings.HasPrefix(body, "{") || at < 0 || json.Unmarshal([]byte(body), &obj) != nil {
			break
		}
		rest = rest[at+len(body):]
		// Sorted: "Label" and "label" may both be there.
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			key := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(k))
			if s, ok := obj[k].(string); ok && v.Reason == "" && slices.Contains(reasonKeys, key) {
				v.Reason = s
			}
			if !labelKeys[key] {
				continue
			}
			found = true
			l := ""
			switch x := obj[k].(type) {
			case string:
				l = closedLabel(x, set)
			case bool:
				if key == "correct" || key == "is_correct" {
					l = map[bool]string{true: LabelCorrect, false: LabelWrong}[x]
				}
			}
			if l == "" {
				return Reply{}, true, fmt.Errorf("JSON field %q holds %s, not a label %s", k, clipReply(fmt.Sprint(obj[k])), set)
			}
			labels[l] = true
		}
	}
	switch {
	case !found:
		return Reply{}, false, nil
	case len(labels) != 1:
		return Reply{}, true, fmt.Errorf("JSON labels disagree (%s) in %s", strings.Join(slices.Sorted(maps.Keys(labels)), " and "), clipReply(text))
	}
	for l := range labels {
		v.Label = l
	}
	return v, true, nil
}

// keyedRe finds labelled verdicts (step 3): a key, a separator (":", "=",
// or a dash that is not a hyphen) and the rest of the sentence. "answer"
// counts only as "final/overall answer": "Gold answer: no" is not a verdict.
var keyedRe = regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}_])((?:final|overall)\s+)?(label|verdict|judge?ment|grade|decision|result|assessment|evaluation|answer)[\s*_"'` + "`" + `]*(?:[:=–—]|\s-|-\s)[\s*_"'` + "`" + `]*([^\n.!?;]*)`)

// textVerdict reads steps 3 and 4.
func textVerdict(text string, set Labels) (string, error) {
	var final, plain []string
	for _, m := range keyedRe.FindAllStringSubmatchIndex(text, -1) {
		isFinal := m[2] >= 0
		key, value := text[m[4]:m[5]], text[m[6]:m[7]]
		if (!isFinal && strings.EqualFold(key, "answer")) || strings.HasPrefix(text[m[7]:], "?") {
			continue
		}
		l := closedLabel(value, set)
		if l == "" {
			l, _ = proseVerdict(value, set)
		}
		switch {
		case l == "":
		case isFinal:
			final = append(final, l)
		default:
			plain = append(plain, l)
		}
	}
	for _, ls := range [][]string{final, plain} {
		if len(ls) > 0 {
			if l := agree(ls); l != "" {
				return l, nil
			}
			return "", fmt.Errorf("labelled verdicts disagree (%s) in %s", strings.Join(distinct(ls), " and "), clipReply(text))
		}
	}
	l, ok := proseVerdict(text, set)
	if !ok {
		return "", fmt.Errorf("the reply names more than one label as its verdict (%s): %s", set, clipReply(text))
	}
	if l == "" {
		return "", fmt.Errorf("no %s verdict in %s", set, clipReply(text))
	}
	return l, nil
}

// agree returns the one label all of ls hold, or "".
func agree(ls []string) string {
	if slices.ContainsFunc(ls, func(l string) bool { return l != ls[0] }) {
		return ""
	}
	return ls[0]
}

// proseVerdict reads step 4: the label the capitalised label words agree
// on, else the one all label words agree on. ok is false when the words of
// the deciding rank disagree; "" with ok means no label word.
func proseVerdict(text string, set Labels) (label string, ok bool) {
	var caps, all []string
	for _, o := range proseLabels(text, set) {
		all = append(all, o.label)
		if o.caps {
			caps = append(caps, o.label)
		}
	}
	for _, ls := range [][]string{caps, all} {
		if len(ls) > 0 {
			l := agree(ls)
			return l, l != ""
		}
	}
	return "", true
}

type labelWord struct {
	label string
	caps  bool
}

// Words that end a clause's scope for negation: a contrast or a
// consequence starts a new thought ("not complete, but correct"; "does not
// match, so it is wrong"). "and" ends only the short scope that may turn a
// WRONG into CORRECT ("does not match the gold and is wrong"), and, for
// CORRECT, only when words stand between "and" and the label.
var (
	clauseWords = wordSet("but however although though yet whereas while nevertheless nonetheless so therefore thus hence because since which")
	negators    = wordSet("not never no nor neither none nothing cannot hardly scarcely isnt arent wasnt werent dont doesnt didnt cant couldnt wont wouldnt shouldnt aint hasnt havent hadnt mustnt neednt")
	hedges      = wordSet("partially partly partial mostly largely half halfway somewhat nearly almost semi kind sort kinda")
	// partialHedges are the hedges that, under a prompt offering PARTIAL,
	// are that label ("partly correct"); the others stay no verdict.
	partialHedges = wordSet("partially partly partial half halfway somewhat semi")
	intensives    = wordSet("entirely completely totally fully quite exactly strictly necessarily wholly altogether perfectly all")
	attributive   = wordSet("a an the any some every each to")
)

func wordSet(s string) map[string]bool { return lexical.Set(strings.Fields(s)) }

// How far back a negation reaches: far for CORRECT ("I do not think that
// the answer is correct"), near for WRONG, where a stray negation would
// wrongly make a verdict CORRECT.
const (
	negScopeCorrect = 6
	negScopeWrong   = 3
	hedgeScope      = 2
)

// proseLabels lists the verdict words of a text with their meaning in
// context (see ParseReply), leaving out those that are not verdicts.
func proseLabels(text string, set Labels) []labelWord {
	var (
		found, sentence []labelWord
		clause          []string // lower-case words of the clause so far
		near            int      // where the short scope starts in clause
		words           []string // the sentence's words, as written
	)
	endClause := func() { clause, near = clause[:0], 0 }
	endSentence := func(keep bool) {
		// a sentence of one word of the closed set answers too: "Is it correct? No."
		if l := closedWord(upperASCII(strings.Join(words, " ")), set); keep && len(words) == 1 && l != "" {
			sentence = append(sentence, labelWord{l, words[0] == upperASCII(words[0])})
		}
		if keep {
			found = append(found, sentence...)
		}
		sentence, words = sentence[:0], words[:0]
		endClause()
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) {
					j += n2
					continue
				}
				if r2 == '\'' || r2 == '’' { // isn't, isn’t
					if r3, n3 := utf8.DecodeRuneInString(text[j+n2:]); unicode.IsLetter(r3) {
						j += n2 + n3
						continue
					}
				}
				break
			}
			raw := text[i:j]
			i = j
			words = append(words, raw)
			w := strings.NewReplacer("'", "", "’", "").Replace(lowerASCII(raw))
			switch {
			case clauseWords[w]:
				endClause()
				continue
			case w == "and":
				near = len(clause)
				continue
			case w == "correct" || w == "wrong" || w == "incorrect":
				if l := wordLabel(w, clause, near, set); l != "" {
					sentence = append(sentence, labelWord{l, raw == upperASCII(raw)})
				}
			case set == Graded && partialWord(w, raw, clause):
				if !negatedPartial(clause, near) {
					sentence = append(sentence, labelWord{LabelPartial, raw == upperASCII(raw)})
				}
			}
			clause = append(clause, w)
			continue
		case r == '.' || r == '!' || r == '\n':
			endSentence(true)
		case r == '?': // a question names labels without giving one
			endSentence(false)
		case r == ';' || r == ':' || r == ',' || r == '–' || r == '—':
			endClause()
		case r == '-':
			// a dash between words ends a clause; a hyphen (not-correct) does not
			before, _ := utf8.DecodeLastRuneInString(text[:i])
			after, _ := utf8.DecodeRuneInString(text[i+n:])
			if unicode.IsSpace(before) || unicode.IsSpace(after) {
				endClause()
			}
		}
		i += n
	}
	endSentence(true)
	return found
}

// partialWord: under a prompt offering PARTIAL, the word is that label by
// itself: "PARTIAL" in capitals, as the prompt spells it (a lower-case
// "partial" describes something: "a partial list"), or "credit" after
// "partial" ("deserves partial credit"). Not after "a"/"the": "a PARTIAL
// list" names a thing.
func partialWord(w, raw string, clause []string) bool {
	n := len(clause)
	switch {
	case w == "partial" && raw == upperASCII(raw):
		return n == 0 || !attributive[clause[n-1]]
	case w == "credit" && n > 0 && clause[n-1] == "partial":
		return n == 1 || !attributive[clause[n-2]]
	}
	return false
}

// negatedPartial: a negation in the clause before a PARTIAL word (as far
// back as for CORRECT) leaves it no verdict: "not PARTIAL" may mean either
// other label.
func negatedPartial(clause []string, near int) bool {
	return negation(clause, negScopeCorrect, correctStart(clause, near)) >= 0
}

// correctStart is where a CORRECT's negation scope starts: "and" followed
// by more words starts a new clause ("nothing is missing and the answer is
// correct"); "not complete and correct" keeps the negation.
func correctStart(clause []string, near int) int {
	if near > 0 && near < len(clause) {
		return near
	}
	return 0
}

// negation is the index of the last negation among the scope words of
// clause before its end, from start on; -1 if none.
func negation(clause []string, scope, start int) int {
	for k := len(clause) - 1; k >= max(start, len(clause)-scope); k-- {
		if isNegation(clause, k) {
			return k
		}
	}
	return -1
}

// wordLabel is the label a verdict word w gives after the clause's words.
func wordLabel(w string, clause []string, near int, set Labels) string {
	n := len(clause)
	hedge := -1 // the nearest hedge word in scope
	for k := n - 1; k >= max(0, n-hedgeScope) && hedge < 0; k-- {
		if hedges[clause[k]] {
			hedge = k
		}
	}
	// A partial hedge under a prompt offering PARTIAL is that label,
	// unless it describes a thing ("a partially correct list").
	partial := func() string {
		if set == Graded && partialHedges[clause[hedge]] && (hedge == 0 || !attributive[clause[hedge-1]]) {
			return LabelPartial
		}
		return ""
	}
	if w == "correct" {
		switch {
		case negation(clause, negScopeCorrect, correctStart(clause, near)) >= 0:
			return LabelWrong
		case hedge >= 0:
			return partial()
		case n > 0 && attributive[clause[n-1]]:
			return ""
		}
		return LabelCorrect
	}
	if k := negation(clause, negScopeWrong, near); k >= 0 {
		for _, between := range clause[k+1:] {
			if intensives[between] || hedges[between] { // "not entirely wrong"
				return ""
			}
		}
		return LabelCorrect
	}
	if hedge >= 0 {
		return partial()
	}
	return LabelWrong
}

// isNegation: clause[k] negates what follows, except in "not only" and
// "no doubt".
func isNegation(clause []string, k int) bool {
	w := clause[k]
	if !negators[w] && !contractedNot(w) {
		return false
	}
	if k+1 < len(clause) {
		switch next := clause[k+1]; {
		case w == "not" && (next == "only" || next == "just" || next == "merely"), w == "no" && next == "doubt":
			return false
		}
	}
	return true
}

// contractedNot: an n't contraction (apostrophe removed) beyond the listed
// negators: shan't, mightn't, ...
func contractedNot(w string) bool {
	stem, ok := strings.CutSuffix(w, "nt")
	return ok && slices.Contains([]string{"sha", "might", "may", "dare", "ought", "need", "must"}, stem)
}

// upperASCII and lowerASCII fold ASCII letters only and leave every other
// byte as it is (invalid UTF-8 too).
func upperASCII(s string) string { return foldASCII(s, 'a', 'A') }
func lowerASCII(s string) string { return foldASCII(s, 'A', 'a') }

func foldASCII(s string, from, to byte) string {
	b := []byte(s)
	for i, c := range b {
		if from <= c && c <= from+25 {
			b[i] = c - from + to
		}
	}
	return string(b)
}

// distinct lists the labels of ls once each, in order of appearance.
func distinct(ls []string) []string {
	var out []string
	for _, l := range ls {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func clipReply(s string) string { return fmt.Sprintf("%q", clip.To(s, 200)) }
