// Package judgecmd is `membench judge`: add judges to a finished run.
package judgecmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/membench/membench/bundle"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/replay"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// Options are the judge command's inputs.
type Options struct {
	Run                 string   // finished run directory
	Runs                []string // --run values; expanded into Run (exactly one run)
	Judges              []string // judge specs to add
	Rejudge             rejudge.Options
	LLM, Model, BaseURL string // --llm/--model/--base-url: the llm judge's model
	// Replay is a bundle (membench bundle) whose replies serve the judges'
	// model calls; ReplayFallback sends calls it lacks to the backend.
	Replay         string
	ReplayFallback bool
	JSON           bool
	Out            io.Writer
}

// NewCmd returns the judge command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "judge",
		Short: "Add judges to a finished run (resumable, cached) and rewrite its summary",
		Long: `Score every answer in RUN/answers.jsonl with each --judge-spec (the same
syntax as run's and score's) and append the
verdicts to RUN/judgments.jsonl. Questions come from answers.jsonl itself
(question, gold, category, type), so the dataset is not reloaded. Pairs
(question, judge) already judged are skipped, so rerunning is free and an
interrupted command resumes; model judges also go through the LLM cache.
Judge calls are metered into costs.jsonl; the summary is recomputed, its
dollars priced from every cost record of the run, as report --table dollars
and the view price them.

The "llm" judge uses the run's judge model unless --judge-model or --llm
says otherwise; a judge whose name is already in the run is skipped pair by
pair, so give a new model judge its own name (e.g. qwen=openai:qwen2.5-32b-instruct).

A model reply still unusable after the bounded retries (no choices, a body
that is not JSON) does not stop the pass: the pair goes to RUN/failures.jsonl
with its judge and reason, the other pairs are judged, and the command
exits 1 listing the failed questions (no table). Rerun it to judge only those.`,
		Example: `  membench judge --run results/A --judge-spec em
  membench judge --run results/A --judge-spec gpt4o=openai:gpt-4o-mini
  membench judge --run results/A --judge-spec name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1
  membench judge --run published --replay run.tar.gz --judge-spec gpt4o=openai:gpt-4o --replay-fallback`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Rejudge.Home = clienv.Host(cmd.Context()).Home
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, "finished run directory (a glob or directory must name exactly one run)")
	f.StringArrayVar(&o.Judges, "judge-spec", nil, "judge to add (repeatable): "+cliflag.JudgeSpecSyntax)
	_ = c.RegisterFlagCompletionFunc("judge-spec", cliflag.CompleteJudgeKinds)
	f.StringVar(&o.Rejudge.JudgeModel, "judge-model", "", "model spec for the llm judge (default: the run's judge model)")
	f.StringVar(&o.LLM, "llm", "", "backend for the llm judge: offline or openai")
	f.StringVar(&o.Model, "model", "", "model name for --llm openai")
	f.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&o.Rejudge.AnswerKey, "answer-key", "", cliflag.AnswerKeyUsage+"; judges the run's answers again against it (no answer calls), logged as JUDGE+KEY (e.g. lexical+audited) beside the run's own verdicts (default: the run's key)")
	f.StringVar(&o.Rejudge.JudgePrompt, "judge-prompt", "", "file replacing the llm judge prompt (default: the run's)")
	f.StringVar(&o.Rejudge.Prices, "prices", "", "YAML or JSON file of model prices per million tokens changing or adding to the default table, for the summary's dollars line (default: the prices file the run's summary was priced with, if any)")
	f.StringVar(&o.Rejudge.CacheDir, "cache-dir", "", "LLM cache directory (default $MEMBENCH_HOME/cache)")
	f.BoolVar(&o.Rejudge.NoCache, "no-cache", false, "do not read or write the LLM cache")
	cliflag.Concurrency(c, &o.Rejudge.Concurrency, "parallel judge calls")
	f.StringVar(&o.Replay, "replay", "", "serve model judge calls from this bundle (membench bundle); a --run directory with no run gets the bundle's run unpacked")
	f.BoolVar(&o.ReplayFallback, "replay-fallback", false, "with --replay: send calls the bundle lacks to the judge's backend (needs its key) instead of failing; the output counts them")
	f.BoolVar(&o.JSON, "json", false, "print JSON on stdout (counts and the new summary)")
	return c
}

