package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems/structmem"
)

// hedging is a judge that finds every synthesis supported but gives no
// verdict on one whose text says "vague".
type hedging struct{ scripted }

func (h *hedging) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if in, ok := req.Inputs.(LinkInput); ok && strings.Contains(in.Link, "vague") {
		return llm.Response{Text: "It is hard to say."}, nil
	}
	return h.scripted.Chat(ctx, req)
}

// TestLinksAuditSaysItsUnit: syntheses that are narratives (one per
// window, no stated dependency) are not the paper's Table 7 unit (links,
// 73 to 131 per conversation): the table's title and a note say so, and
// a link-style dump keeps the paper's wording; replies with no verdict
// are counted in the cells beside S/T.
func TestLinksAuditSaysItsUnit(t *testing.T) {
	s := structmem.Snapshot{System: "structmem", ConversationID: "conv-x", Speakers: []string{"Caroline", "Melanie"}}
	s.Entries = []structmem.Entry{
		entry("e1", "t1", t0, "Caroline went to a support group.", "Caroline: I went to a support group."),
		entry("e2", "t2", t0.AddDate(0, 1, 0), "Caroline wants to study counseling.", "Caroline: I want to study counseling."),
	}
	narr := []structmem.Synthesis{
		{ID: "w1", Text: "On t1 Caroline went to a support group; a month later she chose counseling.", CitedEvents: []string{"t1", "t2"}, Constrained: true},
		{ID: "w2", Text: "A vague narrative of the window.", CitedEvents: []string{"t1"}, Constrained: true},
	}
	audit := func(syn []structmem.Synthesis) *Result {
		dir := t.TempDir()
		s.Syntheses = syn
		writeDump(t, dir, s)
		j := &hedging{scripted{name: "g", verdict: func(any) bool { return true }}}
		res, err := Links(context.Background(), []string{dir}, Options{Judges: []Judge{{"GPT", j}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := audit(narr)
	tab := res.Table()
	notes := strings.Join(tab.Notes, "\n")
	if res.Unit != LinkUnitNarrative || !strings.Contains(tab.Title, "narratives, one per consolidation window") || !strings.Contains(tab.Title, "not the paper's unit") ||
		!strings.Contains(notes, "UNIT: ") || !strings.Contains(notes, "73 to 131 per conversation") {
		t.Errorf("narrative dump: unit %q, title %q, notes:\n%s", res.Unit, tab.Title, notes)
	}
	if cell := tab.Rows[len(tab.Rows)-1][2]; !strings.HasPrefix(cell, "0/1 = 0.00%") || !strings.HasSuffix(cell, "(+1 invalid)") {
		t.Errorf("overall cell %q: want 0/1 with the reply without a verdict counted beside it", cell)
	}

	links := []structmem.Synthesis{{ID: "l1", Text: "The group visit led to counseling.", Dependency: "cause", CitedEvents: []string{"t1", "t2"}, Constrained: true}}
	res = audit(links)
	tab = res.Table()
	if res.Unit != LinkUnitLink || strings.Contains(tab.Title, "not the paper's unit") || strings.Contains(strings.Join(tab.Notes, "\n"), "UNIT: ") {
		t.Errorf("link dump: unit %q, title %q, notes %v", res.Unit, tab.Title, tab.Notes)
	}
}
