// Package audit is `membench audit`: StructMem's fidelity audits
// (extraction hallucinations, spurious links) over a run's memory dump.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clienv"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/study/audit"
)

// flags shared by both subcommands.
type flags struct {
	judges      []string
	sample      int
	seed        uint64
	jsonOut     bool
	cacheDir    string
	noCache     bool
	concurrency int
}

func (f *flags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringArrayVar(&f.judges, "judge", nil, "judge model (repeatable): offline, openai:gpt-4o-mini, gpt=openai:gpt-4o-mini or name=qwen,backend=openai,model=M,base-url=U (default offline)")
	fs.IntVar(&f.sample, "sample", 0, "audit a seeded random sample of N items instead of all (0 = all)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of --sample")
	fs.BoolVar(&f.jsonOut, "json", false, "print the result as JSON instead of a table")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "LLM cache directory (default $MEMBENCH_HOME/cache or ~/.cache/membench/cache)")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not read or write the LLM cache")
	fs.IntVar(&f.concurrency, "concurrency", 4, "parallel judge calls")
}

// options builds the judges; close releases the cache.
func (f *flags) options() (audit.Options, func(), error) {
	if f.sample < 0 {
		return audit.Options{}, nil, clierr.Bad("--sample %d: give a positive number of items, or 0 for all", f.sample)
	}
	if f.concurrency < 1 {
		return audit.Options{}, nil, clierr.Bad("--concurrency %d: must be at least 1", f.concurrency)
	}
	closeFn := func() {}
	var deps llm.BuildDeps
	if !f.noCache && audit.NeedsCache(f.judges) {
		dir := f.cacheDir
		if dir == "" {
			dir = clienv.Host().CacheDir()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return audit.Options{}, nil, clierr.Bad("--cache-dir %s: %v", dir, err)
		}
		c, err := llm.NewCache(filepath.Join(dir, "llm.sqlite"))
		if err != nil {
			return audit.Options{}, nil, fmt.Errorf("llm cache: %w", err)
		}
		deps.Cache = c
		closeFn = func() { c.Close() }
	}
	js, err := audit.BuildJudges(f.judges, deps)
	if err != nil {
		closeFn()
		return audit.Options{}, nil, clierr.AsBad(err)
	}
	return audit.Options{Judges: js, Sample: f.sample, Seed: f.seed, Concurrency: f.concurrency}, closeFn, nil
}

func (f *flags) print(w io.Writer, r *audit.Result, mdName string) error {
	if f.jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	if err := r.Table().Terminal(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "written: %s\n", mdName)
	return nil
}

// asBad maps the audit's input errors (missing or malformed files) to exit 2.
func asBad(err error) error {
	var ie *audit.InputError
	if errors.As(err, &ie) {
		return clierr.AsBad(err)
	}
	return err
}

// NewCmd returns the audit command with its two subcommands.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "audit",
		Short: "StructMem fidelity audits: extraction hallucinations and spurious links",
		Long: `Audit the memory a structmem run dumped to <run dir>/memory.jsonl, as
the StructMem paper does in Tables 6 and 7. Each --judge decides per item
whether it is supported; verdicts go to <run dir>/audit_*.jsonl (re-running
resumes) and the table to <run dir>/audit_*.md. With the offline judge the
numbers measure word-overlap heuristics, not a model (docs/audits.md).`,
	}
	c.AddCommand(extractionCmd(), linksCmd())
	return c
}

func extractionCmd() *cobra.Command {
	var f flags
	var run string
	c := &cobra.Command{
		Use:   "extraction",
		Short: "Hallucination rate of event entries (is each entry supported by its utterance?)",
		Example: `  membench audit extraction --run results/sample-structmem-7c067e9caa
  membench audit extraction --run DIR --judge gpt=openai:gpt-4o-mini --judge name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1 --sample 500 --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" {
				return clierr.Bad("--run: give the run directory holding memory.jsonl (membench run --system structmem prints it)")
			}
			opts, done, err := f.options()
			if err != nil {
				return err
			}
			defer done()
			r, err := audit.Extraction(cmd.Context(), run, opts)
			if err != nil {
				return asBad(err)
			}
			return f.print(cmd.OutOrStdout(), r, filepath.Join(run, audit.ExtractionReport))
		},
	}
	c.Flags().StringVar(&run, "run", "", "run directory with memory.jsonl")
	f.register(c)
	return c
}

func linksCmd() *cobra.Command {
	var f flags
	var runs []string
	c := &cobra.Command{
		Use:   "links",
		Short: "Spurious cross-event links (are the cited events enough for each synthesis?)",
		Example: `  membench audit links --run results/A --run results/B
  membench audit links --run DIR --judge gpt=openai:gpt-4o-mini`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(runs) == 0 {
				return clierr.Bad("--run: give at least one run directory holding memory.jsonl (repeatable, e.g. a constrained and an unconstrained run)")
			}
			opts, done, err := f.options()
			if err != nil {
				return err
			}
			defer done()
			r, err := audit.Links(cmd.Context(), runs, opts)
			if err != nil {
				return asBad(err)
			}
			md := filepath.Join(runs[0], audit.LinksReport)
			if len(runs) > 1 {
				md = fmt.Sprintf("%s in each run directory", audit.LinksReport)
			}
			return f.print(cmd.OutOrStdout(), r, md)
		},
	}
	c.Flags().StringArrayVar(&runs, "run", nil, "run directory with memory.jsonl (repeatable)")
	f.register(c)
	return c
}
