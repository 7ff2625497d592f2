package tokens

import "encoding/binary"

// Long texts are counted in pieces, so that a long turn inside many
// different prompts (one per question) is encoded once: its pieces are
// memoised like any text, and only the pieces at its edges, which hold
// some of the surrounding prompt, are new in each prompt.
//
// The pieces add up exactly to the count of the whole. o200k_base first
// cuts a text into pre-tokens with a regular expression and then encodes
// each pre-token alone, so a text may be cut wherever a pre-token ends,
// provided the expression finds the same pre-tokens in the two halves as
// in the whole. That holds at the places splittable reports (the argument
// is written beside each rule); TestCutsAreExact and FuzzCutsAreExact
// check it against the encoder.
//
// Which of those places become cuts depends on the bytes near them (a
// hash of the 32 bytes before, and whether another such place lies within
// cutGap), not on where the text starts, so a turn is cut the same way
// wherever it appears. The one exception, a cut forced after maxPiece
// bytes without one, keeps text that repeats itself (where the hash may
// never hit) in pieces: such text has few distinct pieces, whatever its
// length.

const (
	// splitFrom is the length from which a text is counted in pieces;
	// shorter texts go to the encoder whole, as one call costs less than
	// finding cuts and looking pieces up.
	splitFrom = 16 << 10
	// cutMask picks about one place in 1024 by its hash: pieces of a few
	// kilobytes in prose.
	cutMask = 1<<10 - 1
	// cutGap: a place with no other one this close on one side is always
	// a cut, so a long stretch with no places (one huge word, text with no
	// ASCII spaces) becomes a piece of its own instead of joining its
	// neighbours, which differ from prompt to prompt.
	cutGap = 1 << 10
	// maxPiece bounds a piece where a splittable place allows it.
	maxPiece = 64 << 10
	// window is how many bytes before a place its hash reads.
	window = 32
)

// splittable reports whether s may be cut before byte i (0 < i < len(s))
// without changing the count. All four rules look at ASCII bytes only, so
// a cut never falls inside a UTF-8 sequence.
func splittable(s string, i int) bool {
	a, b := s[i-1], s[i]
	switch {
	case b == ' ':
		// A visible character then a space. Of the expression's
		// alternatives, only whitespace runs hold a space anywhere but
		// first, and a whitespace run cannot hold a; so a pre-token ends
		// at a. The only look-ahead, \s+(?!\S), reads the space here and
		// the end of text in the first half: the same answer.
		return graphic(a)
	case a == '\n':
		// A newline then a visible character other than '/'. A newline
		// is only ever the tail of a pre-token, followed by more
		// newlines, '/' or whitespace, so b starts a new one. In the first
		// half a whitespace run ending at the newline matches \s*[\r\n]+
		// before \s+(?!\S) is tried, so the look-ahead never reaches b.
		return graphic(b) && b != '/'
	case b == '\n':
		// A letter or digit then a newline: words and numbers never take
		// a newline, and punctuation (which may, ".\n") is left out.
		return alnum(a)
	case alnum(a) && graphic(b) && !alnum(b) && b != '\'':
		// A letter or digit then punctuation other than the apostrophe
		// that starts 's, 't, 're, ... : a word ends before punctuation,
		// and punctuation never joins a preceding letter or digit.
		return true
	}
	return false
}

func graphic(c byte) bool { return c > ' ' && c < 0x7f }

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// cuts returns where s is cut into pieces: a splittable place whose
// hash hits cutMask, or with no other splittable place within cutGap
// before or after it, or maxPiece bytes or more after the last cut.
func cuts(s string) []int {
	var out []int
	prev, cur, last := -cutGap-1, -1, 0 // the last two splittable places seen, the last cut
	decide := func(next int) {
		if cur <= 0 {
			return
		}
		if cur-prev > cutGap || next-cur > cutGap || cur-last >= maxPiece || windowHash(s, cur)&cutMask == 0 {
			out = append(out, cur)
			last = cur
		}
	}
	for i := 1; i < len(s); i++ {
		if splittable(s, i) {
			decide(i)
			prev, cur = cur, i
		}
	}
	// The text's end counts as far when the last place is far from it.
	decide(len(s) + cutGap + 1)
	return out
}

// windowHash mixes the window bytes before i (fewer at the start of s).
func windowHash(s string, i int) uint64 {
	var w [window]byte
	lo := max(0, i-window)
	copy(w[window-(i-lo):], s[lo:i])
	h := uint64(0)
	for j := 0; j < window; j += 8 {
		h = (h ^ binary.LittleEndian.Uint64(w[j:])) * 0x9E3779B97F4A7C15
	}
	return h >> 40
}
