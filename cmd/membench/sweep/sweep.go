// Package sweep is `membench sweep`: run a grid of configurations from one
// YAML file and tabulate (and plot) the results.
package sweep

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/cmd/membench/run"
	"github.com/membench/membench/estimate"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/sweep"
)

// Options are the sweep command's inputs.
type Options struct {
	ConfigFile          string
	OutDir              string // default results/sweeps/NAME
	Results             string // where the run directories go
	LLM, Model, BaseURL string
	DecideModel         string // overrides the file's decide_model (applied after --llm/--model)
	// Config holds --embedder, --data, --cache-dir and --concurrency: they
	// override the file only where Changed says the user set them.
	Config              membench.Config
	Format              string
	Quiet, DryRun, JSON bool
	Estimate            bool // print each point's estimated spend, run nothing
	AllowMixed          bool // tabulate points whose manifests differ
	// AnswerPrompt and JudgePrompt are prompt files over the file's
	// (answer_prompt:, judge_prompt:); AnswerPrompt entries may be
	// SYSTEM=FILE, for that system's points only.
	AnswerPrompt        []string
	JudgePrompt         string
	AllowPromptMismatch bool                   // run prompt files whose sha256 is not the pinned one, labelled
	YFull               bool                   // accuracy plot on 0-100, not fitted
	Changed             func(flag string) bool // nil: no flag set
	Host                membench.Host
	Out, Err            io.Writer // table; progress
}

