// Package sweep is `membench sweep`: run a grid of configurations from one
// YAML file and tabulate (and plot) the results.
package sweep

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clienv"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/study/sweep"
)

// NewCmd returns the sweep command.
func NewCmd() *cobra.Command {
	var (
		cfgFile, out, results    string
		llmBackend, model, base  string
		embedder, data, cacheDir string
		format                   string
		concurrency              int
		quiet, dryRun            bool
	)
	c := &cobra.Command{
		Use:   "sweep",
		Short: "Run a grid of systems and settings from a YAML file; table, CSV, JSON and plot",
		Long: `Run every point of a sweep file, one resumable run directory per point,
sequentially (points share the LLM and embedding caches), then print one
table (point → n, overall accuracy per judge, mean context tokens, build
tokens) and write sweep.json, sweep.md, sweep.csv and the matching plot
(sweep.png, sweep.svg) to --out.

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
  membench sweep --config configs/table2.yaml --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfgFile == "" {
				return clierr.Bad("sweep needs --config FILE (see configs/*.yaml)")
			}
			f, err := sweep.Load(cfgFile)
			if err != nil {
				return clierr.AsBad(err)
			}
			m, err := llm.FlagSpec(llmBackend, model, base)
			if err != nil {
				return clierr.AsBad(err)
			}
			fl := cmd.Flags()
			if m != "" {
				f.Base.Model = m
				// A role model pinned in the file would silently stay offline.
				f.Base.BuildModel, f.Base.AnswerModel, f.Base.DecideModel, f.Base.JudgeModel = "", "", "", ""
			}
			if fl.Changed("embedder") {
				f.Base.Embedder = embedder
			}
			if fl.Changed("data") {
				f.Base.Data = data
			}
			if fl.Changed("cache-dir") {
				f.Base.CacheDir = cacheDir
			}
			if fl.Changed("concurrency") {
				f.Base.Concurrency = concurrency
			}
			f.Base.Quiet = f.Base.Quiet || quiet
			f.Base.Host = clienv.Host()
			points, err := f.Expand()
			if err != nil {
				return clierr.AsBad(err)
			}
			if out == "" {
				name := f.Spec.Name
				if name == "" {
					name = strings.TrimSuffix(filepath.Base(cfgFile), filepath.Ext(cfgFile))
				}
				out = filepath.Join("results", "sweeps", name)
			}
			if dryRun {
				t := &report.Table{Title: fmt.Sprintf("sweep %s: %d points (dry run)", f.Spec.Name, len(points)), Header: []string{"#", "point", "run id"}}
				for i, p := range points {
					t.Add(i+1, p.Label, sweep.RunID(p))
				}
				t.Notes = []string{"plot: " + f.PlotKind(), "output: " + out}
				return t.Terminal(cmd.OutOrStdout())
			}
			res, runErr := sweep.Run(cmd.Context(), f, points, sweep.Options{Out: out, ResultsDir: results, Log: cmd.ErrOrStderr()})
			if res != nil {
				if err := res.Table().Write(cmd.OutOrStdout(), format); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "outputs: %s\n", strings.Join([]string{
					filepath.Join(out, sweep.JSONFile), filepath.Join(out, sweep.MDFile), filepath.Join(out, sweep.CSVFile)}, ", "))
			}
			return runErr
		},
	}
	f := c.Flags()
	f.StringVar(&cfgFile, "config", "", "sweep file (run config, then optionally --- and the sweep spec)")
	f.StringVar(&out, "out", "", "output directory (default results/sweeps/NAME)")
	f.StringVar(&results, "results", "", "where the run directories go (default: the file's results_dir, else OUT/runs)")
	f.StringVar(&llmBackend, "llm", "", "backend for every role: offline or openai (overrides the file)")
	f.StringVar(&model, "model", "", "model name for --llm openai, e.g. gpt-4o-mini")
	f.StringVar(&base, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&embedder, "embedder", "", "embedder: use-lite, hashed or openai:MODEL (overrides the file)")
	f.StringVar(&data, "data", "", "dataset file (overrides the file's data:)")
	f.StringVar(&cacheDir, "cache-dir", "", "LLM and embedding caches")
	f.IntVar(&concurrency, "concurrency", 4, "parallel conversations and questions within a point")
	f.StringVar(&format, "format", "terminal", "table format: terminal, markdown or csv")
	f.BoolVar(&quiet, "quiet", false, "no progress bars")
	f.BoolVar(&dryRun, "dry-run", false, "list the points and run ids, run nothing")
	return c
}
