// Package run is the `membench run` command: flags and file → membench.Config → plan.Resolve → harness.RunPlan.
package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/estimate"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/replay"
	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/yamlfile"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/summary"
	"github.com/membench/membench/systems"
)

// Options are the run command's inputs: a config file, the flag values
// and which flags the user set (flags override the file only where set).
type Options struct {
	ConfigFile          string
	Config              membench.Config // flag values
	Opts                []string        // --opt key=value
	LLM, Model, BaseURL string
	Quiet               bool
	JSON                bool   // print the summary as JSON on stdout
	Replay              string // a bundle to reproduce (membench bundle)
	ReplayFallback      bool   // with Replay: calls the bundle lacks go to the backend
	ReplayLimits        bundle.Limits
	EnvBaseURL          string // OPENAI_BASE_URL, read at the edge (clienv)
	JobIndex            string // JOB_COMPLETION_INDEX, for --shard auto/N
	CPUProfile          string // file for a CPU profile of the run
	MemProfile          string // file for a heap profile at the end
	Prices              string // a prices file laid over the default table
	Estimate            bool   // print what the run would spend and run nothing
	EstimatePilot       int    // with Estimate: run this many conversations for real first
	// Changed reports whether the user set a flag; nil means none was set,
	// so with no ConfigFile every Config field applies.
	Changed  func(flag string) bool
	Host     membench.Host // environment, read at the edge (clienv)
	Out, Err io.Writer     // summary; progress and log lines
}

