package flat

import (
	"regexp"
	"strings"
	"time"

	"github.com/membench/membench/embed"
)

// DateLayout is how memories show their dates to the answer model.
const DateLayout = "2 January 2006"

// FormatDate renders t for prompts and contexts ("" for an unknown date).
func FormatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(DateLayout)
}

var (
	imageRe    = regexp.MustCompile(`\[image:\s*([^\]]*)\]`)
	sentenceRe = regexp.MustCompile(`[^.!?\n]+[.!?]*`)
)

// Sentences splits text at sentence ends and line breaks. LoCoMo image
// captions ("[image: a dog on a beach]") become their own sentence.
func Sentences(text string) []string {
	var out []string
	text = imageRe.ReplaceAllString(text, "\n[image: $1]\n")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[image:") {
			out = append(out, line)
			continue
		}
		for _, s := range sentenceRe.FindAllString(line, -1) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

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
// the names are what retrieval needs).
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

func trimPunct(w string) (core, pre, post string) {
	isP := func(r rune) bool { return strings.ContainsRune(`"'“”‘(),.!?;:`, r) }
	start, end := 0, len(w)
	for start < end && isP(rune(w[start])) && w[start] != '\'' {
		start++
	}
	for end > start && isP(rune(w[end-1])) {
		end--
	}
	// keep a trailing apostrophe-less word intact: "I'm" has its quote inside
	return w[start:end], w[:start], w[end:]
}

// ContentWords returns the lowercase non-stopwords of s, crudely stemmed.
func ContentWords(s string) []string {
	var out []string
	for _, w := range embed.Words(strings.ReplaceAll(s, "’", "'")) {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if w == "" || embed.IsStopword(w) {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}

// Stem strips common English endings so "works", "worked" and "working"
// meet. It is deliberately crude: it only has to make offline decisions
// stable, not linguistically right.
func Stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			if suf == "s" && strings.HasSuffix(w, "ss") {
				break
			}
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	// "live", "lives", "lived" and "living" all end as "liv".
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}
