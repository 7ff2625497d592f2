package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/flat"
)

// maxConflictCandidates bounds the stored triples shown to one conflict
// call (same subject+relation first, then the most recent).
const maxConflictCandidates = 30

// extraction is one batch's graph extraction result.
type extraction = flat.Reply[extractReply]

type builder struct {
	env     systems.Env
	cfg     Config
	g       *Graph
	counts  map[string]int
	speaker []string
	fb      *flat.Builder // shares its request tally
}

func (b *builder) extract(ctx context.Context, batch flat.Batch) (extraction, error) {
	in := ExtractInput{Speakers: b.speaker, Previous: batch.Previous, Session: b.cfg.Flat.Batch == "session"}
	for _, t := range batch.Turns {
		in.Messages = append(in.Messages, flat.MessageIn{TurnID: t.ID, Speaker: t.Speaker, Date: flat.FormatDate(t.Time), Text: t.Text})
	}
	return flat.Ask[extractReply](ctx, b.env, "graph_extract", llm.Request{Task: TaskExtract, Inputs: in, Stage: membench.StageBuild, Label: "extract_triples"})
}

// apply merges the batch's entities into the graph, adds its triples and
// asks the conflict call which stored triples the new ones make obsolete.
// It returns the conflict call's cost.
func (b *builder) apply(ctx context.Context, batch flat.Batch, ex extraction) (llm.JSONReply, error) {
	b.counts["llm_calls"] += ex.Call.Calls
	b.counts["graph_calls"] += ex.Call.Calls
	b.fb.Note(ex.Failed, ex.Raw)
	if ex.Failed {
		b.counts["graph_failed"]++
		return llm.JSONReply{}, nil
	}
	// Names in first-seen order: listed entities, then triple ends.
	types := map[string]string{}
	var names []string
	addName := func(raw, typ string) {
		n := Normalize(raw)
		if n == "" {
			return
		}
		if _, ok := types[n]; !ok {
			names = append(names, n)
			types[n] = typ
		}
	}
	for _, e := range ex.Out.Entities {
		addName(e.Name, e.Type)
	}
	for _, t := range ex.Out.Triples {
		addName(t.Subject, "")
		addName(t.Object, "")
	}
	if len(names) == 0 {
		return llm.JSONReply{}, nil
	}
	vecs, err := b.env.Embedder.Embed(ctx, names)
	if err != nil {
		return llm.JSONReply{}, fmt.Errorf("graph: embedding entity names: %w", err)
	}
	b.counts["embedded_texts"] += len(names)
	nodeOf := map[string]string{}
	for i, n := range names {
		before := len(b.g.nodes)
		id, merged := b.g.Resolve(n, types[n], vecs[i], b.cfg.MergeThreshold)
		nodeOf[n] = id
		if merged {
			b.counts["entity_merges"]++
		}
		if len(b.g.nodes) > before {
			b.counts["entities"]++
		}
	}

	byTurn := map[string]*datasets.Turn{}
	for _, t := range batch.Turns {
		byTurn[t.ID] = t
	}
	var fresh []Edge
	var texts []string
	for _, t := range ex.Out.Triples {
		s, o, r := nodeOf[Normalize(t.Subject)], nodeOf[Normalize(t.Object)], CanonicalRelation(t.Relation)
		if s == "" || o == "" || r == "" || s == o {
			continue
		}
		e := Edge{Subject: s, Relation: r, Object: o, Single: t.Single || IsSingleValued(r),
			Time: batch.Turns[0].Time, Speaker: batch.Turns[0].Speaker, Sources: batch.IDs()}
		if tt := byTurn[t.Turn]; tt != nil {
			e.Time, e.Speaker, e.Sources = tt.Time, tt.Speaker, []string{tt.ID}
		}
		fresh = append(fresh, e)
		texts = append(texts, b.g.EdgeText(e))
	}
	if len(fresh) == 0 {
		return llm.JSONReply{}, nil
	}

	// Conflict candidates are stored before this batch's triples go in.
	call, err := b.conflicts(ctx, batch, fresh)
	if err != nil {
		return call, err
	}
	evecs, err := b.env.Embedder.Embed(ctx, texts)
	if err != nil {
		return call, fmt.Errorf("graph: embedding triples: %w", err)
	}
	b.counts["embedded_texts"] += len(texts)
	for i, e := range fresh {
		if _, created := b.g.AddEdge(e, evecs[i]); created {
			b.counts["edges"]++
		} else {
			b.counts["repeated_triples"]++
		}
	}
	return call, nil
}

func (b *builder) tripleIn(e *Edge, id string) TripleIn {
	return TripleIn{ID: id, Subject: b.g.name(e.Subject), Relation: e.Relation, Object: b.g.name(e.Object), Date: flat.FormatDate(e.Time), Single: e.Single}
}

