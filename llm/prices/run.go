package prices

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// StageOrder is the order bills list stages in.
var StageOrder = []string{"build", "retrieve", "answer", "judge", "embed"}

// Bill is a run's model spend in dollars by stage.
type Bill struct {
	Stages map[string]Amount // by StageKey, the work results rest on
	Total  Amount            // of Stages
	// Redone is the work no result rests on (cut off, or done again on
	// resume), as runlog.Summary.Redone counts it.
	Redone Amount
	// InputTokens and CachedInputTokens are the kept work's input tokens
	// and those the provider's prompt cache served.
	InputTokens, CachedInputTokens int
	// ReplyCacheHits counts calls served from membench's own reply cache;
	// they are priced as if paid, so that a rerun costs what the first run did.
	ReplyCacheHits int
	Table          *Table
}

// ForRun bills the run in dir (its manifest and costs.jsonl) with t.
func ForRun(dir string, t *Table) (*Bill, error) {
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(dir, runlog.CostsFile))
	if err != nil {
		return nil, err
	}
	kept, redone := runlog.EffectiveCosts(costs)
	return Of(kept, redone, Roles(m), t), nil
}

// Roles maps each role of a run's manifest to its model ("backend:model"),
// and "embedder" to its embedder's model.
func Roles(m runlog.Manifest) map[string]string {
	roles := map[string]string{}
	for role, id := range m.Models {
		roles[role] = membench.ModelName(id)
	}
	if m.Embedder != "" {
		roles["embedder"] = llm.EmbedderModel(m.Embedder)
	}
	return roles
}

// Of bills kept and redone cost records with t.
func Of(kept, redone []runlog.CostRecord, roles map[string]string, t *Table) *Bill {
	b := &Bill{Stages: map[string]Amount{}, Table: t}
	for _, c := range kept {
		// In one order of stages, so that pricing the same records twice
		// gives the same total to the last bit.
		st := t.Stages(c.Tallies, roles)
		for _, k := range slices.Sorted(maps.Keys(st)) {
			b.Stages[k] = b.Stages[k].Add(st[k])
			b.Total = b.Total.Add(st[k])
		}
		for _, tl := range c.Tallies {
			if tl.Label == "embedding" {
				continue
			}
			b.InputTokens += tl.InputTokens
			b.CachedInputTokens += tl.CachedInputTokens
			b.ReplyCacheHits += tl.CachedCalls
		}
	}
	for _, c := range redone {
		st := t.Stages(c.Tallies, roles)
		for _, k := range slices.Sorted(maps.Keys(st)) {
			b.Redone = b.Redone.Add(st[k])
		}
	}
	return b
}

// Line is the bill on one line, for a summary or report: dollars by stage
// and in total, and what they assume.
func (b *Bill) Line() string {
	var parts []string
	for _, st := range StageOrder {
		if a, ok := b.Stages[st]; ok {
			parts = append(parts, st+" "+a.String())
		}
	}
	parts = append(parts, "total "+b.Total.String())
	s := "dollars: " + strings.Join(parts, " · ")
	var notes []string
	if b.Table != nil {
		src := "prices as of " + b.Table.AsOf
		if b.Table.Source != "default" && b.Table.Source != "" {
			src += " with " + b.Table.Source
		}
		notes = append(notes, src)
	}
	if b.CachedInputTokens > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d input tokens from the provider's prompt cache, at its cached rate", b.CachedInputTokens, b.InputTokens))
	}
	if b.ReplyCacheHits > 0 {
		notes = append(notes, fmt.Sprintf("%d replies from membench's cache priced as if paid", b.ReplyCacheHits))
	}
	if b.Redone.Dollars > 0 || !b.Redone.Known() {
		notes = append(notes, "plus "+b.Redone.String()+" for work cut off or redone")
	}
	return s + " (" + strings.Join(notes, "; ") + ")"
}

// Record is the bill as a run summary holds it (runlog.Dollars).
func (b *Bill) Record() *runlog.Dollars {
	d := &runlog.Dollars{Stages: map[string]runlog.Amount{}, Total: b.Total.Record(), Line: b.Line()}
	if b.Table != nil {
		d.PricesAsOf, d.PricesFrom = b.Table.AsOf, b.Table.Source
	}
	for k, a := range b.Stages {
		d.Stages[k] = a.Record()
	}
	if b.Redone.Dollars > 0 || !b.Redone.Known() {
		r := b.Redone.Record()
		d.Redone = &r
	}
	return d
}

// Record is the amount as a run summary holds it: no dollars when unknown.
func (a Amount) Record() runlog.Amount {
	r := runlog.Amount{Unpriced: a.Unpriced, Offline: !a.Paid}
	if a.Known() {
		usd := a.Dollars
		r.USD = &usd
	}
	return r
}

// Dollars prices the run in dir from its records (ForRun) as its summary
// holds them. Every command that writes a summary prices it here, and
// reports and the view bill the run with ForRun, so the figures agree.
func Dollars(dir string, t *Table) (*runlog.Dollars, error) {
	b, err := ForRun(dir, t)
	if err != nil {
		return nil, err
	}
	return b.Record(), nil
}

// Again is the table that prices a run once more after its records grew
// (judges added, shards merged): the prices file given (file, as --prices),
// else the one its earlier summaries were priced with when they all name
// the same file and it still reads, else the default table. The summary's
// line says which table it used.
func Again(file string, earlier ...*runlog.Dollars) (*Table, error) {
	if file != "" {
		return Load(file)
	}
	from := ""
	for i, d := range earlier {
		src := "default"
		if d != nil && d.PricesFrom != "" {
			src = d.PricesFrom
		}
		if i > 0 && src != from {
			return Default(), nil
		}
		from = src
	}
	if from == "" || from == "default" {
		return Default(), nil
	}
	if t, err := Load(from); err == nil {
		return t, nil
	}
	return Default(), nil
}

// Paid reports whether some model the run calls (a role's, a judge's own,
// or the embedder) is on a backend that bills by the token: a run with
// none spends $0 offline, one with some has spent $0 so far, not offline.
func Paid(m runlog.Manifest) bool {
	judgeModel := len(m.JudgeSpecs) == 0 // old manifests: assume a judge asks it
	for _, in := range m.JudgeSpecs {
		if in.Model == nil {
			continue
		}
		if *in.Model == m.Models["judge"] {
			judgeModel = true
		}
		if !free(membench.ModelName(*in.Model)) {
			return true
		}
	}
	for role, model := range Roles(m) {
		if role == "judge" && !judgeModel {
			continue // no judge of the run asks the run's judge model
		}
		if !free(model) {
			return true
		}
	}
	return false
}

// Earlier is the dollars the run's summary.json in dir holds now; nil when
// it has none or does not read (the summary is then written anew).
func Earlier(dir string) *runlog.Dollars {
	b, err := os.ReadFile(filepath.Join(dir, runlog.SummaryJSON))
	if err != nil {
		return nil
	}
	var s struct {
		Dollars *runlog.Dollars `json:"dollars"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return s.Dollars
}
