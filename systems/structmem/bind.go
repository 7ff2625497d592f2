package structmem

import (
	"context"
	"slices"
	"strings"

	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// bindJob is one extraction request: one perspective over one batch
// (a session, an utterance or a 512-token buffer: the granularity option).
type bindJob struct {
	kind  string
	scope string
	turns []*turnInfo
}

type bindResult struct {
	entries []*Entry
	counts  map[string]int
	failure *Failure
	tokens  int
	parsed  bool // the reply parsed (it may still hold no entry)
}

// bind runs the factual and relational extraction over every batch,
// concurrently up to env.Concurrency, and assembles the entries in job
// order so ids and the store do not depend on scheduling.
func (m *Memory) bind(ctx context.Context, batches []batch, turnCost []int) error {
	var jobs []bindJob
	for _, b := range batches {
		jobs = append(jobs, bindJob{KindFactual, b.scope, b.turns})
		if !m.cfg.FactualOnly {
			jobs = append(jobs, bindJob{KindRelational, b.scope, b.turns})
		}
	}
	m.requests += len(jobs)
	results, err := systems.ParallelMap(ctx, len(jobs), m.env.Concurrency, func(ctx context.Context, i int) (bindResult, error) {
		return m.extract(ctx, jobs[i])
	})
	if err != nil {
		return err
	}
	for i, r := range results {
		for k, v := range r.counts {
			m.counts[k] += v
		}
		if r.failure != nil {
			m.failures = append(m.failures, *r.failure)
			m.counts["failed_extractions"]++
		}
		if r.parsed {
			m.extractions++
			if len(r.entries) == 0 {
				m.emptyReplies++
			}
		}
		for _, e := range r.entries {
			m.addEntry(e)
		}
		ts := jobs[i].turns
		turnCost[ts[len(ts)-1].index] += r.tokens
	}
	return nil
}

// extract sends one extraction request and turns the cited entries into
// anchored entries.
func (m *Memory) extract(ctx context.Context, j bindJob) (bindResult, error) {
	res := bindResult{counts: map[string]int{}}
	in := ExtractInput{Kind: j.kind, Speakers: m.speakers, Date: DateLabel(j.turns[0].at)}
	if first, last := j.turns[0], j.turns[len(j.turns)-1]; first.session != last.session {
		in.Date = "" // a 512-token batch across sessions: each line has its date
	}
	listed := map[string]*turnInfo{}
	for _, t := range j.turns {
		in.Utterances = append(in.Utterances, Utterance{ID: t.ID, Speaker: t.Speaker, Time: TimeLabel(t.at), Date: DateLabel(t.at), Text: t.Text})
		listed[t.ID] = t
	}
	tmpl, task, label := "structmem_fact", TaskFact, LabelFact
	if j.kind == KindRelational {
		tmpl, task, label = "structmem_rel", TaskRel, LabelRel
	}
	msgs, err := prompts.Render(tmpl, in)
	if err != nil {
		return res, err
	}
	var got []extracted
	r, err := ask(ctx, m.env.Build, task, label, msgs, in, entriesShape, func(raw string) error {
		var perr error
		got, perr = parseEntries(raw)
		return perr
	})
	res.tokens = r.Tokens
	res.counts["calls_"+label] += r.Calls
	if r.Repaired() {
		res.counts["repair_retries"]++
	}
	if err != nil {
		return res, err
	}
	if r.failure != nil {
		res.failure = &Failure{Label: label, Scope: j.scope, Error: r.failure.Error(), Raw: r.Raw, RepairRaw: r.RepairRaw}
		return res, nil
	}
	res.parsed = true
	for _, x := range got {
		text := strings.TrimSpace(x.Text)
		if text == "" {
			res.counts["dropped_entries"]++
			res.counts["dropped_empty_text"]++
			continue
		}
		cited := x.Utterances
		if x.Utterance != "" {
			cited = append([]string{x.Utterance}, cited...)
		}
		// One listed utterance anchors unambiguously, as in the paper's
		// per-utterance prompt, so a missing citation is tolerated there.
		if len(cited) == 0 && len(j.turns) == 1 {
			cited = []string{j.turns[0].ID}
		}
		var srcs []string
		unknown := false
		for _, c := range cited {
			c = strings.TrimSpace(c)
			if _, ok := listed[c]; !ok {
				unknown = true
			} else if !slices.Contains(srcs, c) {
				srcs = append(srcs, c)
			}
		}
		if len(srcs) == 0 {
			res.counts["dropped_entries"]++
			if len(cited) == 0 {
				res.counts["dropped_no_utterance"]++
			} else {
				res.counts["dropped_unknown_utterance"]++
			}
			continue
		}
		if unknown {
			res.counts["ignored_unknown_citations"]++
		}
		anchor := listed[srcs[0]]
		var st []string
		for _, s := range srcs {
			st = append(st, listed[s].Speaker+": "+listed[s].Text)
		}
		res.entries = append(res.entries, &Entry{
			Kind: j.kind, Text: text, Time: anchor.at, Speaker: anchor.Speaker,
			Sources: srcs, SourceText: strings.Join(st, "\n"), SessionID: anchor.session,
			Event: anchor.event, turnIndex: anchor.index,
		})
	}
	return res, nil
}
