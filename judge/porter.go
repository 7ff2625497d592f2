package judge

import "strings"

// Stem is the Porter stemmer as NLTK's PorterStemmer runs it in its default
// NLTK_EXTENSIONS mode, because LoCoMo's F1 stems with exactly that. The
// NLTK mode departs from Porter's 1980 paper in a few places, marked "NLTK"
// below: a pool of irregular forms, words of one or two letters kept as
// they are, "ies"/"ied" on four-letter words, the y→i rule, the "alli"
// re-run, "bli", "fulli" and "logi" in step 2, and the short-word cvc test.
// Input is expected lower case; non-letters are simply treated as consonants,
// as NLTK does.
func Stem(word string) string {
	w := strings.ToLower(word)
	if p, ok := irregular[w]; ok { // NLTK
		return p
	}
	if strings.ContainsFunc(w, func(r rune) bool { return r >= 0x80 }) {
		return stemNonASCII(w)
	}
	return stemBytes(w)
}

func stemBytes(w string) string {
	if len(w) <= 2 { // NLTK
		return w
	}
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	return step5b(w)
}

// stemNonASCII stems a word with non-ASCII letters the way NLTK does, which
// counts characters, not bytes: each distinct non-ASCII rune is mapped to one
// byte >= 0x80 (a consonant to the algorithm, as any non-vowel is in NLTK),
// the byte algorithm runs, and the bytes are mapped back.
func stemNonASCII(w string) string {
	toByte := map[rune]byte{}
	var fromByte []rune
	buf := make([]byte, 0, len(w))
	for _, r := range w {
		if r < 0x80 {
			buf = append(buf, byte(r))
			continue
		}
		b, ok := toByte[r]
		if !ok {
			if len(fromByte) == 128 {
				return w // too many distinct symbols to encode; leave it unstemmed
			}
			b = byte(0x80 + len(fromByte))
			toByte[r] = b
			fromByte = append(fromByte, r)
		}
		buf = append(buf, b)
	}
	out := stemBytes(string(buf))
	var sb strings.Builder
	for i := range len(out) {
		if c := out[i]; c < 0x80 {
			sb.WriteByte(c)
		} else {
			sb.WriteRune(fromByte[c-0x80])
		}
	}
	return sb.String()
}

// irregular maps word forms straight to their stems, bypassing the steps.
var irregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying": "die", "lying": "lie", "tying": "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe":    "howe",
	"proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

// consonant reports whether w[i] is a consonant in Porter's sense: not a
// vowel, and y only when it follows a vowel (or starts the word).
func consonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(w, i-1)
	}
	return true
}

// measure is m in [C](VC){m}[V]: the number of vowel→consonant switches.
func measure(s string) int {
	m := 0
	for i := 1; i < len(s); i++ {
		if !consonant(s, i-1) && consonant(s, i) {
			m++
		}
	}
	return m
}

func hasVowel(s string) bool {
	for i := range len(s) {
		if !consonant(s, i) {
			return true
		}
	}
	return false
}

func endsDouble(s string) bool {
	n := len(s)
	return n >= 2 && s[n-1] == s[n-2] && consonant(s, n-1)
}

// endsCVC is condition *o; NLTK also accepts a two-letter vowel+consonant stem.
func endsCVC(s string) bool {
	n := len(s)
	if n >= 3 && consonant(s, n-3) && !consonant(s, n-2) && consonant(s, n-1) {
		c := s[n-1]
		return c != 'w' && c != 'x' && c != 'y'
	}
	return n == 2 && !consonant(s, 0) && consonant(s, 1)
}

// rule replaces suffix by repl.
type rule struct{ suffix, repl string }

// applyRules uses the first rule whose suffix matches, when cond (nil =
// always) holds for the stem before it; when it fails, no later rule is
// tried (the paper's longest-match convention).
func applyRules(w string, rules []rule, cond func(stem string) bool) string {
	for _, r := range rules {
		if stem, ok := strings.CutSuffix(w, r.suffix); ok {
			if cond == nil || cond(stem) {
				return stem + r.repl
			}
			return w
		}
	}
	return w
}

func step1a(w string) string {
	if len(w) == 4 && strings.HasSuffix(w, "ies") { // NLTK: ties → tie
		return w[:1] + "ie"
	}
	return applyRules(w, []rule{{"sses", "ss"}, {"ies", "i"}, {"ss", "ss"}, {"s", ""}}, nil)
}

func step1b(w string) string {
	if strings.HasSuffix(w, "ied") { // NLTK: died → die, spied → spi; nothing else in 1b
		if len(w) == 4 {
			return w[:1] + "ie"
		}
		return w[:len(w)-3] + "i"
	}
	if strings.HasSuffix(w, "eed") {
		stem := w[:len(w)-3]
		if measure(stem) > 0 {
			return stem + "ee"
		}
		return w
	}
	var stem string
	switch {
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		stem = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]):
		stem = w[:len(w)-3]
	default:
		return w
	}
	switch {
	case strings.HasSuffix(stem, "at"), strings.HasSuffix(stem, "bl"), strings.HasSuffix(stem, "iz"):
		return stem + "e"
	case endsDouble(stem):
		if c := stem[len(stem)-1]; c == 'l' || c == 's' || c == 'z' {
			return stem
		}
		return stem[:len(stem)-1]
	case measure(stem) == 1 && endsCVC(stem):
		return stem + "e"
	}
	return stem
}

// step1c: y → i after a consonant, when something precedes that consonant (NLTK).
func step1c(w string) string {
	if n := len(w); n > 2 && w[n-1] == 'y' && consonant(w[:n-1], n-2) {
		return w[:n-1] + "i"
	}
	return w
}

// step2Rules apply when m>0. NLTK departs from the paper with "bli" (not
// "abli") and "fulli", and with "logi" → "log", which keeps the l with the
// stem: its condition is on the word minus "ogi".
var step2Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"},
	{"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}, {"fulli", "ful"}, {"logi", "log"},
}

func step2(w string) string {
	// NLTK: "alli" → "al" is tried first and, when it fires, step 2 runs again.
	if strings.HasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		return step2(w[:len(w)-4] + "al")
	}
	return applyRules(w, step2Rules, func(stem string) bool {
		if strings.HasSuffix(w, "logi") { // only the "logi" rule matches such a word
			return measure(w[:len(w)-3]) > 0
		}
		return measure(stem) > 0
	})
}

var step3Rules = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func step3(w string) string {
	return applyRules(w, step3Rules, func(stem string) bool { return measure(stem) > 0 })
}

// step4Suffixes are dropped when m>1; "ion" only after s or t.
var step4Suffixes = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"}

func step4(w string) string {
	for _, suffix := range step4Suffixes {
		if stem, ok := strings.CutSuffix(w, suffix); ok {
			if measure(stem) > 1 && (suffix != "ion" || strings.HasSuffix(stem, "s") || strings.HasSuffix(stem, "t")) {
				return stem
			}
			return w
		}
	}
	return w
}

// step5a drops a final e when m>1, or when m=1 and the stem is not *o.
func step5a(w string) string {
	if !strings.HasSuffix(w, "e") {
		return w
	}
	stem := w[:len(w)-1]
	if m := measure(stem); m > 1 || (m == 1 && !endsCVC(stem)) {
		return stem
	}
	return w
}

// step5b: -ll → -l when m>1 (measured on the word minus one l).
func step5b(w string) string {
	if strings.HasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}
