package lexical

import (
	"strings"
	"unicode/utf8"
)

// firstPerson maps first-person words (lowercase, straight apostrophe) to
// third-person text; "%s" is the speaker's name.
var firstPerson = map[string]string{
	"i": "%s", "me": "%s", "myself": "%s", "my": "%s's", "mine": "%s's",
	"i'm": "%s is", "i've": "%s has", "i'll": "%s will", "i'd": "%s would",
	"im": "%s is", "ive": "%s has",
}

// afterI fixes the verb right after a resolved "I" ("I am" -> "X is").
var afterI = map[string]string{"am": "is", "have": "has", "do": "does", "don't": "doesn't", "was": "was", "go": "goes"}

// ResolveFirstPerson rewrites a speaker's sentence in the third person
// ("I love my dog" -> "Melanie love Melanie's dog"; grammar stays rough,
// the names are what retrieval needs). The apostrophe-less "Im"/"Ive" are
// only taken capitalised, so the words "im" and "ive" in other senses stay.
func ResolveFirstPerson(s, speaker string) string {
	if speaker == "" {
		return s
	}
	words := strings.Fields(s)
	prevI := false
	for i, w := range words {
		core, pre, post := trimPunct(w)
		key := strings.ToLower(strings.ReplaceAll(core, "’", "'"))
		if r, ok := firstPerson[key]; ok && (key != "im" && key != "ive" || core == "Im" || core == "Ive") {
			words[i] = pre + strings.ReplaceAll(r, "%s", speaker) + post
			prevI = key == "i"
			continue
		}
		if prevI {
			if r, ok := afterI[key]; ok {
				words[i] = pre + r + post
			}
		}
		prevI = false
	}
	return strings.Join(words, " ")
}

// trimPunct splits the quotes and punctuation around a word off its core;
// a leading apostrophe (straight or ’) stays, as in "'cause".
func trimPunct(w string) (core, pre, post string) {
	isP := func(r rune) bool { return strings.ContainsRune(`"'“”‘’(),.!?;:`, r) }
	// Decode runes, not bytes: curly quotes are multi-byte.
	start, end := 0, len(w)
	for start < end {
		r, n := utf8.DecodeRuneInString(w[start:end])
		if !isP(r) || r == '\'' || r == '’' {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(w[start:end])
		if !isP(r) {
			break
		}
		end -= n
	}
	return w[start:end], w[:start], w[end:]
}
