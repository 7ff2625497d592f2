// Package report renders tables (terminal, markdown, CSV) and summaries of
// runs. Every table of the program goes through Table so the three formats
// always agree.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a titled grid of strings.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string // printed under the table
	// MaxWidth, when set, fits the terminal rendering to that many runes:
	// column WrapCol (a label, never a number) wraps onto several lines
	// and the title and notes wrap at spaces. Markdown and CSV are never
	// wrapped.
	MaxWidth int
	WrapCol  int
}

// Add appends a row built from values formatted with %v (floats via F).
func (t *Table) Add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case string:
			row[i] = v
		case float64:
			row[i] = F(v, 2)
		default:
			row[i] = fmt.Sprint(v)
		}
	}
	t.Rows = append(t.Rows, row)
}

// F formats a float with d decimals; NaN prints as "-".
func F(v float64, d int) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.*f", d, v)
}

// Terminal writes the table with box drawing for people.
func (t *Table) Terminal(w io.Writer) error {
	t = t.fitted()
	if t.Title != "" {
		t.printWrapped(w, t.Title)
	}
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone)}
	if t.wrapped() {
		// Rows of several lines need a rule between them to read as rows.
		opts = append(opts, tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
	}
	tb := tablewriter.NewTable(w, opts...)
	tb.Header(anys(t.Header)...)
	for _, r := range t.Rows {
		if err := tb.Append(anys(r)...); err != nil {
			return err
		}
	}
	if err := tb.Render(); err != nil {
		return err
	}
	for _, n := range t.Notes {
		t.printWrapped(w, n)
	}
	return nil
}

// anys is ss as tablewriter takes cells.
func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// wrapped says whether a row has a cell of several lines.
func (t *Table) wrapped() bool {
	return slices.ContainsFunc(t.Rows, func(r []string) bool {
		return slices.ContainsFunc(r, func(c string) bool { return strings.Contains(c, "\n") })
	})
}

// printWrapped prints a title or note line, wrapped at MaxWidth when set
// (wrapText leaves it whole when not).
func (t *Table) printWrapped(w io.Writer, s string) {
	for _, l := range wrapText(s, t.MaxWidth) {
		fmt.Fprintln(w, l)
	}
}

// Markdown writes a GitHub-flavoured markdown table.
func (t *Table) Markdown(w io.Writer) error {
	if t.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", t.Title)
	}
	// Pipes would split a cell and newlines would end the row.
	esc := strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>").Replace
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = esc(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(parts, " | "))
	}
	line(t.Header)
	fmt.Fprintf(w, "|%s|\n", strings.Join(slices.Repeat([]string{"---"}, len(t.Header)), "|"))
	for _, r := range t.Rows {
		line(r)
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range t.Notes {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// CSV writes header and rows as CSV (title and notes left out).
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	return cw.WriteAll(t.Rows) // flushes
}

// Write renders in the named format: "terminal", "markdown" or "csv".
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case "", "terminal", "text":
		return t.Terminal(w)
	case "markdown", "md":
		return t.Markdown(w)
	case "csv":
		return t.CSV(w)
	}
	return fmt.Errorf("unknown table format %q: want terminal, markdown or csv", format)
}
