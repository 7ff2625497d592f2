package report

import (
	"strings"
	"unicode/utf8"
)

// TerminalWidth is the width a terminal table is fitted to unless the
// table says otherwise: a common terminal, and what fits a laptop screen
// split in two.
const TerminalWidth = 120

// minWrapWidth keeps a wrapped column readable even when the other
// columns leave less (the table is then wider than asked).
const minWrapWidth = 12

// width is a string's width in runes, its widest line when it has several.
func width(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// renderedWidth is the width Terminal draws for these columns: one border
// rune, then per column its content, one space either side and a rune of
// border.
func renderedWidth(cols []int) int {
	w := 1
	for _, c := range cols {
		w += c + 3
	}
	return w
}

// colWidths are the content widths of the header and rows, per column.
func (t *Table) colWidths() []int {
	cols := make([]int, len(t.Header))
	for i, h := range t.Header {
		cols[i] = width(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			if i < len(cols) {
				cols[i] = max(cols[i], width(c))
			}
		}
	}
	return cols
}

// fitted is the table with column WrapCol wrapped onto several lines so
// that the drawn table is at most MaxWidth runes wide. Only that column
// wraps: numbers never break. The receiver is left unchanged.
func (t *Table) fitted() *Table {
	if t.MaxWidth <= 0 || t.WrapCol < 0 || t.WrapCol >= len(t.Header) {
		return t
	}
	cols := t.colWidths()
	over := renderedWidth(cols) - t.MaxWidth
	if over <= 0 {
		return t
	}
	avail := max(cols[t.WrapCol]-over, minWrapWidth)
	out := *t
	out.Header = append([]string(nil), t.Header...)
	out.Header[t.WrapCol] = strings.Join(wrapText(t.Header[t.WrapCol], avail), "\n")
	out.Rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		out.Rows[i] = append([]string(nil), r...)
		if t.WrapCol < len(r) {
			out.Rows[i][t.WrapCol] = strings.Join(wrapText(r[t.WrapCol], avail), "\n")
		}
	}
	return &out
}

// Wrap breaks s into lines of at most w runes, as Terminal wraps a
// table's title and notes (for lines printed next to a fitted table).
func Wrap(s string, w int) []string { return wrapText(s, w) }

// wrapText breaks s into lines of at most w runes: at spaces first, then
// after hyphens inside a long word, and only then mid-word.
func wrapText(s string, w int) []string {
	if w <= 0 || utf8.RuneCountInString(s) <= w {
		return []string{s}
	}
	var lines []string
	line := ""
	flush := func() {
		if line != "" {
			lines = append(lines, line)
			line = ""
		}
	}
	for _, word := range strings.Fields(s) {
		for _, piece := range splitLong(word, w) {
			switch {
			case line == "":
				line = piece
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(piece) <= w:
				line += " " + piece
			default:
				flush()
				line = piece
			}
		}
	}
	flush()
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
}

// splitLong cuts a word longer than w after its hyphens, hard at w runes
// where a piece has no hyphen to cut at. Pieces are rejoined by wrapText
// with spaces only when they land on one line, so a hyphenated name that
// needed cutting keeps its hyphens at the line ends.
func splitLong(word string, w int) []string {
	if utf8.RuneCountInString(word) <= w {
		return []string{word}
	}
	var out []string
	rs := []rune(word)
	for len(rs) > w {
		cut := w // hard, unless a hyphen past the first rune gives a cut
		for i := w - 1; i > 0; i-- {
			if rs[i] == '-' {
				cut = i + 1
				break
			}
		}
		out = append(out, string(rs[:cut]))
		rs = rs[cut:]
	}
	if len(rs) > 0 {
		out = append(out, string(rs))
	}
	return out
}
