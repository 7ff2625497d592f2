// Package clip holds the one rule for cutting long text short in messages
// and records (a model's raw reply, a value from a file): at most n bytes,
// never through a UTF-8 character, marked with "…" when cut.
package clip

import "unicode/utf8"

// To returns s cut to at most n bytes on a character boundary, with "…"
// added when it was cut.
func To(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
