// Package names holds the one rule for the names membench turns into
// directory names, file names and table rows: run ids, dataset names and
// judge names. Such a name is 1 to Max characters from A-Z, a-z, 0-9 and
// "._+-", so it is one plain path element on every system and prints as
// itself in a terminal, a table or a log line.
package names

import (
	"strconv"

	"github.com/membench/membench/internal/badinput"
)

// Max is the longest name allowed.
const Max = 100

// Allowed says in words which characters a name may hold.
const Allowed = "letters, digits and . _ + -"

func allowed(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '+' || c == '-'
}

// Check returns nil for a valid name, else an input error that names what
// (e.g. "--run-id"), shows the value on one line and says the rule.
func Check(what, s string) error {
	switch {
	case s == "":
		return badinput.Errorf("%s is empty; give a name of %s", what, Allowed)
	case len(s) > Max:
		return badinput.Errorf("%s %s is %d characters long; give at most %d (%s)", what, Show(s), len(s), Max, Allowed)
	}
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			return badinput.Errorf("%s %s: character %d is not allowed; use only %s, at most %d characters", what, Show(s), i+1, Allowed, Max)
		}
	}
	return nil
}

// Show quotes s for a message: control bytes and invalid UTF-8 are
// escaped, and a long value is cut to its first 40 bytes.
func Show(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}
