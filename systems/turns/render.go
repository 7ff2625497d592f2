package turns

import (
	"sort"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
)

// TimeLayout is how turn times appear in rendered contexts and prompts.
const TimeLayout = "2006-01-02 15:04"

// Order values for the "order" option: which order the answer model reads
// the selected turns in. Selection itself is always by score.
const (
	OrderTime  = "time"  // chronological (default): easier for temporal questions
	OrderScore = "score" // selection order, best first
)

// FormatTime renders a turn time, or "no date" when the dataset gave none.
func FormatTime(t time.Time) string {
	var b [32]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends FormatTime(t) to b (the one place for both).
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "no date"...)
	}
	return t.AppendFormat(b, TimeLayout)
}

// TurnItem is the retrieval item for one raw turn.
func TurnItem(t *datasets.Turn, score float64) membench.Item {
	return membench.Item{
		ID:      t.ID,
		Kind:    "turn",
		Text:    t.Text,
		Time:    t.Time,
		Speaker: t.Speaker,
		Sources: []string{t.ID},
		Score:   score,
	}
}

// Line renders one item as "[2023-05-08 13:56] Caroline: text".
func Line(it membench.Item) string {
	var b strings.Builder
	b.Grow(lineLen(it))
	writeLine(&b, it)
	return b.String()
}

// lineLen is an upper bound on Line's length (TimeLayout renders 16 bytes).
func lineLen(it membench.Item) int { return len(it.Text) + len(it.Speaker) + len("[no date] : ") + 16 }

// writeLine appends Line(it) to b, with the text's newlines as spaces.
func writeLine(b *strings.Builder, it membench.Item) {
	var at [32]byte
	b.WriteByte('[')
	b.Write(appendTime(at[:0], it.Time))
	b.WriteString("] ")
	if it.Speaker != "" {
		b.WriteString(it.Speaker)
		b.WriteString(": ")
	}
	text := it.Text
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteByte(' ')
		text = text[i+1:]
	}
	b.WriteString(text)
}

// FitBudget keeps items (given best first) while their rendered lines fit in
// maxTokens; maxTokens <= 0 keeps everything. The budget is a hard limit, so
// the result is empty when even the best line is too long.
func FitBudget(items []membench.Item, maxTokens int) []membench.Item {
	if maxTokens <= 0 {
		return items
	}
	used := 0
	for i, it := range items {
		n := tokens.Count(Line(it)) + 1 // +1 for the newline
		if used+n > maxTokens {
			return items[:i]
		}
		used += n
	}
	return items
}

// MakeContext orders the selected items (given best first) for reading,
// renders one line each and counts the tokens.
func MakeContext(selected []membench.Item, order string) *systems.Context {
	items := append([]membench.Item(nil), selected...)
	if order == OrderTime {
		// Stable, so same-time turns keep their selection order.
		sort.SliceStable(items, func(a, b int) bool { return items[a].Time.Before(items[b].Time) })
	}
	size := 0
	for _, it := range items {
		size += lineLen(it) + 1
	}
	var b strings.Builder
	b.Grow(size)
	ends := make([]int, len(items)) // where each line ends, its newline included
	for i, it := range items {
		writeLine(&b, it)
		if i < len(items)-1 {
			b.WriteByte('\n')
		}
		ends[i] = b.Len()
	}
	rendered := b.String()
	return &systems.Context{Items: items, Rendered: rendered, Tokens: joinedTokens(rendered, ends)}
}

// joinedTokens is tokens.Count(rendered) summed line by line: each line
// with its newline, the last without (ends are where each stops). It is
// exact because every line starts with "[" (see Line), and o200k's
// pre-tokenizer never joins a newline to a following "[" nor reaches back
// across it, so the joined text's pieces are the lines' pieces. Each line
// is then counted once for all the contexts it appears in (tokens memoises
// by text) instead of every context being encoded anew; the lines are
// slices of rendered, so counting copies nothing. TestJoinedTokensAreExact
// checks the sum against counting the whole on real LoCoMo contexts.
func joinedTokens(rendered string, ends []int) int {
	n, start := 0, 0
	for _, end := range ends {
		n += tokens.Count(rendered[start:end])
		start = end
	}
	return n
}
