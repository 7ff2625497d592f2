// Package score is `membench score`: judge external predictions.
package score

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/cli/clienv"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/llm"
)

// Options are the score command's inputs.
type Options struct {
	Score               harness.ScoreConfig // Host is set from the environment by NewCmd
	LLM, Model, BaseURL string              // --llm/--model/--base-url for llm judges
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
summary, so compare, agreement and report read it like a run.`,
		Example: `  membench score --dataset locomo --data ../shared/datasets/locomo10.json --predictions preds.jsonl --out results/mine
  membench score --dataset locomo --data ../shared/datasets/locomo10.json --predictions preds.jsonl --out results/mine --judge f1 --judge llm --llm openai --model gpt-4o-mini`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Score.Host = clienv.Host()
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	sc := &o.Score
	f := c.Flags()
	f.StringVar(&sc.Dataset, "dataset", "locomo", "dataset: sample, locomo, longmemeval")
	f.StringVar(&sc.Data, "data", "", "dataset file")
	f.StringVar(&sc.Predictions, "predictions", "", "predictions JSONL file")
	f.StringVar(&sc.Out, "out", "", "output directory")
	f.StringVar(&sc.System, "system", "", "system name recorded in the judgments (default: predictions file name)")
	f.StringArrayVar(&sc.Judges, "judge", nil, "judge (repeatable); default f1, bleu1, lexical")
	f.StringVar(&o.LLM, "llm", "", "backend for llm judges: offline or openai")
	f.StringVar(&o.Model, "model", "", "judge model for --llm openai")
	f.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&sc.CacheDir, "cache-dir", "", "LLM cache directory")
	f.BoolVar(&sc.NoCache, "no-cache", false, "do not use the LLM cache")
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
	sum, missing, err := harness.Score(ctx, sc)
	if err != nil {
		return err
	}
	sum.Print(o.Out)
	if len(missing) > 0 {
		fmt.Fprintf(o.Out, "%d dataset questions have no prediction (e.g. %s); they are not scored\n", len(missing), missing[0])
	}
	fmt.Fprintf(o.Out, "wrote %s\n", sc.Out)
	return nil
}
