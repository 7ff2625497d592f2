package estimate

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
)

// A Result is what a run would spend, found before any paid call: a
// dry run of the whole pipeline (the system's own build, retrieval,
// answer and judge code) with every paid model stood in for by the
// offline heuristics under its own name (llm.BuildDeps.Dry). Calls and
// prompts are the system's own, rendered and counted for real; replies,
// and so output tokens and prompts built from earlier replies, are the
// heuristics'. A pilot runs a few conversations for real first and
// scales the dry figures by what it saw.
type Result struct {
	System, Dataset          string
	Conversations, Questions int
	Stages                   []Stage // in prices.StageOrder, stages with work only
	Total                    prices.Amount
	Table                    *prices.Table `json:"-"`
	PricesAsOf               string        `json:"prices_as_of"`
	// Pilot is set when the figures were scaled by a pilot run.
	Pilot *Pilot
}

// Stage is one stage's estimated work and its price.
type Stage struct {
	Stage                            string
	Calls, InputTokens, OutputTokens int
	Dollars                          prices.Amount
}

// Pilot is what the real pilot run did and spent, and how far the dry run
// of the same conversations was from it, by stage (real / dry).
type Pilot struct {
	Conversations []string
	Spent         prices.Amount
	Dir           string // the pilot's run folder, "" when it was a temp one
	Scale         map[string]Scale
}

// Scale multiplies a stage's dry figures.
type Scale struct{ Calls, Input, Output float64 }

// Options choose how an estimate is made.
type Options struct {
	// Pilot runs the first Pilot conversations for real (paid calls, kept
	// in the LLM cache so the run itself gets them free) and scales the
	// dry run's figures by stage to match; 0 uses the heuristics alone.
	Pilot int
	// PilotConversations, when set, are the pilot's conversations
	// instead of the run's first Pilot (they may lie outside the run).
	PilotConversations []string
	// PilotDir is where the pilot's run folder goes ("" = a temp dir
	// removed afterwards).
	PilotDir string
}

// Run estimates the plan's run. Nothing is written under its
// results folder; the dry runs go to temp folders.
func Run(ctx context.Context, pl *plan.Plan, o Options, log io.Writer) (*Result, error) {
	cfg := pl.Config
	// A dry run would start an outside system for real, with whatever
	// models it calls itself.
	if len(pl.System.Outside) > 0 {
		return nil, badinput.Errorf("--estimate: system %s runs outside membench, and a dry run would run it for real; estimate a membench system, or run a few questions with --limit to measure it", cfg.System)
	}
	table := pl.Prices
	full, err := dryRun(ctx, pl)
	if err != nil {
		return nil, err
	}
	e := &Result{System: cfg.System, Dataset: full.dataset, Conversations: len(full.convs), Questions: full.questions, Table: table, PricesAsOf: table.AsOf}
	kept := merged(full.costs)
	if o.Pilot > 0 || len(o.PilotConversations) > 0 {
		pc := cfg
		pc.Conversations = full.convs[:min(o.Pilot, len(full.convs))]
		if len(o.PilotConversations) > 0 {
			pc.Conversations = o.PilotConversations
		}
		pc.RunID = ""
		// The pilot is a run of its own: other conversations, another id.
		pp, err := plan.Resolve(pc, plan.Env{})
		if err != nil {
			return nil, err
		}
		pilot, err := runPilot(ctx, pp, o.PilotDir, log)
		if err != nil {
			return nil, err
		}
		dry, err := dryRun(ctx, pp)
		if err != nil {
			return nil, err
		}
		pilot.Scale = scales(pilot.costs, dry.costs)
		e.Pilot = &pilot.Pilot
		kept = scaled(kept, pilot.Scale)
	}
	bill := prices.Of(kept, nil, full.roles, table)
	sums := byStage(kept)
	for _, st := range prices.StageOrder {
		if t, ok := sums[st]; ok {
			e.Stages = append(e.Stages, Stage{Stage: st, Calls: t.Calls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, Dollars: bill.Stages[st]})
		}
	}
	e.Total = bill.Total
	return e, nil
}

// dryResult is what a dry run did.
type dryResult struct {
	dataset   string
	convs     []string // the run's conversations, in dataset order
	questions int
	costs     []runlog.CostRecord // kept work
	roles     map[string]string   // role -> the paid model it stood in for
}