// NewCmd returns the run command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "run",
		Short: "Replay a benchmark into a memory system, answer and judge every question",
		Long: `Replay a benchmark into a memory system, answer and judge every question,
and write results/<run-id>/ (manifest, build, retrievals, answers, judgments,
costs, summary). With no flags it runs turns-cosine on the embedded sample
conversation with the offline backend: no key, no network.

Re-running the same command resumes: finished questions are skipped.

Judges are given with --judge-spec SPEC (repeatable; the same syntax in run,
score and judge); readers (report, compare, diagnose, plot, ...) then pick
a judge by its name with --judge NAME, by default the run's primary judge
(its first verdict judge). With no --judge-spec a run gets lexical, f1,
bleu1 offline and llm, f1, bleu1 with a real judge model.`,
		Example: `  membench run
  membench run --system fullcontext
  membench run --system turns-cosine --dataset locomo --data ../shared/datasets/locomo10.json
  membench run --system structmem --llm openai --model gpt-4o-mini
  membench run --system turns-rerank --opt n=30 --opt floor=10 --k 3 --judge-spec lexical --judge-spec em
  membench run --config configs/sample_k_sweep.yaml --system flat --k 5 --results /tmp/flat --json
  membench run --replay testdata/bundles/sample-turns-rerank.tar.gz --results /tmp/replayed
  membench run --shard 0/2 --results /tmp/shards   # then --shard 1/2, and: membench merge --run '/tmp/shards/*' --out DIR`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Changed = cmd.Flags().Changed
			o.Host = clienv.Host(cmd.Context())
			o.JobIndex = clienv.JobIndex(cmd.Context())
			o.EnvBaseURL = clienv.OpenAIBaseURL(cmd.Context())
			o.Out, o.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	def := membench.Config{}.WithDefaults() // the defaults a config file gets, shown by the flags
	f.StringVar(&o.ConfigFile, "config", "", "YAML run config (flags override it)")
	f.StringVar(&o.Config.System, "system", "turns-cosine", "memory system (list them with: membench systems)")
	_ = c.RegisterFlagCompletionFunc("config", cliflag.CompleteConfigs)
	_ = c.RegisterFlagCompletionFunc("system", cliflag.CompleteSystems)
	f.StringArrayVar(&o.Opts, "opt", nil, "system option key=value (repeatable), e.g. --opt k=20")
	cliflag.Int(c, &o.Config.K, "k", 0, 0, cliflag.MaxK, "retrieval budget (items), the same setting as --opt k; 0 = the system's default")
	f.StringVar(&o.Config.Dataset, "dataset", datasets.Default(), "dataset: "+strings.Join(datasets.Names(), ", "))
	_ = c.RegisterFlagCompletionFunc("dataset", cliflag.CompleteDatasets)
	f.StringVar(&o.Config.Data, "data", "", "dataset file (default: the fetched copy; sample is embedded)")
	f.StringVar(&o.Config.BaseData, "base-data", "", "base conversations of a stitched dataset (locomo-plus: a LoCoMo file; default: the installed locomo copy)")
	cliflag.Int(c, &o.Config.Seed, "seed", 0, 0, math.MaxInt32, "seed of a stitched dataset's choices (locomo-plus: each item's base conversation); 0 = the dataset's default, 1")
	f.StringSliceVar(&o.Config.Conversations, "conversations", nil, "only these conversation ids (comma-separated), e.g. conv-26")
	cliflag.Int(c, &o.Config.Limit, "limit", 0, 0, math.MaxInt, "at most N questions in all, in dataset order; conversations left without questions are not built (0 = all)")
	cliflag.Duration(c, &o.Config.TurnStep, "turn-step", def.TurnStep, 0, membench.MaxTurnStep, "time between consecutive turns within a session")
	f.StringVar(&o.LLM, "llm", "", "backend for every role: offline (default) or openai")
	f.StringVar(&o.Model, "model", "", "model name for --llm openai, e.g. gpt-4o-mini (implies --llm openai)")
	f.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible base URL (default $OPENAI_BASE_URL or https://api.openai.com/v1)")
	f.StringVar(&o.Config.BuildModel, "build-model", "", "model spec for memory building, e.g. openai:gpt-4o-mini")
	f.StringVar(&o.Config.AnswerModel, "answer-model", "", "model spec for answering")
	f.StringVar(&o.Config.DecideModel, "decide-model", "", "model spec for relevance decisions (needs logprobs)")
	f.StringVar(&o.Config.JudgeModel, "judge-model", "", "model spec for the llm judge")
	f.StringArrayVar(&o.Config.Judges, "judge-spec", nil, "judge to run (repeatable): "+cliflag.JudgeSpecSyntax+" (default: lexical, f1, bleu1; llm, f1, bleu1 with a real judge model)")
	_ = c.RegisterFlagCompletionFunc("judge-spec", cliflag.CompleteJudgeKinds)
	cliflag.AnswerKey(c, &o.Config.AnswerKey, "published")
	cliflag.ExcludeImageQuestions(c, &o.Config.ExcludeImageQuestions)
	f.StringVar(&o.Config.AnswerPrompt, "answer-prompt", "", "file replacing the answer prompt template")
	f.StringVar(&o.Config.JudgePrompt, "judge-prompt", "", "file replacing the llm judge prompt template (for parity with a reference judge); with a paper config (paper_prompts:) it replaces the pinned judge's prompt only")
	f.BoolVar(&o.Config.AllowPromptMismatch, "allow-prompt-mismatch", false, "run a prompt file whose sha256 is not the one the paper config pins (paper_prompts:), every figure labelled PROMPT MISMATCH, instead of refusing")
	f.StringVar(&o.Config.Embedder, "embedder", "", "embedder: use-lite, tfidf-hash-512 (also: hashed), or openai:MODEL (default: use-lite when installed, else tfidf-hash-512; the run id records which)")
	f.StringVar(&o.Config.RunID, "run-id", "", "run directory name (default: derived from the config, so reruns resume)")
	f.StringVar(&o.Config.ResultsDir, "results", def.ResultsDir, "where run directories go")
	f.StringVar(&o.Config.CacheDir, "cache-dir", "", "LLM and embedding caches (default $MEMBENCH_HOME/cache or ~/.cache/membench/cache)")
	cliflag.Concurrency(c, &o.Config.Concurrency, "one budget for the whole run: at most N model requests in flight and N questions in progress, shared by every conversation, build and judge")
	f.BoolVar(&o.Config.NoCache, "no-cache", false, "do not read or write the LLM cache")
	cliflag.Float64(c, &o.Config.MaxBuildFailures, "max-build-failures", def.MaxBuildFailures, 0, 1, "share of memory-build requests that may fail (unusable reply after a repair retry) before the run stops with exit 1 (1 = never stop)")
	cliflag.Size(c, &o.Config.MaxDataSize, "max-data-size", datasets.DefaultMaxBytes, 1<<10, 1<<50, "read at most this much of the dataset file (a larger one is refused), e.g. 8GiB")
	f.BoolVar(&o.Config.NoTranscripts, "no-transcripts", false, "do not write transcripts.jsonl.gz (what the answer model and judges read and replied, per question)")
	f.BoolVar(&o.Quiet, "quiet", false, "no progress output")
	f.BoolVar(&o.JSON, "json", false, "print the summary (summary.json's content) as JSON on stdout instead of the table")
	f.StringVar(&o.Replay, "replay", "", "reproduce a bundled run (membench bundle): its config, every paid reply from the bundle, no network, no key; only --data, --results, --cache-dir, --concurrency and --quiet apply (and --opt for an outside system's cmd or url)")
	f.BoolVar(&o.ReplayFallback, "replay-fallback", false, "with --replay: send calls the bundle lacks to the backend configured here (--base-url, else $OPENAI_BASE_URL, else OpenAI; key from $OPENAI_API_KEY), never one the bundle names; the summary counts them")
	lim := bundle.DefaultLimits
	cliflag.Size(c, &o.ReplayLimits.Entry, "replay-max-entry", lim.Entry, 1<<10, 1<<50, "with --replay: the most one bundle entry may unpack to, e.g. 2GiB")
	cliflag.Size(c, &o.ReplayLimits.Total, "replay-max-total", lim.Total, 1<<10, 1<<50, "with --replay: the most a whole bundle may unpack to, e.g. 8GiB")
	cliflag.Float64(c, &o.ReplayLimits.Ratio, "replay-max-ratio", lim.Ratio, 1, 1e6, "with --replay: unpacked bytes per byte of the bundle file (real bundles expand about 5x)")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	f.StringVar(&o.Prices, "prices", "", "YAML or JSON file of model prices per million tokens (input, cached_input, output) changing or adding to the default table, for the summary's dollars line")
	f.BoolVar(&o.Estimate, "estimate", false, "print the calls, tokens and dollars by stage the run would spend, from a dry run with the offline heuristics standing in for paid models (no paid call), and run nothing")
	cliflag.Int(c, &o.EstimatePilot, "estimate-pilot", 0, 0, math.MaxInt32, "with --estimate: first run N conversations against the real backend (paid; replies cached for the run) and scale the estimate by what they spent")
	f.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile at the end of the run to this file (go tool pprof; -sample_index=alloc_space for allocations)")
	f.StringVar(&o.Config.Shard, "shard", "", "run only part I of N (I/N, I from 0; auto/N reads JOB_COMPLETION_INDEX): conversation j goes to part j mod N (LongMemEval: question j); join the parts with 'membench merge'")
	return c
}

