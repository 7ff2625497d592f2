// Package audit is `membench audit`: StructMem's fidelity audits
// (extraction hallucinations, spurious links) over a run's memory dump.
package audit

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/membench/membench"
	"github.com/membench/membench/audit"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// Options are the inputs of audit extraction and links.
type Options struct {
	Runs        []string // --run: run directories with memory.jsonl
	Judges      []string // --audit-model: model specs of the auditing judges; default offline
	Sample      int      // audit a seeded sample of N items (0 = all)
	Seed        uint64
	JSON        bool
	CacheDir    string // "" = Host's cache directory
	NoCache     bool
	Concurrency int
	Host        membench.Host // environment, read at the edge (clienv)
	Out         io.Writer
}

// subCmd is audit extraction or links: c with --run and the flags they
// share, running run.
func subCmd(c *cobra.Command, runsUsage string, run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	c.Args = cobra.NoArgs
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		o.Host, o.Out = clienv.Host(cmd.Context()), cmd.OutOrStdout()
		return run(cmd.Context(), o)
	}
	cliflag.Runs(c, &o.Runs, runsUsage)
	fs := c.Flags()
	fs.StringArrayVar(&o.Judges, "audit-model", nil, "model that decides support (repeatable, one column each): offline, openai:gpt-4o-mini, gpt=openai:gpt-4o-mini or name=qwen,backend=openai,model=M,base-url=U (default offline)")
	cliflag.Int(c, &o.Sample, "sample", 0, 0, math.MaxInt, "audit a seeded random sample of N items instead of all (0 = all)")
	cliflag.Uint64(c, &o.Seed, "seed", 1, "seed of --sample")
	cliflag.JSON(c, &o.JSON)
	fs.StringVar(&o.CacheDir, "cache-dir", "", "LLM cache directory (default $MEMBENCH_HOME/cache or ~/.cache/membench/cache)")
	fs.BoolVar(&o.NoCache, "no-cache", false, "do not read or write the LLM cache")
	cliflag.Concurrency(c, &o.Concurrency, "parallel judge calls")
	return c
}

// run builds the judges, runs the audit with them and prints its result
// (the table written to mdName).
func (o *Options) run(run func(audit.Options) (*audit.Result, error), mdName string) error {
	if o.Sample < 0 {
		return clierr.Bad("--sample %d: give a positive number of items, or 0 for all", o.Sample)
	}
	if o.Concurrency < 1 {
		return clierr.Bad("--concurrency %d: must be at least 1", o.Concurrency)
	}
	var deps llm.BuildDeps
	if !o.NoCache && audit.NeedsCache(o.Judges) {
		dir := cmp.Or(o.CacheDir, o.Host.CacheDir())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return clierr.Bad("--cache-dir %s: %v", dir, err)
		}
		c, err := llm.NewCache(filepath.Join(dir, "llm.sqlite"))
		if err != nil {
			return fmt.Errorf("llm cache: %w", err)
		}
		defer c.Close()
		deps.Cache = c
	}
	js, err := audit.BuildJudges(o.Judges, deps)
	if err != nil {
		return clierr.AsBad(err)
	}
	r, err := run(audit.Options{Judges: js, Sample: o.Sample, Seed: o.Seed, Concurrency: o.Concurrency})
	if err != nil {
		return err
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, r)
	}
	if err := r.Table().Terminal(o.Out); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "written: %s\n", mdName)
	return nil
}

// NewCmd returns the audit command with its two subcommands.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audits: StructMem fidelity (extraction hallucinations, spurious links) and judge false-accept rates",
		Long: `Audit the memory a structmem run dumped to <run dir>/memory.jsonl, as
the StructMem paper ("StructMem: Structured Memory for Long-Horizon Behavior
in LLMs", arXiv 2604.21748) does in Tables 6 and 7. Each --audit-model (a
model spec, one column each) decides per item
whether it is supported; verdicts go to <run dir>/audit_*.jsonl (re-running
resumes) and the table to <run dir>/audit_*.md. With the offline model the
numbers measure word-overlap heuristics, not a model (docs/audits.md).`,
	}
	c.AddCommand(extractionCmd(), linksCmd(), judgeCmd())
	return c
}

func extractionCmd() *cobra.Command {
	return subCmd(&cobra.Command{
		Use:   "extraction",
		Short: "Hallucination rate of event entries (is each entry supported by its utterance?)",
		Example: `  membench audit extraction --run results/S
  membench audit extraction --run results/S --sample 20 --seed 7 --json
  membench audit extraction --run results/S --audit-model gpt=openai:gpt-4o-mini --audit-model name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1 --sample 500`,
	}, "run directory with memory.jsonl (a structmem run)", RunExtraction)
}

// RunExtraction audits the run's event entries and prints the table.
func RunExtraction(ctx context.Context, o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("--run: give the run directory holding memory.jsonl (membench run --system structmem prints it)")
	}
	dirs, err := cliflag.RunDirs(o.Runs, runlog.MemoryFile)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return clierr.Bad("audit extraction audits one run; --run %v gave %d (%v): run it once per run", o.Runs, len(dirs), dirs)
	}
	return o.run(func(opts audit.Options) (*audit.Result, error) {
		return audit.Extraction(ctx, dirs[0], opts)
	}, filepath.Join(dirs[0], audit.ExtractionReport))
}

func linksCmd() *cobra.Command {
	return subCmd(&cobra.Command{
		Use:   "links",
		Short: "Spurious cross-event links (are the cited events enough for each synthesis?)",
		Example: `  membench audit links --run results/S
  membench audit links --run results/S --audit-model gpt=openai:gpt-4o-mini`,
	}, "run directory with memory.jsonl, glob, or directory of runs (repeatable)", RunLinks)
}

// RunLinks audits the runs' cross-event links and prints the table.
func RunLinks(ctx context.Context, o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("--run: give at least one run directory holding memory.jsonl (repeatable, e.g. a constrained and an unconstrained run)")
	}
	dirs, err := cliflag.RunDirs(o.Runs, runlog.MemoryFile)
	if err != nil {
		return err
	}
	md := filepath.Join(dirs[0], audit.LinksReport)
	if len(dirs) > 1 {
		md = audit.LinksReport + " in each run directory"
	}
	return o.run(func(opts audit.Options) (*audit.Result, error) { return audit.Links(ctx, dirs, opts) }, md)
}
