package audit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
)

// Options of an audit invocation.
type Options struct {
	Judges []Judge
	// Sample > 0 audits a seeded random sample of that many items (over all
	// conversations) instead of all; the same Seed picks the same items.
	Sample int
	Seed   uint64
	// Concurrency bounds parallel judge calls (default 4).
	Concurrency int
}

// item is one thing to judge: an entry or a synthesis link.
type item struct {
	conv, id, group string
	inputs          any
}

// kind holds what differs between the two audits.
type kind struct {
	name, task, template string
	file, report         string                                 // written into each run directory
	items                func(string, []memory) ([]item, error) // what to judge in a run directory's dump
}

var (
	kindExtraction = kind{"extraction", TaskExtraction, "audit_extraction", ExtractionFile, ExtractionReport, extractionItems}
	kindLinks      = kind{"links", TaskLinks, "audit_links", LinksFile, LinksReport, linkItems}
)

// sample keeps n items picked by a PCG seeded with seed, in their original
// order; n <= 0 or n >= len keeps all.
func sample(items []item, n int, seed uint64) []item {
	if n <= 0 || n >= len(items) {
		return items
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(items))[:n]
	sort.Ints(idx)
	out := make([]item, n)
	for i, k := range idx {
		out[i] = items[k]
	}
	return out
}

func modelName(m llm.Model) string {
	id := m.ID()
	return id.Backend + ":" + id.Model
}

// judgeAll asks every judge about every item not yet in st and returns the
// verdict of each (item, judge) pair plus how many were read from st.
func judgeAll(ctx context.Context, k kind, items []item, opts Options, st *store, meter *llm.Meter) (map[string]Record, int, error) {
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 4
	}
	out := map[string]Record{}
	resumed := 0
	type job struct {
		it item
		j  Judge
	}
	var jobs []job
	for _, it := range items {
		for _, j := range opts.Judges {
			key := recKey(it.conv, it.id, j.Name, modelName(j.Model))
			if r, ok := st.get(key); ok {
				out[key] = r
				resumed++
				continue
			}
			jobs = append(jobs, job{it, j})
		}
	}
	results := make([]Record, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i, jb := range jobs {
		g.Go(func() error {
			r, err := ask(gctx, k, jb.it, jb.j, meter)
			if err != nil {
				return err
			}
			results[i] = r
			return st.add(r)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	for _, r := range results {
		out[r.key()] = r
	}
	return out, resumed, nil
}

func ask(ctx context.Context, k kind, it item, j Judge, meter *llm.Meter) (Record, error) {
	msgs, err := prompts.Render(k.template, it.inputs)
	if err != nil {
		return Record{}, err
	}
	m := j.Model
	if meter != nil {
		m = llm.WithMeter(m, meter, "audit:"+j.Name)
	}
	resp, err := m.Chat(ctx, llm.Request{
		Task: k.task, Messages: msgs, Temperature: 0, JSON: true,
		Inputs: it.inputs, Stage: membench.StageJudge, Label: k.template,
	})
	if err != nil {
		return Record{}, fmt.Errorf("audit %s, judge %s, conversation %s, %s: %w", k.name, j.Name, it.conv, it.id, err)
	}
	r := Record{ConversationID: it.conv, ItemID: it.id, Judge: j.Name, Model: modelName(j.Model), Config: it.group}
	v, err := ParseVerdict(resp.Text)
	if err != nil {
		r.Unparsed, r.Raw, r.Reason = true, resp.Text, err.Error()
		return r, nil
	}
	r.Supported, r.Reason = v.Supported, v.Reason
	return r, nil
}
