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
	if !isASCII(w) {
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

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
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

// rule replaces suffix by repl when cond(stem) holds (nil = always).
type rule struct {
	suffix, repl string
	cond         func(stem string) bool
}

// applyRules uses the first rule whose suffix matches; when its condition
// fails, no later rule is tried (the paper's longest-match convention).
func applyRules(w string, rules []rule) string {
	for _, r := range rules {
		if strings.HasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.cond == nil || r.cond(stem) {
				return stem + r.repl
			}
			return w
		}
	}
	return w
}

func mGT0(s string) bool { return measure(s) > 0 }
func mGT1(s string) bool { return measure(s) > 1 }

func step1a(w string) string {
	if len(w) == 4 && strings.HasSuffix(w, "ies") { // NLTK: ties → tie
		return w[:1] + "ie"
	}
	return applyRules(w, []rule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
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

var step2Rules = []rule{
	{"ational", "ate", mGT0},
	{"tional", "tion", mGT0},
	{"enci", "ence", mGT0},
	{"anci", "ance", mGT0},
	{"izer", "ize", mGT0},
	{"bli", "ble", mGT0}, // NLTK: "bli", not the paper's "abli"
	{"alli", "al", mGT0},
	{"entli", "ent", mGT0},
	{"eli", "e", mGT0},
	{"ousli", "ous", mGT0},
	{"ization", "ize", mGT0},
	{"ation", "ate", mGT0},
	{"ator", "ate", mGT0},
	{"alism", "al", mGT0},
	{"iveness", "ive", mGT0},
	{"fulness", "ful", mGT0},
	{"ousness", "ous", mGT0},
	{"aliti", "al", mGT0},
	{"iviti", "ive", mGT0},
	{"biliti", "ble", mGT0},
	{"fulli", "ful", mGT0}, // NLTK
	// NLTK "logi" → "log" keeps the l with the stem; its condition is on
	// the word minus "ogi", so the cond below receives stem+"l".
	{"logi", "log", nil},
}

func step2(w string) string {
	// NLTK: "alli" → "al" is tried first and, when it fires, step 2 runs again.
	if strings.HasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		return step2(w[:len(w)-4] + "al")
	}
	for _, r := range step2Rules {
		if !strings.HasSuffix(w, r.suffix) {
			continue
		}
		stem := w[:len(w)-len(r.suffix)]
		ok := false
		if r.suffix == "logi" {
			ok = measure(w[:len(w)-3]) > 0
		} else {
			ok = r.cond(stem)
		}
		if ok {
			return stem + r.repl
		}
		return w
	}
	return w
}

var step3Rules = []rule{
	{"icate", "ic", mGT0},
	{"ative", "", mGT0},
	{"alize", "al", mGT0},
	{"iciti", "ic", mGT0},
	{"ical", "ic", mGT0},
	{"ful", "", mGT0},
	{"ness", "", mGT0},
}

func step3(w string) string { return applyRules(w, step3Rules) }

var step4Rules = []rule{
	{"al", "", mGT1},
	{"ance", "", mGT1},
	{"ence", "", mGT1},
	{"er", "", mGT1},
	{"ic", "", mGT1},
	{"able", "", mGT1},
	{"ible", "", mGT1},
	{"ant", "", mGT1},
	{"ement", "", mGT1},
	{"ment", "", mGT1},
	{"ent", "", mGT1},
	{"ion", "", func(s string) bool {
		return measure(s) > 1 && (strings.HasSuffix(s, "s") || strings.HasSuffix(s, "t"))
	}},
	{"ou", "", mGT1},
	{"ism", "", mGT1},
	{"ate", "", mGT1},
	{"iti", "", mGT1},
	{"ous", "", mGT1},
	{"ive", "", mGT1},
	{"ize", "", mGT1},
}

func step4(w string) string { return applyRules(w, step4Rules) }

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