// conflicts runs the conflict call when stored live triples touch the new
// triples' subjects, and marks the ones it names obsolete.
func (b *builder) conflicts(ctx context.Context, batch flat.Batch, fresh []Edge) (llm.JSONReply, error) {
	subjects := map[string]bool{}
	sameKey := map[string]bool{}
	for _, e := range fresh {
		subjects[e.Subject] = true
		sameKey[e.Subject+"|"+e.Relation] = true
	}
	cands := b.g.Touching(subjects, false)
	if len(cands) == 0 {
		return llm.JSONReply{}, nil
	}
	// Same subject+relation first, then newest; ties keep creation order.
	sort.SliceStable(cands, func(i, j int) bool {
		ki, kj := sameKey[cands[i].Subject+"|"+cands[i].Relation], sameKey[cands[j].Subject+"|"+cands[j].Relation]
		if ki != kj {
			return ki
		}
		return cands[i].Time.After(cands[j].Time)
	})
	if len(cands) > maxConflictCandidates {
		cands = cands[:maxConflictCandidates]
	}
	in := ConflictInput{Date: flat.FormatDate(batch.Turns[0].Time)}
	short := map[string]string{}
	for i, e := range cands {
		sid := strconv.Itoa(i)
		short[sid] = e.ID
		in.Existing = append(in.Existing, b.tripleIn(e, sid))
	}
	for i := range fresh {
		in.New = append(in.New, b.tripleIn(&fresh[i], ""))
	}
	r, err := flat.Ask[conflictReply](ctx, b.env, "graph_conflict", llm.Request{Task: TaskConflict, Inputs: in, Stage: membench.StageBuild, Label: "conflict_decision"})
	b.counts["llm_calls"] += r.Call.Calls
	b.counts["graph_calls"] += r.Call.Calls
	b.fb.Note(r.Failed, r.Raw)
	if err != nil {
		return r.Call, err
	}
	if r.Failed {
		b.counts["graph_failed"]++
		return r.Call, nil
	}
	at := batch.Turns[len(batch.Turns)-1].Time
	for _, sid := range r.Out.Obsolete {
		if id := short[strings.TrimSpace(string(sid))]; id != "" && b.g.MarkObsolete(id, at, batch.IDs()) {
			b.counts["obsolete"]++
		}
	}
	return r.Call, nil
}

// Build makes the graph and its flat fact store for one conversation. For
// every batch (message by default) it makes the flat calls (extract facts,
// update decision) and the graph calls (extract triples, conflict
// decision); the two extraction calls run ahead concurrently, the rest in
// turn order. TurnTokens charges all four to the batch's last turn.
func Build(ctx context.Context, env systems.Env, conv *datasets.Conversation, cfg Config) (*Graph, *flat.Store, membench.BuildStats, error) {
	fb := flat.NewBuilder(env, cfg.Flat, conv.Speakers)
	b := &builder{env: env, cfg: cfg, g: NewGraph(), counts: fb.Counts(), speaker: conv.Speakers, fb: fb}
	for _, k := range []string{"entities", "entity_merges", "edges", "obsolete", "graph_failed", "graph_calls"} {
		b.counts[k] = 0
	}
	batches := flat.Batches(conv, cfg.Flat.Batch)
	type both struct {
		f flat.Extraction
		g extraction
	}
	exs, err := systems.ParallelMap(ctx, len(batches), env.Concurrency, func(ctx context.Context, i int) (both, error) {
		f, err := fb.Extract(ctx, batches[i])
		if err != nil {
			return both{}, err
		}
		g, err := b.extract(ctx, batches[i])
		return both{f, g}, err
	})
	if err != nil {
		return nil, nil, membench.BuildStats{}, fmt.Errorf("graph: conversation %s: %w", conv.ID, err)
	}
	curve := flat.NewTurnCurve(len(conv.AllTurns()))
	for i, batch := range batches {
		fc, err := fb.Apply(ctx, batch, exs[i].f)
		if err != nil {
			return nil, nil, membench.BuildStats{}, fmt.Errorf("graph: conversation %s, turn %s: %w", conv.ID, batch.Turns[0].ID, err)
		}
		gc, err := b.apply(ctx, batch, exs[i].g)
		if err != nil {
			return nil, nil, membench.BuildStats{}, fmt.Errorf("graph: conversation %s, turn %s: %w", conv.ID, batch.Turns[0].ID, err)
		}
		curve.Add(batch, exs[i].f.Call.Tokens+fc.Tokens+exs[i].g.Call.Tokens+gc.Tokens)
	}
	st := fb.Store()
	b.counts["live_facts"] = len(st.Live())
	b.counts["build_tokens"] = curve.Total()
	b.counts["flat_calls"] = b.counts["llm_calls"] - b.counts["graph_calls"]
	stats := fb.Tally() // flat's and graph's requests, flat's extraction replies
	stats.SetEntries(len(st.Live()) + b.counts["edges"])
	stats.Counts, stats.TurnTokens = b.counts, curve.Tokens()
	return b.g, st, stats, nil
}
