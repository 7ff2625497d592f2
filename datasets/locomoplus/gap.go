package locomoplus

import (
	"fmt"
	"strconv"
	"strings"
)

// Unit lengths in days, as the authors count them.
var unitDays = map[string]int{"day": 1, "week": 7, "month": 30, "year": 365}

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// Vague amounts the README does not define; a handful of items use them.
// We read "a couple of" as 2 and "a few"/"several" as 3 so those items
// still get a cue time before the query rather than being dropped.
var vagueWords = map[string]int{"couple": 2, "few": 3, "several": 3}

// hedges are words in front of the amount that do not change it.
var hedges = map[string]bool{"about": true, "around": true, "roughly": true, "approximately": true, "nearly": true, "almost": true}

// ParseGap reads a time gap such as "two months later", "about 6 weeks
// later" or "a year after the move" and returns its length in days (a
// week is 7 days, a month 30, a year 365). The amount is a digit string,
// "a"/"an"/"one"…"twelve", or a vague "a couple of"/"a few"/"several";
// "about"/"around" and the words after the unit are ignored.
func ParseGap(s string) (int, error) {
	words := strings.Fields(strings.ToLower(s))
	i := 0
	for i < len(words) && hedges[words[i]] {
		i++
	}
	if i >= len(words) {
		return 0, fmt.Errorf("time gap %q has no amount; write it as \"two months later\"", s)
	}
	n, ok := 0, false
	switch w := words[i]; {
	case numberWords[w] > 0:
		n, ok = numberWords[w], true
		// "a couple of months", "a few weeks"
		if (w == "a" || w == "an") && i+1 < len(words) && vagueWords[words[i+1]] > 0 {
			i++
			n = vagueWords[words[i]]
			if i+1 < len(words) && words[i+1] == "of" {
				i++
			}
		}
	case vagueWords[w] > 0:
		n, ok = vagueWords[w], true
	default:
		if v, err := strconv.Atoi(w); err == nil && v > 0 && v <= 1000 {
			n, ok = v, true
		}
	}
	if !ok {
		return 0, fmt.Errorf("time gap %q: %q is not an amount (use digits or a/an/one…twelve)", s, words[i])
	}
	i++
	if i >= len(words) {
		return 0, fmt.Errorf("time gap %q has no unit; end it with days, weeks, months or years", s)
	}
	days, ok := unitDays[strings.TrimSuffix(words[i], "s")]
	if !ok {
		return 0, fmt.Errorf("time gap %q: %q is not a unit (day, week, month or year)", s, words[i])
	}
	return n * days, nil
}
