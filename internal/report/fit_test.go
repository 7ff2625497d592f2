package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapText(t *testing.T) {
	cases := []struct {
		in   string
		w    int
		want []string
	}{
		{"turns-cosine k=3", 20, []string{"turns-cosine k=3"}},
		{"structmem-no-cross-event k=10 (offline)", 26, []string{"structmem-no-cross-event", "k=10 (offline)"}},
		{"structmem-no-cross-event k=10", 12, []string{"structmem-", "no-cross-", "event k=10"}},
		{"abcdefghijklmnop", 6, []string{"abcdef", "ghijkl", "mnop"}},
	}
	for _, c := range cases {
		if got := wrapText(c.in, c.w); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapText(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// A table whose label column is too wide is drawn within MaxWidth, the
// label wrapping while every number stays whole; without MaxWidth the
// same table is drawn on one line per row.
func TestTerminalFitsMaxWidth(t *testing.T) {
	tb := &Table{Title: "a title " + strings.Repeat("word ", 40), Header: []string{"run", "n", "Overall", "95% CI", "Multi", "Open", "Single", "Temp", "Tok M", "Calls", "Build s"},
		Notes: []string{strings.Repeat("note ", 60)}}
	for _, name := range []string{"structmem-no-cross-event-with-a-very-long-suffix k=10 (offline)", "turns-cosine k=1", "a-system-name-that-is-longer-than-any-column k=20 (partly offline)"} {
		tb.Add(name, 1540, "76.82", "[74.6, 78.9]", "68.77", "46.88", "81.09", "81.62", "1.937", 1056, "22854.0")
	}
	var wide bytes.Buffer
	if err := tb.Terminal(&wide); err != nil {
		t.Fatal(err)
	}
	if maxLine(wide.String()) <= TerminalWidth {
		t.Fatalf("test table should be wider than %d unfitted:\n%s", TerminalWidth, wide.String())
	}
	tb.MaxWidth, tb.WrapCol = TerminalWidth, 0
	var fit bytes.Buffer
	if err := tb.Terminal(&fit); err != nil {
		t.Fatal(err)
	}
	if m := maxLine(fit.String()); m > TerminalWidth {
		t.Errorf("fitted table has a line of %d runes:\n%s", m, fit.String())
	}
	for _, num := range []string{"[74.6, 78.9]", "22854.0", "1540"} {
		if strings.Count(fit.String(), num) != 3 {
			t.Errorf("%q should appear whole in each of 3 rows:\n%s", num, fit.String())
		}
	}
	if !strings.Contains(fit.String(), "turns-cosine k=1") {
		t.Errorf("short label should not wrap:\n%s", fit.String())
	}
	if len(tb.Rows[0][0]) < 60 || strings.Contains(tb.Rows[0][0], "\n") {
		t.Errorf("Terminal changed the table's own cells: %q", tb.Rows[0][0])
	}
	// renderedWidth agrees with what tablewriter draws.
	if got, want := maxLine(wide.String()[strings.Index(wide.String(), "┌"):strings.Index(wide.String(), "┐")+len("┐")]), renderedWidth(tb.colWidths()); got != want {
		t.Errorf("drawn width %d, renderedWidth %d", got, want)
	}
}

func maxLine(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, utf8.RuneCountInString(l))
	}
	return m
}
