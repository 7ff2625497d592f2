package audit

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/llm"
)

// Synthesis configurations (the row groups of Table 7).
const (
	ConfigConstrained   = "constrained"
	ConfigUnconstrained = "unconstrained"
)

// linkInput gathers what a judge sees for one synthesis: the entries of the
// events it cites (cited_entry_ids, else every entry of cited_events). A
// link that cites nothing (possible only unconstrained) is shown the
// events it was written from: the events of its window's buffer and seed
// entries.
func linkInput(s memory, y memLink, byID map[string]*memEntry) (LinkInput, error) {
	in := LinkInput{Speakers: s.Speakers, Link: y.Text, Dependency: y.Dependency, Cited: true}
	var ents []*memEntry
	for _, id := range y.CitedEntryIDs {
		e, ok := byID[id]
		if !ok {
			return in, fmt.Errorf("conversation %s, synthesis %s cites entry %s, which is not in the dump", s.ConversationID, y.ID, id)
		}
		ents = append(ents, e)
	}
	events := map[string]bool{}
	if len(ents) == 0 {
		for _, ev := range y.CitedEvents {
			events[ev] = true
		}
		if len(events) == 0 {
			in.Cited = false
			for _, id := range append(append([]string{}, y.BufferEntryIDs...), y.SeedEntryIDs...) {
				if e, ok := byID[id]; ok {
					events[e.Event] = true
				}
			}
		}
		for i := range s.Entries {
			if events[s.Entries[i].Event] {
				ents = append(ents, &s.Entries[i])
			}
		}
	}
	slices.SortStableFunc(ents, func(a, b *memEntry) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Event, b.Event))
	})
	idx := map[string]int{}
	for _, e := range ents {
		i, ok := idx[e.Event]
		if !ok {
			i = len(in.Events)
			idx[e.Event] = i
			in.Events = append(in.Events, LinkEvent{Time: e.Event})
		}
		in.Events[i].Entries = append(in.Events[i].Entries, e.Text)
	}
	return in, nil
}

// linkUnit is what the link items are: narratives (one per window, no
// stated dependency), links (older dumps state one per link), or both;
// "" for entries.
func linkUnit(items []item) string {
	narr, links := 0, 0
	for _, it := range items {
		if in, ok := it.inputs.(LinkInput); !ok {
			continue
		} else if in.Dependency != "" {
			links++
		} else {
			narr++
		}
	}
	switch {
	case links == 0 && narr == 0:
		return ""
	case links == 0:
		return LinkUnitNarrative
	case narr == 0:
		return LinkUnitLink
	}
	return LinkUnitMixed
}

// linkItems lists every synthesis of the dump, grouped by configuration.
func linkItems(dir string, mems []memory) ([]item, error) {
	var items []item
	for _, s := range mems {
		byID := map[string]*memEntry{}
		for i := range s.Entries {
			byID[s.Entries[i].ID] = &s.Entries[i]
		}
		for _, y := range s.Syntheses {
			in, err := linkInput(s, y, byID)
			if err != nil {
				return nil, inputErr("%s: %w", filepath.Join(dir, runlog.MemoryFile), err)
			}
			g := ConfigUnconstrained
			if y.Constrained {
				g = ConfigConstrained
			}
			items = append(items, item{conv: s.ConversationID, id: y.ID, group: g, inputs: in})
		}
	}
	return items, nil
}

// Links audits the synthesis links of each run directory: each judge
// decides whether the cited events support each link. Each directory gets
// its own audit_links.jsonl (resumable) and audit_links.md; the returned
// result covers all directories, rows grouped by configuration
// (constrained first) then conversation.
func Links(ctx context.Context, dirs []string, opts Options) (*Result, error) {
	if len(dirs) == 0 {
		return nil, inputErr("no run directory; give --run DIR (repeatable)")
	}
	return run(ctx, kindLinks, dirs, opts)
}

// run audits the items of kind k in each directory, writing each its own
// verdict file and report, and returns the result over all of them.
func run(ctx context.Context, k kind, dirs []string, opts Options) (*Result, error) {
	var allItems, allAudited []item
	allRecs := map[string]Record{}
	resumed := 0
	// One meter for all directories; a directory's usage is what it added.
	meter := llm.NewMeter()
	for _, dir := range dirs {
		mems, err := loadMemory(dir)
		if err != nil {
			return nil, err
		}
		all, err := k.items(dir, mems)
		if err != nil {
			return nil, err
		}
		items := sample(all, opts.Sample, opts.Seed)
		st, err := openStore(filepath.Join(dir, k.file))
		if err != nil {
			return nil, err
		}
		before := meter.Snapshot()
		recs, n, err := judgeAll(ctx, k, items, opts, st, meter)
		st.Close()
		if err != nil {
			return nil, err
		}
		one := newResult(k, []string{dir}, opts, items, all, recs, n, llm.Minus(meter.Snapshot(), before))
		if err := writeReport(filepath.Join(dir, k.report), one); err != nil {
			return nil, err
		}
		if len(dirs) == 1 {
			return one, nil
		}
		// Two runs may share conversation ids; the run dir keeps them apart.
		for _, it := range items {
			it.conv = qualify(dir, it.conv)
			allAudited = append(allAudited, it)
		}
		for _, r := range recs {
			r.ConversationID = qualify(dir, r.ConversationID)
			allRecs[r.key()] = r
		}
		allItems = append(allItems, all...)
		resumed += n
	}
	return newResult(k, dirs, opts, allAudited, allItems, allRecs, resumed, meter.Snapshot()), nil
}

// qualify prefixes a conversation id with its run directory's name, for
// several runs audited together.
func qualify(dir, conv string) string { return filepath.Base(filepath.Clean(dir)) + "/" + conv }

// sortGroups puts constrained links before unconstrained ones, keeping
// order otherwise.
func sortGroups(items []item) []item {
	out := append([]item{}, items...)
	sort.SliceStable(out, func(a, b int) bool {
		return out[a].group == ConfigConstrained && out[b].group != ConfigConstrained
	})
	return out
}