// dryRun runs the plan with stand-ins for every paid model into a temp
// folder and returns its recorded work. None of the settings it changes
// is in the run id.
func dryRun(ctx context.Context, pl *plan.Plan) (*dryResult, error) {
	tmp, err := os.MkdirTemp("", "membench-estimate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dry := *pl
	cfg := &dry.Config
	cfg.Dry, cfg.ResultsDir, cfg.Quiet, cfg.NoTranscripts = true, tmp, true, true
	dry.Dir = filepath.Join(tmp, dry.ID)
	p, err := harness.Prepare(&dry, nil, io.Discard)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	r := &dryResult{dataset: p.Data.Name, roles: prices.Roles(p.Manifest)}
	for _, c := range p.Data.Conversations {
		r.convs = append(r.convs, c.ID)
		r.questions += len(c.Questions)
	}
	if _, err := p.Execute(ctx); err != nil {
		return nil, fmt.Errorf("estimate's dry run: %w", err)
	}
	if r.costs, err = keptCosts(p.Dir); err != nil {
		return nil, err
	}
	return r, nil
}

func keptCosts(dir string) ([]runlog.CostRecord, error) {
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(dir, runlog.CostsFile))
	if err != nil {
		return nil, err
	}
	kept, _ := runlog.EffectiveCosts(costs)
	return kept, nil
}

type pilotResult struct {
	Pilot
	costs []runlog.CostRecord
}

// runPilot runs the pilot's plan for real into dir, or a temp folder
// removed afterwards.
func runPilot(ctx context.Context, pl *plan.Plan, dir string, log io.Writer) (*pilotResult, error) {
	keep := dir != ""
	if !keep {
		tmp, err := os.MkdirTemp("", "membench-pilot-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	run := *pl
	run.Config.ResultsDir, run.Dir = dir, filepath.Join(dir, pl.ID)
	fmt.Fprintf(log, "estimate: pilot run of %d conversation(s) against the real backend (paid; its replies are cached for the run)\n", len(pl.Config.Conversations))
	if _, err := harness.RunPlan(ctx, &run, log); err != nil {
		return nil, fmt.Errorf("estimate's pilot run: %w", err)
	}
	runDir := run.Dir
	b, err := prices.ForRun(runDir, pl.Prices)
	if err != nil {
		return nil, err
	}
	costs, err := keptCosts(runDir)
	if err != nil {
		return nil, err
	}
	if !keep {
		runDir = ""
	}
	return &pilotResult{Pilot: Pilot{Conversations: pl.Config.Conversations, Spent: b.Total.Add(b.Redone), Dir: runDir}, costs: costs}, nil
}

// scales is real / dry by stage, for calls, input and output tokens; a
// stage the dry run did not see keeps its figures (1).
func scales(real, dry []runlog.CostRecord) map[string]Scale {
	r, d := byStage(real), byStage(dry)
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	out := map[string]Scale{}
	for k, dt := range d {
		rt := r[k]
		out[k] = Scale{Calls: ratio(rt.Calls, dt.Calls), Input: ratio(rt.InputTokens, dt.InputTokens), Output: ratio(rt.OutputTokens, dt.OutputTokens)}
	}
	return out
}

// byStage sums the tallies of costs by stage (prices.StageKey); the
// estimate reads their calls and tokens.
func byStage(costs []runlog.CostRecord) map[string]membench.Tally {
	out := map[string]membench.Tally{}
	for _, c := range costs {
		for _, t := range c.Tallies {
			k := prices.StageKey(t)
			s := out[k]
			s.Add(t)
			out[k] = s
		}
	}
	return out
}

// merged is costs as one record of one tally per stage, role, label and
// model, so that scaling rounds once per sum.
func merged(costs []runlog.CostRecord) []runlog.CostRecord {
	type key struct{ stage, role, label, model string }
	sums := map[key]*membench.Tally{}
	var order []key
	for _, c := range costs {
		for _, t := range c.Tallies {
			k := key{string(t.Stage), t.Role, t.Label, t.Model}
			s := sums[k]
			if s == nil {
				s = &membench.Tally{Role: t.Role, Stage: t.Stage, Label: t.Label, Model: t.Model}
				sums[k] = s
				order = append(order, k)
			}
			s.Add(t)
		}
	}
	rec := runlog.CostRecord{}
	for _, k := range order {
		rec.Tallies = append(rec.Tallies, *sums[k])
	}
	return []runlog.CostRecord{rec}
}

// scaled is costs with each tally's figures multiplied by its stage's
// scale.
func scaled(costs []runlog.CostRecord, sc map[string]Scale) []runlog.CostRecord {
	out := make([]runlog.CostRecord, len(costs))
	for i, c := range costs {
		c.Tallies = append([]membench.Tally(nil), c.Tallies...)
		for j, t := range c.Tallies {
			s, ok := sc[prices.StageKey(t)]
			if !ok {
				continue
			}
			t.Calls = int(math.Round(float64(t.Calls) * s.Calls))
			t.InputTokens = int(math.Round(float64(t.InputTokens) * s.Input))
			t.OutputTokens = int(math.Round(float64(t.OutputTokens) * s.Output))
			c.Tallies[j] = t
		}
		out[i] = c
	}
	return out
}
