// Package names holds the one rule for the names membench turns into
// directory names, file names and table rows: run ids, dataset names and
// judge names. Such a name is 1 to Max characters from A-Z, a-z, 0-9 and
// "._+-", so it is one plain path element on every system and prints as
// itself in a terminal, a table or a log line.
package names

import (
	"cmp"
	"strconv"
	"strings"

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

// Compare orders names naturally: digit runs compare as numbers
// ("conv-9" before "conv-10"), the rest byte by byte; names equal that
// way ("q01", "q1") fall back to plain order so the order is total.
func Compare(a, b string) int {
	x, y := a, b
	for x != "" && y != "" {
		dx, dy := digits(x), digits(y)
		if dx != "" && dy != "" {
			nx, ny := strings.TrimLeft(dx, "0"), strings.TrimLeft(dy, "0")
			if c := cmp.Or(cmp.Compare(len(nx), len(ny)), strings.Compare(nx, ny)); c != 0 {
				return c
			}
			x, y = x[len(dx):], y[len(dy):]
			continue
		}
		if x[0] != y[0] {
			return cmp.Compare(x[0], y[0])
		}
		x, y = x[1:], y[1:]
	}
	return cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(a, b))
}

// digits is the run of ASCII digits s starts with.
func digits(s string) string { return s[:len(s)-len(strings.TrimLeft(s, "0123456789"))] }
