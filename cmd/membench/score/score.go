// Package score is `membench score`: judge external predictions.
package score

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
	"github.com/membench/membench/summary"
)

// Options are the score command's inputs.
type Options struct {
	Score               scoring.Config // Host is set from the environment by NewCmd
	LLM, Model, BaseURL string         // --llm/--model/--base-url for llm judges
	JSON                bool           // print the summary as JSON
	Out                 io.Writer
}

// NewCmd returns the score command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "score",
		Short: "Score external predictions with the lexical metrics and judges",
		Long: `Score a predictions file (JSON lines {"question_id": "conv-26:0", "prediction": "..."})
against a dataset. DIR receives judgments.jsonl (one line per question and
judge, score at full precision), answers.jsonl, manifest.json and the
summary, so compare, agreement and report read it like a run.

Defaults are run's: dataset sample, and the judges lexical, f1, bleu1
(llm, f1, bleu1 with a real judge model). New judges are given with
--judge-spec SPEC, as in run and judge.`,
		Example: `  membench score --predictions results/A/answers.jsonl --out /tmp/scored-a
  membench score --dataset locomo --data ../shared/datasets/locomo10.json --predictions preds.jsonl --out results/mine
  membench score --dataset locomo --data ../shared/datasets/locomo10.json --predictions preds.jsonl --out results/mine --judge-spec f1 --judge-spec llm --llm openai --model gpt-4o-mini
  membench score --dataset locomo --data ../shared/datasets/locomo10.json --predictions preds.jsonl --out results/mine-audited --answer-key audited`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Score.Host = clienv.Host(cmd.Context())
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	sc := &o.Score
	f := c.Flags()
	f.StringVar(&sc.Dataset, "dataset", datasets.Default(), "dataset: "+strings.Join(datasets.Names(), ", ")+" (as membench run)")
	_ = c.RegisterFlagCompletionFunc("dataset", cliflag.CompleteDatasets)
	f.StringVar(&sc.Data, "data", "", "dataset file")
	f.StringVar(&sc.BaseData, "base-data", "", "base conversations of a stitched dataset (as membench run)")
	cliflag.Int(c, &sc.Seed, "seed", 0, 0, math.MaxInt32, "seed of a stitched dataset's choices (as membench run); 0 = its default")
	cliflag.Size(c, &sc.MaxDataSize, "max-data-size", datasets.DefaultMaxBytes, 1<<10, 1<<50, "read at most this much of the dataset file (a larger one is refused), e.g. 8GiB")
	cliflag.AnswerKey(c, &sc.AnswerKey, "published")
	cliflag.ExcludeImageQuestions(c, &sc.ExcludeImageQuestions)
	f.StringVar(&sc.Predictions, "predictions", "", "predictions JSONL file")
	f.StringVar(&sc.Out, "out", "", "output directory")
	f.StringVar(&sc.System, "system", "", "system name recorded in the judgments (default: predictions file name)")
	f.StringArrayVar(&sc.Judges, "judge-spec", nil, "judge to score with (repeatable): "+cliflag.JudgeSpecSyntax+" (default: lexical, f1, bleu1; llm, f1, bleu1 with a real judge model)")
	_ = c.RegisterFlagCompletionFunc("judge-spec", cliflag.CompleteJudgeKinds)
	f.StringVar(&o.LLM, "llm", "", "backend for llm judges: offline or openai")
	f.StringVar(&o.Model, "model", "", "judge model for --llm openai")
	f.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&sc.CacheDir, "cache-dir", "", "LLM cache directory")
	f.BoolVar(&sc.NoCache, "no-cache", false, "do not use the LLM cache")
	f.StringVar(&sc.PricesFile, "prices", "", "YAML or JSON file of model prices per million tokens (input, cached_input, output) changing or adding to the default table, for the summary's dollars line (as membench run)")
	cliflag.JSON(c, &o.JSON)
	return c
}

// Run scores the predictions and prints the summary.
func Run(ctx context.Context, o *Options) error {
	sc := o.Score
	if sc.Predictions == "" || sc.Out == "" {
		return clierr.Bad("score needs --predictions FILE and --out DIR")
	}
	m, err := llm.FlagSpec(o.LLM, o.Model, o.BaseURL)
	if err != nil {
		return clierr.AsBad(err)
	}
	sc.Model = m
	sum, missing, err := scoring.Run(ctx, sc)
	if err != nil {
		return err
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, map[string]any{"summary": sum, "missing": len(missing), "out": sc.Out})
	}
	summary.Print(o.Out, sum)
	if m, err := runlog.LoadManifest(sc.Out); err == nil {
		if note := plan.ScoringNote(m.AnswerKey, m.ImageQuestionsExcluded); note != "" {
			fmt.Fprintln(o.Out, note)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(o.Out, "%d dataset questions have no prediction (e.g. %s); they are not scored\n", len(missing), missing[0])
	}
	fmt.Fprintf(o.Out, "wrote %s\n", sc.Out)
	return nil
}