// NewCmd returns the sweep command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "sweep",
		Short: "Run a grid of systems and settings from a YAML file; table, CSV, JSON and plot",
		Long: `Run every point of a sweep file, one resumable run directory per point,
sequentially (points share the LLM and embedding caches), then print one
table (point → n, overall accuracy per judge, mean context tokens, build
tokens) and write sweep.json, sweep.md, sweep.csv and the matching plot
(sweep.png at 300 dpi, sweep.svg, sweep.pdf) to --out.

A sweep file is a run config (the same YAML as membench run --config),
optionally followed by a second YAML document:

  ---
  name: k-sweep
  systems: [flat, structmem]     # default: the run config's system
  grid:                          # cartesian product, in this order
    k: [1, 3, 5, 10]             # retrieval budget
    opt.seeds: [0, 5, 15]        # any system option
  plot: k                        # k | seeds | build-tokens | none (default: guessed)

Re-running the same command resumes every unfinished point. See docs/sweeps.md.`,
		Example: `  membench sweep --config configs/sample_k_sweep.yaml --out /tmp/ksweep
  membench sweep --config configs/fig3c_k_sweep.yaml --llm openai --model gpt-4o-mini
  membench sweep --config configs/sample_seeds_sweep.yaml --dry-run --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Changed = cmd.Flags().Changed
			o.Host = clienv.Host(cmd.Context())
			o.Out, o.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.ConfigFile, "config", "", "sweep file (run config, then optionally --- and the sweep spec)")
	_ = c.RegisterFlagCompletionFunc("config", cliflag.CompleteConfigs)
	cliflag.JSON(c, &o.JSON)
	f.StringVar(&o.OutDir, "out", "", "output directory (default results/sweeps/NAME)")
	f.StringVar(&o.Results, "results", "", "where the run directories go (default: the file's results_dir, else OUT/runs)")
	f.StringVar(&o.LLM, "llm", "", "backend for every role: offline or openai (overrides the file)")
	f.StringVar(&o.Model, "model", "", "model name for --llm openai, e.g. gpt-4o-mini")
	f.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&o.DecideModel, "decide-model", "", "model spec for the decision role (overrides the file's decide_model), e.g. backend=openai,model=M,base-url=U")
	f.StringVar(&o.Config.Embedder, "embedder", "", "embedder: use-lite, hashed or openai:MODEL (overrides the file)")
	f.StringVar(&o.Config.Data, "data", "", "dataset file (overrides the file's data:)")
	f.StringVar(&o.Config.CacheDir, "cache-dir", "", "LLM and embedding caches")
	cliflag.Concurrency(c, &o.Config.Concurrency, "model requests in flight within a point (one budget over its conversations, builds and judges)")
	f.StringVar(&o.Format, "format", "terminal", "table format: terminal, markdown or csv")
	f.BoolVar(&o.Quiet, "quiet", false, "no progress output")
	f.BoolVar(&o.DryRun, "dry-run", false, "list the points and run ids, run nothing")
	f.BoolVar(&o.Estimate, "estimate", false, "print each point's calls, tokens and dollars by stage and the sweep's total, from dry runs with the offline heuristics standing in for paid models (no paid call), and run nothing")
	f.BoolVar(&o.YFull, "y-full", false, "accuracy plot: y axis 0-100 instead of fitted to the points and their intervals")
	f.StringArrayVar(&o.AnswerPrompt, "answer-prompt", nil, "file replacing the answer prompt of every point, or SYSTEM=FILE for that system's points (repeatable): a paper config's points take the file its paper_prompts: pins for their system")
	f.StringVar(&o.JudgePrompt, "judge-prompt", "", "file replacing the llm judge prompt; with a paper config (paper_prompts:) the pinned judge's prompt only")
	f.BoolVar(&o.AllowPromptMismatch, "allow-prompt-mismatch", false, "run prompt files whose sha256 is not the one the paper config pins, every figure labelled PROMPT MISMATCH, instead of refusing")
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "tabulate and plot points whose manifests differ (embedder, dataset, backends), with a warning")
	return c
}

// Run expands the sweep file into points and runs them (or, with DryRun,
// lists them), then prints the table.
func Run(ctx context.Context, o *Options) error {
	changed := func(flag string) bool { return o.Changed != nil && o.Changed(flag) }
	out := o.OutDir
	if o.ConfigFile == "" {
		return clierr.Bad("sweep needs --config FILE (see configs/*.yaml)")
	}
	f, err := sweep.Load(o.ConfigFile)
	if err != nil {
		return clierr.AsBad(err)
	}
	m, err := llm.FlagSpec(o.LLM, o.Model, o.BaseURL)
	if err != nil {
		return clierr.AsBad(err)
	}
	if m != "" {
		f.Base.Model = m
		// A role model pinned in the file would silently stay offline.
		f.Base.BuildModel, f.Base.AnswerModel, f.Base.DecideModel, f.Base.JudgeModel = "", "", "", ""
	}
	if o.DecideModel != "" {
		if _, err := llm.ParseSpec(o.DecideModel); err != nil {
			return clierr.Bad("--decide-model: %v", err)
		}
		f.Base.DecideModel = o.DecideModel
	}
	run.Merge(&f.Base, o.Config, func(flag string) bool {
		return changed(flag) && slices.Contains([]string{"embedder", "data", "cache-dir", "concurrency"}, flag)
	})
	f.Base.Quiet = f.Base.Quiet || o.Quiet
	f.Base.Host = o.Host
	f.Base.AllowPromptMismatch = o.AllowPromptMismatch
	f.Base.JudgePrompt = cmp.Or(o.JudgePrompt, f.Base.JudgePrompt)
	points, err := f.Expand()
	if err != nil {
		return clierr.AsBad(err)
	}
	if points, err = answerPrompts(points, o.AnswerPrompt); err != nil {
		return err
	}
	// Prompts that are not the paper's are refused before any point runs.
	for _, p := range points {
		if err := plan.CheckPaperPrompts(p.Config); err != nil {
			return clierr.AsBad(fmt.Errorf("point %s: %w", p.Label, err))
		}
	}
	if out == "" {
		name := cmp.Or(f.Spec.Name, strings.TrimSuffix(filepath.Base(o.ConfigFile), filepath.Ext(o.ConfigFile)))
		out = filepath.Join("results", "sweeps", name)
	}
	if o.DryRun {
		t := &report.Table{Title: fmt.Sprintf("sweep %s: %d points (dry run)", f.Spec.Name, len(points)), Header: []string{"#", "point", "run id"}}
		type point struct {
			Label string `json:"label"`
			RunID string `json:"run_id"`
		}
		ps := []point{}
		for i, p := range points {
			id, err := sweep.RunID(p)
			if err != nil {
				return clierr.AsBad(err)
			}
			t.Add(i+1, p.Label, id)
			ps = append(ps, point{p.Label, id})
		}
		t.Notes = []string{"plot: " + f.PlotKind(), "output: " + out}
		return cliflag.PrintResult(o.Out, o.JSON, map[string]any{"name": f.Spec.Name, "plot": f.PlotKind(), "out": out, "points": ps}, t)
	}
	if o.Estimate {
		return estimateAll(ctx, o, points)
	}
	res, runErr := sweep.Run(ctx, f, points, sweep.Options{Out: out, ResultsDir: o.Results, Log: o.Err, AllowMixed: o.AllowMixed, YFull: o.YFull})
	if res != nil && o.JSON {
		if err := cliflag.PrintJSON(o.Out, res); err != nil { // what sweep.json holds
			return err
		}
		return runErr
	}
	if res != nil {
		t := res.Table()
		if o.Format == "csv" {
			t = res.CSVTable() // the same columns as sweep.csv
		}
		if err := t.Write(o.Out, o.Format); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "outputs: %s\n", strings.Join([]string{
			filepath.Join(out, sweep.JSONFile), filepath.Join(out, sweep.MDFile), filepath.Join(out, sweep.CSVFile)}, ", "))
	}
	return runErr
}

// answerPrompts gives the points their --answer-prompt files: FILE for
// every point, SYSTEM=FILE for one system's (over a plain FILE).
func answerPrompts(points []sweep.Point, flags []string) ([]sweep.Point, error) {
	all, by := "", map[string]string{}
	for _, v := range flags {
		sys, file, ok := strings.Cut(v, "=")
		if !ok {
			if all != "" {
				return nil, clierr.Bad("--answer-prompt %s and --answer-prompt %s: give one file for every point, or SYSTEM=FILE for each system", all, v)
			}
			all = v
			continue
		}
		if !slices.ContainsFunc(points, func(p sweep.Point) bool { return p.System == sys }) {
			return nil, clierr.Bad("--answer-prompt %s: no point of this sweep runs system %s", v, sys)
		}
		by[sys] = file
	}
	for i := range points {
		if f, ok := by[points[i].System]; ok {
			points[i].Config.AnswerPrompt = f
		} else if all != "" {
			points[i].Config.AnswerPrompt = all
		}
	}
	return points, nil
}

// estimateAll prints each point's estimated spend (membench run --estimate)
// as a row, and the sweep's total.
func estimateAll(ctx context.Context, o *Options, points []sweep.Point) error {
	t := &report.Table{Title: fmt.Sprintf("sweep estimate: %d points (nothing run, no paid call)", len(points)), Header: []string{"#", "point", "calls", "input tokens", "output tokens", "dollars by stage", "dollars"}}
	var total prices.Amount
	var all []*estimate.Result
	for i, p := range points {
		var e *estimate.Result
		pl, err := plan.Resolve(p.Config, plan.Env{})
		if err == nil {
			e, err = estimate.Run(ctx, pl, estimate.Options{}, o.Err)
		}
		if err != nil {
			return fmt.Errorf("point %s: %w", p.Label, err)
		}
		all = append(all, e)
		var by []string
		for _, s := range e.Stages {
			by = append(by, s.Stage+" "+s.Dollars.String())
		}
		calls, in, out := run.Totals(e)
		t.Add(i+1, p.Label, calls, in, out, strings.Join(by, ", "), e.Total.String())
		total = total.Add(e.Total)
	}
	t.Notes = []string{"total: " + total.String() + " (points share the LLM cache, so a point that repeats another's calls costs less than shown)",
		"how: as membench run --estimate: a dry run of each point's system with the offline heuristics standing in for each paid model; call counts and prompts are real, reply lengths rough"}
	return cliflag.PrintResult(o.Out, o.JSON, map[string]any{"points": all, "total": total}, t)
}
