package structmem

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
)

// Retrieve returns the top event entries (Budget.K overrides the entries
// option) and the top synthesis memories for the question. Entries are
// rendered in time order with their dates, syntheses after them, marked.
// With Budget.MaxTokens, items are admitted best score first while the
// rendered lines fit.
func (m *Memory) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	k := b.KOr(m.cfg.Entries)
	vecs, err := m.env.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("structmem: embedding question %s: %w", q.ID, err)
	}
	qv := vecs[0]
	type cand struct {
		item membench.Item
		line string
		syn  bool
	}
	var cands []cand
	if m.events.Len() > 0 {
		for _, h := range m.events.Search(qv, k, nil) {
			e := m.byID[h.ID]
			cands = append(cands, cand{
				item: membench.Item{ID: e.ID, Kind: e.Kind, Text: e.Text, Time: e.Time, Speaker: e.Speaker, Sources: e.Sources, Score: h.Score},
				line: fmt.Sprintf("[%s] %s: %s", renderTime(e.Time), e.Speaker, e.Text),
			})
		}
	}
	if m.cfg.Syntheses > 0 && m.synthIdx.Len() > 0 {
		byID := map[string]*Synthesis{}
		for _, s := range m.syns {
			byID[s.ID] = s
		}
		for _, h := range m.synthIdx.Search(qv, m.cfg.Syntheses, nil) {
			s := byID[h.ID]
			cands = append(cands, cand{
				item: membench.Item{ID: s.ID, Kind: "synthesis", Text: s.Text, Time: s.Time, Sources: s.CitedTurns, Score: h.Score},
				line: fmt.Sprintf("[synthesis, events %s] %s", synthDates(m, s), s.Text),
				syn:  true,
			})
		}
	}
	if b.MaxTokens > 0 {
		// Admitted best score first; the order they are read in is set
		// below by kind, time and id, whatever the order here.
		sort.SliceStable(cands, func(a, c int) bool { return cands[a].item.Score > cands[c].item.Score })
		used := 0
		cands = slices.DeleteFunc(cands, func(c cand) bool {
			n := tokens.Count(c.line) + 1
			if used+n > b.MaxTokens {
				return true
			}
			used += n
			return false
		})
	}
	sort.SliceStable(cands, func(a, c int) bool {
		if cands[a].syn != cands[c].syn {
			return !cands[a].syn
		}
		if !cands[a].item.Time.Equal(cands[c].item.Time) {
			return cands[a].item.Time.Before(cands[c].item.Time)
		}
		return cands[a].item.ID < cands[c].item.ID
	})
	out := &systems.Context{Notes: map[string]any{}}
	var lines []string
	nSyn := 0
	for _, c := range cands {
		out.Items = append(out.Items, c.item)
		lines = append(lines, c.line)
		if c.syn {
			nSyn++
		}
	}
	out.Rendered = strings.Join(lines, "\n")
	out.Tokens = tokens.Count(out.Rendered)
	out.Notes["entries"] = len(cands) - nSyn
	out.Notes["syntheses"] = nSyn
	return out, nil
}

// synthDates lists the dates of the events a synthesis cites.
func synthDates(m *Memory, s *Synthesis) string {
	seen := map[string]bool{}
	var ds []string
	for _, id := range s.CitedEntryIDs {
		d := renderTime(m.byID[id].Time)
		if !seen[d] {
			seen[d] = true
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return renderTime(s.Time)
	}
	return strings.Join(ds, "; ")
}