// Run merges the config file and the flags into one membench.Config, runs it
// and prints the summary (also of a run that stopped part way).
func Run(ctx context.Context, o *Options) error {
	changed := func(flag string) bool { return o.Changed != nil && o.Changed(flag) }
	stdout, stderr := cmp.Or(o.Out, io.Discard), cmp.Or(o.Err, io.Discard)
	cfgFile, cfg := o.ConfigFile, o.Config
	if o.Replay != "" && o.Estimate {
		return clierr.Bad("--estimate cannot go with --replay: a replay's paid replies come from its bundle and cost nothing")
	}
	if o.Replay != "" {
		return runReplay(ctx, o, changed, stdout, stderr)
	}
	if o.ReplayFallback {
		return clierr.Bad("--replay-fallback goes with --replay FILE")
	}
	base := membench.Config{}
	if cfgFile != "" {
		b, err := os.ReadFile(cfgFile)
		if err != nil {
			return clierr.Bad("--config: %v", err)
		}
		// A sweep file's second document (the grid) is the sweep's; run
		// reads the run config in front of it.
		docs, err := yamlfile.Documents(cfgFile, b)
		if err == nil && len(docs) == 0 {
			return clierr.Bad("--config %s is empty; write at least one setting, e.g. system: turns-cosine (see configs/ for examples)", cfgFile)
		}
		if err == nil {
			err = yamlfile.Decode(cfgFile, docs[0], &base)
		}
		if err != nil {
			return clierr.Bad("--config %v; see configs/ for examples", err)
		}
		if line := yamlfile.ZeroAt(docs[0], "concurrency"); line > 0 {
			return membench.ZeroConcurrency(cfgFile, line)
		}
	}
	// Flags override the file only where the user set them.
	Merge(&base, cfg, func(flag string) bool { return changed(flag) || cfgFile == "" })
	base.System = cmp.Or(base.System, "turns-cosine")
	if len(o.Opts) > 0 {
		parsed, err := systems.Parse(o.Opts)
		if err != nil {
			return clierr.AsBad(err)
		}
		if base.Options == nil {
			base.Options = membench.Options{}
		}
		maps.Copy(base.Options, parsed)
	}
	m, err := llm.FlagSpec(o.LLM, o.Model, o.BaseURL)
	if err != nil {
		return clierr.AsBad(err)
	}
	base.Model = cmp.Or(m, base.Model)
	base.Quiet = o.Quiet
	base.Host = o.Host
	base.AllowPromptMismatch = cfg.AllowPromptMismatch
	base.PricesFile = o.Prices
	if o.EstimatePilot > 0 && !o.Estimate {
		return clierr.Bad("--estimate-pilot goes with --estimate")
	}
	// The one resolution of the run: everything below reads the plan.
	p, err := plan.Resolve(base, plan.Env{JobIndex: o.JobIndex})
	if err != nil {
		return err
	}
	if o.Estimate {
		return PrintEstimate(ctx, stdout, stderr, p, estimate.Options{Pilot: o.EstimatePilot}, o.JSON)
	}
	stop, err := startProfiles(o.CPUProfile, o.MemProfile)
	if err != nil {
		return err
	}
	sum, err := harness.RunPlan(ctx, p, stderr)
	if perr := stop(); perr != nil {
		fmt.Fprintf(stderr, "profile: %v\n", perr)
	}
	// A run that failed prints no results table, only where its
	// artifacts (and summary.md, marked as such) are.
	if sum == nil {
		return err // stopped before the run folder was written
	}
	dir := p.Dir
	if err != nil {
		fmt.Fprintf(stderr, "partial artifacts: %s (no results table: the run did not finish)\n", dir)
		if failed := (*runlog.QuestionsFailedError)(nil); o.JSON && errors.As(err, &failed) {
			if perr := cliflag.PrintFailed(stdout, failed); perr != nil {
				return perr
			}
		}
		return err
	}
	if o.JSON {
		return cliflag.PrintJSON(stdout, struct {
			*runlog.Summary
			Artifacts string `json:"artifacts"`
		}{sum, dir})
	}
	summary.Print(stdout, sum) // its notes hold the dollars line
	if note := p.ScoringNote(); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintf(stdout, "artifacts: %s\n", dir)
	return nil
}

