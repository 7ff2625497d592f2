// Package lexical holds the shared text heuristics for the offline backend
// and the hashed embedder: a tokeniser, a stopword list, one crude stemmer,
// content words, a sentence splitter and first-person resolution. This is
// not linguistics; it only has to make offline decisions stable and
// transparent. (The LoCoMo F1 metric keeps its own Porter stemmer in judge.)
package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words lowercases s and splits it on anything that is not a letter, a
// digit or a straight apostrophe. The hashed embedder's vectors depend on
// it, so changing it changes every tfidf-hash embedding.
func Words(s string) []string {
	if w := AppendWords(nil, s); w != nil {
		return w
	}
	return []string{}
}

// AppendWords appends the words of s, as Words splits them, to dst (a
// caller splitting many texts reuses one slice). The words are substrings
// of the lowercased s: one allocation at most, none for lowercase text.
func AppendWords(dst []string, s string) []string {
	s = strings.ToLower(s)
	start := -1
	for i, r := range s {
		// unicode.IsLetter, IsDigit or a straight apostrophe, with an
		// ASCII shortcut; the tests hold it equal to strings.FieldsFunc
		// over that predicate (what Words was written as).
		word := r == '\'' || (r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')) ||
			(r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			dst = append(dst, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

var stop = Set(strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been being
i me my mine you your yours he him his she her hers it its we us our they them their this that these those
do does did have has had so not no yes just very really too also what which who whom when where why how
can could would should will shall may might must about into than then there here all any some oh um hey`))

// Set is the set of words.
func Set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// IsStopword reports whether w (lowercase) is in the shared stopword list.
func IsStopword(w string) bool { return stop[w] }

// Stem maps common English inflections of w (lowercase) to one key, so
// "paintings", "painted" and "paint", or "studies", "studied" and "study"
// meet. In order: a possessive 's goes; -ies/-ied become -y; otherwise a
// plural s goes (not after s, u or i: "class", "bus", "tennis"); then -ing
// or -ed when at least three letters stay; then a final e ("love", "lov").
// It never undoubles ("stopped" -> "stopp") and it over- and under-stems
// freely: both sides of every comparison go through it.
func Stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ing", "ed"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// ContentWords returns the words of s that carry topic: lowercase, curly
// apostrophes straightened, possessive 's and stray quotes trimmed,
// stopwords, one-letter words and words in any skip set (checked before
// stemming) dropped, then stemmed and deduped in first-seen order.
func ContentWords(s string, skip ...map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
next:
	for _, w := range Words(strings.ReplaceAll(s, "’", "'")) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if len(w) < 2 || stop[w] {
			continue
		}
		for _, sk := range skip {
			if sk[w] {
				continue next
			}
		}
		if st := Stem(w); !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}
