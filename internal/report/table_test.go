package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"reflect"
	"strings"
	"testing"
)

func sample() *Table {
	t := &Table{
		Title:  "Results",
		Header: []string{"system", "J", "note"},
		Notes:  []string{"J is the LLM-judge accuracy."},
	}
	t.Add("flat", 0.6789, "a|b")
	t.Add("graph", math.NaN(), `quote "x", comma`)
	t.Add("turns", 42, "pipe || twice")
	return t
}

// parseMarkdownRow splits a "| a | b |" line on unescaped pipes and undoes
// the escaping, as a GFM reader would.
func parseMarkdownRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func TestAddFormats(t *testing.T) {
	tb := sample()
	want := [][]string{
		{"flat", "0.68", "a|b"},
		{"graph", "-", `quote "x", comma`},
		{"turns", "42", "pipe || twice"},
	}
	if !reflect.DeepEqual(tb.Rows, want) {
		t.Fatalf("rows = %q", tb.Rows)
	}
}

func TestF(t *testing.T) {
	cases := []struct {
		v    float64
		d    int
		want string
	}{
		{math.NaN(), 2, "-"},
		{0.125, 1, "0.1"},
		{1, 3, "1.000"},
		{-2.5, 0, "-2"},
		{math.Inf(1), 2, "+Inf"},
	}
	for _, c := range cases {
		if got := F(c.v, c.d); got != c.want {
			t.Errorf("F(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

func TestMarkdownEscapesPipesAndParsesBack(t *testing.T) {
	tb := sample()
	var b bytes.Buffer
	if err := tb.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "### Results\n\n") {
		t.Fatalf("no title heading:\n%s", out)
	}
	if !strings.Contains(out, tb.Notes[0]) {
		t.Fatalf("note missing:\n%s", out)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2+len(tb.Rows) {
		t.Fatalf("got %d table lines, want %d:\n%s", len(rows), 2+len(tb.Rows), out)
	}
	if got := parseMarkdownRow(rows[0]); !reflect.DeepEqual(got, tb.Header) {
		t.Fatalf("header parsed back as %q", got)
	}
	if got := parseMarkdownRow(rows[1]); len(got) != len(tb.Header) {
		t.Fatalf("separator has %d columns: %q", len(got), rows[1])
	}
	for i, r := range tb.Rows {
		if got := parseMarkdownRow(rows[2+i]); !reflect.DeepEqual(got, r) {
			t.Errorf("row %d parsed back as %q, want %q", i, got, r)
		}
	}
}

func TestMarkdownKeepsMultilineCellOnOneRow(t *testing.T) {
	tb := &Table{Header: []string{"a", "b"}, Rows: [][]string{{"line1\nline2", "x"}}}
	var b bytes.Buffer
	if err := tb.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("a newline in a cell broke the table into %d lines:\n%s", len(lines), b.String())
	}
	if got := parseMarkdownRow(lines[2]); len(got) != 2 || got[1] != "x" || !strings.Contains(got[0], "line1") || !strings.Contains(got[0], "line2") {
		t.Fatalf("row parsed back as %q", got)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	tb := sample()
	tb.Rows = append(tb.Rows, []string{"multi\nline", "", "tab\there"})
	var b bytes.Buffer
	if err := tb.CSV(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), tb.Title) || strings.Contains(b.String(), tb.Notes[0]) {
		t.Fatal("CSV contains title or notes")
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := append([][]string{tb.Header}, tb.Rows...)
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("CSV read back as %q, want %q", recs, want)
	}
}

func TestTerminalContainsEveryCell(t *testing.T) {
	tb := sample()
	tb.Rows = append(tb.Rows, []string{"a rather long system name with spaces", "0.01", "ü"})
	var b bytes.Buffer
	if err := tb.Terminal(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range append(append([]string{tb.Title, tb.Notes[0]}, tb.Header...), flatten(tb.Rows)...) {
		if !strings.Contains(out, s) {
			t.Errorf("terminal output lacks %q:\n%s", s, out)
		}
	}
	// The header keeps its case (auto-format is off).
	if strings.Contains(out, "SYSTEM") {
		t.Errorf("header was upper-cased:\n%s", out)
	}
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func TestWriteFormats(t *testing.T) {
	tb := sample()
	for format, marker := range map[string]string{"markdown": "|---|", "md": "|---|", "csv": "system,J,note", "terminal": "Results", "": "Results"} {
		var b bytes.Buffer
		if err := tb.Write(&b, format); err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		if !strings.Contains(b.String(), marker) {
			t.Errorf("format %q output lacks %q", format, marker)
		}
	}
	err := tb.Write(&bytes.Buffer{}, "html")
	if err == nil || !strings.Contains(err.Error(), "html") || !strings.Contains(err.Error(), "markdown") {
		t.Fatalf("unknown format err = %v", err)
	}
}
