package structmem

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// planWindows walks a time pointer over entries sorted by time: each window
// holds the unconsolidated entries with time in [pointer, pointer+w]; the
// pointer then jumps to the next unconsolidated entry, skipping empty
// stretches. It returns index ranges [lo, hi) into the sorted slice.
func planWindows(times []time.Time, w time.Duration) [][2]int {
	var out [][2]int
	for i := 0; i < len(times); {
		end := times[i].Add(w)
		j := i
		for j < len(times) && !times[j].After(end) {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// byTimeID orders entries on the conversation clock, ties by id.
func byTimeID(a, b *Entry) int { return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID, b.ID)) }

// windowPlan is one window with its cross-event context C_cross.
type windowPlan struct {
	rec     WindowRecord
	buffer  []*Entry
	related []*Entry // reconstructed seed events, outside the buffer
	events  map[string]bool
}

// Narrative length the consolidation prompt asks for.
const (
	minNarrativeWords = 200
	maxNarrativeWords = 350
)

// consolidate runs cross-event consolidation over every window: one call
// per window, seeds or not, each writing one narrative synthesis. It runs
// after the whole build ("process all", as the authors' code does); with
// historical seeds this sees exactly the memory an online run would, since
// seeds come from strictly earlier times.
func (m *Memory) consolidate(ctx context.Context, turnCost []int) error {
	plans, err := m.planAll(ctx)
	if err != nil {
		return err
	}
	type out struct {
		syn      *Synthesis
		failure  *Failure
		calls    int
		repaired bool
		tokens   int
	}
	m.requests += len(plans)
	outs, err := systems.ParallelMap(ctx, len(plans), m.env.Concurrency, func(ctx context.Context, i int) (out, error) {
		p := plans[i]
		in := m.consolidateInput(p)
		tmpl, shape := "structmem_consolidate", narrativeShape
		if !in.Constrained {
			tmpl, shape = "structmem_consolidate_unconstrained", narrativeShapeUnconstrained
		}
		msgs, err := prompts.Render(tmpl, in)
		if err != nil {
			return out{}, err
		}
		var syn *Synthesis
		r, err := ask(ctx, m.env.Build, TaskConsolidate, LabelConsolidate, msgs, in, shape, func(raw string) error {
			n, cites, perr := parseNarrative(raw)
			if perr != nil {
				return perr
			}
			syn, perr = m.synthesis(p, n, cites)
			return perr
		})
		if err != nil {
			return out{}, fmt.Errorf("structmem: window %d: %w", p.rec.Index, err)
		}
		o := out{calls: r.Calls, repaired: r.Repaired(), tokens: r.Tokens}
		if r.failure != nil {
			o.failure = &Failure{Label: LabelConsolidate, Scope: fmt.Sprintf("window %d", p.rec.Index), Error: r.failure.Error(), Raw: r.Raw, RepairRaw: r.RepairRaw}
		} else {
			o.syn = syn
		}
		return o, nil
	})
	if err != nil {
		return err
	}
	var texts []string
	for i, p := range plans {
		o := outs[i]
		m.counts["calls_consolidate"] += o.calls
		if o.repaired {
			m.counts["repair_retries"]++
		}
		last := 0
		for _, e := range p.buffer {
			last = max(last, e.turnIndex)
		}
		if len(turnCost) > 0 {
			turnCost[last] += o.tokens
		}
		if o.failure != nil {
			m.failures = append(m.failures, *o.failure)
			m.counts["failed_consolidations"]++
		}
		if s := o.syn; s != nil {
			s.ID = fmt.Sprintf("s%04d", len(m.syns)+1)
			m.syns = append(m.syns, s)
			p.rec.SynthesisIDs = append(p.rec.SynthesisIDs, s.ID)
			texts = append(texts, s.Text)
			m.counts["foreign_citations"] += len(s.ForeignTimes)
			if s.Words < minNarrativeWords || s.Words > maxNarrativeWords {
				m.counts["syntheses_outside_length"]++
			}
		}
		m.windows = append(m.windows, p.rec)
	}
	vecs, err := embedAll(ctx, m.env.Embedder, texts)
	if err != nil {
		return fmt.Errorf("structmem: embedding syntheses: %w", err)
	}
	for i, s := range m.syns {
		s.Embedding = vecs[i]
		m.synthIdx.Add(s.ID, vecs[i])
	}
	return nil
}

// planAll computes every window, its seeds and reconstructed events.
func (m *Memory) planAll(ctx context.Context) ([]*windowPlan, error) {
	sorted := m.sortedEntries()
	times := make([]time.Time, len(sorted))
	for i, e := range sorted {
		times[i] = e.Time
	}
	ranges := planWindows(times, m.cfg.Window())
	queries := make([]string, len(ranges))
	for i, r := range ranges {
		var b strings.Builder
		for _, e := range sorted[r[0]:r[1]] {
			b.WriteString(e.Speaker + ": " + e.Text + "\n")
		}
		queries[i] = b.String()
	}
	qvecs, err := embedAll(ctx, m.env.Embedder, queries)
	if err != nil {
		return nil, fmt.Errorf("structmem: embedding window buffers: %w", err)
	}
	plans := make([]*windowPlan, len(ranges))
	for i, r := range ranges {
		buf := sorted[r[0]:r[1]]
		start := buf[0].Time
		p := &windowPlan{buffer: buf, events: map[string]bool{}}
		p.rec = WindowRecord{Index: i, Start: start, End: start.Add(m.cfg.Window())}
		inBuf := map[string]bool{}
		for _, e := range buf {
			inBuf[e.ID] = true
			p.rec.BufferIDs = append(p.rec.BufferIDs, e.ID)
			p.events[e.Event] = true
		}
		var hits []vindex.Hit
		if m.cfg.Seeds > 0 { // seeds=0: the window's synthesis reads its own entries alone
			hits = m.events.Search(qvecs[i], m.cfg.Seeds, func(id string) bool {
				switch m.cfg.SeedScope {
				case "authors-code":
					// Their search excludes the window by an id the
					// stored payloads lack, and their filter builder
					// drops "lt", so every entry is a candidate.
					return true
				case "historical":
					return !inBuf[id] && m.byID[id].Time.Before(start)
				}
				return !inBuf[id]
			})
		}
		added := map[string]bool{}
		for _, h := range hits {
			p.rec.SeedIDs = append(p.rec.SeedIDs, h.ID)
			seed := m.byID[h.ID]
			if inBuf[h.ID] {
				// authors-code: a seed from the window itself is listed
				// again among the related entries, as their code does;
				// its event's other entries are not (they are the
				// window's).
				m.counts["seeds_in_window"]++
				if !added[h.ID] {
					added[h.ID] = true
					p.related = append(p.related, seed)
				}
			}
			// Event reconstruction: the whole event of the seed joins.
			for _, e := range m.byEvent[seed.Event] {
				if inBuf[e.ID] || added[e.ID] {
					continue
				}
				added[e.ID] = true
				p.related = append(p.related, e)
				p.events[e.Event] = true
			}
		}
		slices.SortStableFunc(p.related, byTimeID)
		for _, e := range p.related {
			p.rec.EventIDs = append(p.rec.EventIDs, e.ID)
		}
		m.counts["windows"]++
		m.counts["seeds"] += len(hits)
		// Every window is sent, seeds or not, as the authors' code does.
		p.rec.Called = true
		if len(hits) == 0 {
			m.counts["windows_no_seeds"]++
		}
		plans[i] = p
	}
	return plans, nil
}

func (m *Memory) consolidateInput(p *windowPlan) ConsolidateInput {
	in := ConsolidateInput{Speakers: m.speakers, Start: TimeLabel(p.rec.Start), End: TimeLabel(p.rec.End), Constrained: m.cfg.Constrained(), Historical: m.cfg.SeedScope == "historical",
		MinWords: minNarrativeWords, MaxWords: maxNarrativeWords}
	if p.rec.Start.IsZero() {
		in.End = "undated"
	}
	pe := func(e *Entry) PromptEntry {
		return PromptEntry{Time: e.Event, Kind: e.Kind, Speaker: e.Speaker, Text: e.Text}
	}
	for _, e := range p.buffer {
		in.Buffer = append(in.Buffer, pe(e))
	}
	for _, e := range p.related {
		in.Related = append(in.Related, pe(e))
	}
	return in
}

// synthesis turns a window's narrative into a synthesis memory. Its
// citations resolve to events of the window's context (buffer and seed
// events); citations naming no such event are kept as ForeignTimes.
// Constrained synthesis must cite at least one event of the context, else
// the reply is malformed (one repair asks again).
func (m *Memory) synthesis(p *windowPlan, n narrative, cites []string) (*Synthesis, error) {
	constrained := m.cfg.Constrained()
	cited := map[string]bool{}
	var foreign []string
	for _, c := range cites {
		keys := resolveCitation(c, p)
		if len(keys) == 0 {
			foreign = append(foreign, c)
		}
		for _, k := range keys {
			cited[k] = true
		}
	}
	if constrained && len(cited) == 0 {
		return nil, fmt.Errorf("%w: the narrative cites none of the listed event times; cite the [timestamp] of each event it draws on", errMalformed)
	}
	s := &Synthesis{Text: n.Narrative, CitedTimes: cites, ForeignTimes: foreign, Words: len(strings.Fields(n.Narrative)), Window: p.rec.Index, Constrained: constrained}
	s.BufferEntryIDs = p.rec.BufferIDs
	s.SeedEntryIDs = p.rec.SeedIDs
	for _, e := range append(append([]*Entry{}, p.buffer...), p.related...) {
		if cited[e.Event] {
			s.CitedEntryIDs = append(s.CitedEntryIDs, e.ID)
		}
	}
	slices.SortStableFunc(s.CitedEntryIDs, func(a, b string) int { return byTimeID(m.byID[a], m.byID[b]) })
	var latest time.Time
	for _, id := range s.CitedEntryIDs {
		e := m.byID[id]
		if e.Time.After(latest) {
			latest = e.Time
		}
		s.Sources = systems.MergeIDs(s.Sources, e.Sources)
	}
	citedOrder := slices.Sorted(maps.Keys(cited))
	s.CitedEvents = citedOrder
	s.CitedTurns = m.citedTurns(citedOrder)
	if latest.IsZero() {
		latest = p.buffer[len(p.buffer)-1].Time
	}
	s.Time = latest
	return s, nil
}

// citeLayouts are the timestamp spellings a model may fall back to.
var citeLayouts = []struct {
	layout string
	minute bool
}{
	{timeLayout, false},
	{time.RFC3339, false},
	{"2006-01-02T15:04:05", false},
	{"2006-01-02 15:04", true},
	{"2006-01-02T15:04", true},
	{"2 January 2006 15:04", true},
	{"2 Jan 2006 15:04", true},
}

// resolveCitation maps a cited timestamp to the C_cross events it names:
// exact key first, then the same instant written another way (a
// minute-precision citation names every event in that minute).
func resolveCitation(c string, p *windowPlan) []string {
	c = strings.Trim(strings.TrimSpace(c), "[]\"' ")
	if p.events[c] {
		return []string{c}
	}
	for _, cl := range citeLayouts {
		t, err := time.Parse(cl.layout, c)
		if err != nil {
			continue
		}
		var keys []string
		for k := range p.events {
			kt, err := time.Parse(timeLayout, k)
			if err != nil {
				continue
			}
			if kt.Equal(t) || (cl.minute && kt.Truncate(time.Minute).Equal(t.Truncate(time.Minute))) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		return keys
	}
	return nil
}

// citedTurns maps cited events to the turns they name: an event whose
// entries all hang on one anchor turn names that turn; an event spanning
// several turns (a session bound to its session's time) names none, since
// the citation does not say which of its turns the link rests on.
func (m *Memory) citedTurns(events []string) []string {
	var out []string
	for _, ev := range events {
		anchor := ""
		one := true
		for _, e := range m.byEvent[ev] {
			if len(e.Sources) == 0 {
				continue
			}
			if anchor != "" && e.Sources[0] != anchor {
				one = false
				break
			}
			anchor = e.Sources[0]
		}
		if one && anchor != "" {
			out = append(out, anchor)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
