package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm"
)

// Verdict labels the audit prompts ask for.
const (
	Supported   = "SUPPORTED"
	Unsupported = "UNSUPPORTED"
)

// Verdict is a parsed judge reply.
type Verdict struct {
	Supported bool
	Reason    string
}

// ParseVerdict reads an audit judge's reply with judge.ParseReply's rules,
// so the two readers cannot drift apart: judgeWords renames the audit's
// labels to the judge's words first. A negation in any casing flips
// SUPPORTED ("It isn't SUPPORTED", "NEVER SUPPORTED", "not fully
// supported" read UNSUPPORTED); a JSON verdict must be SUPPORTED, YES, TRUE
// or UNSUPPORTED, NO, FALSE, so {"verdict": "not supported"} is none; a
// hedge, a question or disagreeing labels give none either. The reason is
// read from the reply as written.
func ParseVerdict(text string) (Verdict, error) {
	r, err := judge.ParseReply(judgeWords(text))
	if err != nil {
		return Verdict{}, fmt.Errorf("no single SUPPORTED/UNSUPPORTED verdict in %q (a negated, hedged, questioned or contradicted label is none)", clip.To(text, 300))
	}
	return Verdict{Supported: r.Label == judge.LabelCorrect, Reason: replyReason(text)}, nil
}

// renames maps the (ASCII lower-case) words judge.ParseReply reads as
// labels onto the audit's meaning: SUPPORTED is its CORRECT and
// UNSUPPORTED its INCORRECT, while the judge's own label words are not
// audit labels ("the entry is correct but not supported" is UNSUPPORTED),
// so they become words the judge reads as nothing. Each replacement is one
// word, as the original, so the judge's negation scopes (counted in words)
// see the same distances.
var renames = map[string]string{
	"supported":   "correct",
	"unsupported": "incorrect",
	"correct":     "accurate",
	"incorrect":   "inaccurate",
	"wrong":       "mistaken",
}

// judgeWords rewrites text's whole words found in renames, keeping their
// case shape (all capitals stay capitals: the judge ranks capitalised
// labels above lower-case ones). Words are split as judge.ParseReply splits
// them, on anything but letters and digits; only ASCII case is folded, as
// there. Letters are replaced by letters, so JSON stays JSON.
func judgeWords(text string) string {
	return word.ReplaceAllStringFunc(text, func(w string) string {
		if to, ok := renames[lowerASCII(w)]; ok {
			return withCaseOf(to, w)
		}
		return w
	})
}

// word is a run of letters and digits (unicode.IsLetter, unicode.IsDigit).
var word = regexp.MustCompile(`[\p{L}\p{Nd}]+`)

// withCaseOf gives to the case shape of like: all capitals, a capital
// first letter, or lower case.
func withCaseOf(to, like string) string {
	switch {
	case like == strings.ToUpper(like):
		return strings.ToUpper(to)
	case like[0] >= 'A' && like[0] <= 'Z':
		return strings.ToUpper(to[:1]) + to[1:]
	}
	return to
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// replyReason is the reason field of a JSON reply, else the whole reply.
func replyReason(text string) string {
	if body := llm.ExtractJSON(text); strings.HasPrefix(body, "{") {
		var obj map[string]any
		if json.Unmarshal([]byte(body), &obj) == nil {
			keys := slices.Sorted(maps.Keys(obj)) // "Reason" and "reason" may both be there
			for _, key := range []string{"reason", "reasoning", "explanation", "rationale", "justification"} {
				for _, k := range keys {
					if s, ok := obj[k].(string); ok && strings.EqualFold(k, key) {
						return s
					}
				}
			}
		}
	}
	return strings.TrimSpace(text)
}