// Run adds the judges to the run and prints what was added and the new
// summary.
func Run(ctx context.Context, o *Options) error {
	if o.Run == "" && len(o.Runs) == 0 {
		return clierr.Bad("judge needs --run DIR (a finished run directory)")
	}
	if len(o.Judges) == 0 {
		return clierr.Bad("judge needs at least one --judge-spec SPEC, e.g. --judge-spec em or --judge-spec gpt4o=openai:gpt-4o-mini")
	}
	m, err := llm.FlagSpec(o.LLM, o.Model, o.BaseURL)
	if err != nil {
		return clierr.AsBad(err)
	}
	if len(o.Runs) == 1 && o.Replay != "" && !runlog.IsRunDir(o.Runs[0]) {
		o.Run, o.Runs = o.Runs[0], nil // a new directory the bundle's run is unpacked into
	}
	if len(o.Runs) > 0 {
		dirs, err := runlog.FindRuns(o.Runs)
		if err != nil {
			return clierr.AsBad(err)
		}
		if len(dirs) != 1 {
			return clierr.Bad("judge adds judges to one run; --run %v gave %d (%v): run it once per run", o.Runs, len(dirs), dirs)
		}
		o.Run = dirs[0]
	}
	ro := o.Rejudge
	ro.JudgeModel = cmp.Or(ro.JudgeModel, m)
	var rep *replayInfo
	if o.Replay != "" {
		b, err := bundle.Open(o.Replay)
		if err != nil {
			return clierr.AsBad(err)
		}
		if !runlog.IsRunDir(o.Run) {
			if err := replay.Unpack(b, o.Run); err != nil {
				return clierr.AsBad(fmt.Errorf("--run %s: %w", o.Run, err))
			}
			if !o.JSON {
				fmt.Fprintf(o.Out, "unpacked run %s from %s into %s\n", b.Manifest.RunID, o.Replay, o.Run)
			}
		} else if m, err := runlog.LoadManifest(o.Run); err != nil {
			return clierr.AsBad(err)
		} else if m.RunID != b.Manifest.RunID {
			return clierr.Bad("--replay %s holds run %s, but --run %s is run %s; give the bundle of that run, or a new --run directory to unpack the bundle into", o.Replay, b.Manifest.RunID, o.Run, m.RunID)
		}
		ro.Replay, ro.ReplayFallback = llm.NewPlayer(b.Replies), o.ReplayFallback
		rep = &replayInfo{Bundle: o.Replay, Replies: len(b.Replies)}
	} else if o.ReplayFallback {
		return clierr.Bad("--replay-fallback goes with --replay FILE")
	}
	counts, sum, err := rejudge.Run(ctx, o.Run, o.Judges, ro)
	if rep != nil {
		rep.Served, rep.Fresh = ro.Replay.Served(), ro.Replay.Fresh()
	}
	var failed *runlog.QuestionsFailedError
	if errors.As(err, &failed) {
		// Not bad input: the verdicts obtained are saved, the summary is
		// rewritten, and the list of pairs to retry is the output (no
		// table, exit 1); a rerun judges only those.
		if o.JSON {
			if perr := cliflag.PrintFailed(o.Out, failed); perr != nil {
				return perr
			}
		}
		return err
	}
	if err != nil {
		return clierr.AsBad(err)
	}
	if o.JSON {
		res := map[string]any{"judges": counts, "summary": sum}
		if rep != nil {
			res["replay"] = rep
		}
		return cliflag.PrintJSON(o.Out, res)
	}
	if rep != nil {
		fmt.Fprintf(o.Out, "replay: %d judge calls served from %s; %d were not in the bundle and went to the backend\n", rep.Served, rep.Bundle, rep.Fresh)
	}
	t := &report.Table{Title: "judgments added to " + o.Run, Header: []string{"judge", "added", "already there"}}
	for _, c := range counts {
		t.Add(c.Judge, c.Added, c.Skipped)
	}
	if err := t.Terminal(o.Out); err != nil {
		return err
	}
	fmt.Fprintln(o.Out)
	return summary.Print(o.Out, sum)
}

// replayInfo is what a judge --replay did.
type replayInfo struct {
	Bundle  string `json:"bundle"`
	Replies int    `json:"replies"`      // replies the bundle holds
	Served  int64  `json:"served_calls"` // judge calls answered from it
	Fresh   int64  `json:"fresh_calls"`  // calls it lacked, sent to the backend
}