// runReplay reproduces a bundle. Flags that would change the outputs are
// refused: the bundle's manifest is the run's config.
func runReplay(ctx context.Context, o *Options, changed func(string) bool, stdout, stderr io.Writer) error {
	for _, name := range []string{"config", "system", "k", "dataset", "conversations", "limit", "turn-step", "llm", "model", "build-model", "answer-model", "decide-model", "judge-model", "judge-spec", "answer-prompt", "judge-prompt", "embedder", "run-id", "no-cache"} {
		if changed(name) {
			return clierr.Bad("--%s cannot go with --replay: the bundle's manifest is the run's config (only --data, --max-data-size, --results, --cache-dir, --concurrency and --quiet apply; --opt for an outside system's cmd or url; --base-url with --replay-fallback)", name)
		}
	}
	if changed("base-url") && !o.ReplayFallback {
		return clierr.Bad("--base-url goes with --replay only with --replay-fallback: a replay sends no call unless told to")
	}
	b, err := bundle.OpenLimited(o.Replay, cmp.Or(o.ReplayLimits, bundle.DefaultLimits))
	if err != nil {
		return clierr.AsBad(err)
	}
	opts, err := systems.Parse(o.Opts)
	if err != nil {
		return clierr.AsBad(err)
	}
	base := cmp.Or(o.BaseURL, o.EnvBaseURL)
	if o.ReplayFallback {
		fmt.Fprintf(stderr, "replay: calls the bundle lacks go to %s (key from $OPENAI_API_KEY), the backend configured here; never to a server the bundle names\n", llm.RedactText(cmp.Or(base, llm.DefaultBaseURL)))
	}
	cfg := o.Config
	sum, err := replay.Run(ctx, b, replay.Options{
		Data: cfg.Data, ResultsDir: cfg.ResultsDir, CacheDir: cfg.CacheDir, Concurrency: cfg.Concurrency,
		Quiet: o.Quiet, Host: o.Host, Fallback: o.ReplayFallback, BaseURL: base, Opts: opts, MaxDataSize: cfg.MaxDataSize, PricesFile: o.Prices,
	}, stderr)
	if err != nil {
		return err
	}
	if o.JSON {
		return cliflag.PrintJSON(stdout, sum)
	}
	summary.Print(stdout, sum)
	if sum.Dollars == nil {
		// A folder replayed before summaries held dollars.
		priceTable, err := plan.Prices(o.Prices)
		if err != nil {
			return clierr.AsBad(err)
		}
		// The dollars line under the summary; a run whose costs cannot be
		// read still printed its scores, so that is only said.
		bill, err := prices.ForRun(filepath.Join(cfg.WithDefaults().ResultsDir, sum.RunID), priceTable)
		if err != nil {
			fmt.Fprintf(stderr, "dollars: %v\n", err)
			return nil
		}
		fmt.Fprintln(stdout, bill.Line())
	}
	return nil
}

// startProfiles starts the CPU profile and returns a function that stops it
// and writes the heap profile; files are created first, so a bad path is
// bad input before any work.
func startProfiles(cpu, mem string) (func() error, error) {
	var cf, mf *os.File
	var err error
	if cpu != "" {
		if cf, err = os.Create(cpu); err != nil {
			return nil, clierr.Bad("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(cf); err != nil {
			cf.Close()
			return nil, clierr.Bad("--cpuprofile: %v", err)
		}
	}
	if mem != "" {
		if mf, err = os.Create(mem); err != nil {
			if cf != nil {
				pprof.StopCPUProfile()
				cf.Close()
			}
			return nil, clierr.Bad("--memprofile: %v", err)
		}
	}
	return func() error {
		var errs []error
		if cf != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cf.Close())
		}
		if mf != nil {
			runtime.GC() // the heap profile shows live data as of the last GC
			errs = append(errs, pprof.WriteHeapProfile(mf), mf.Close())
		}
		return cmp.Or(errs...) // the first error
	}, nil
}
