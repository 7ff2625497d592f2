// Package score is `membench score`: judge external predictions.
package score

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/cli/clienv"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/llm"
)

// NewCmd returns the score command.
func NewCmd() *cobra.Command {
	var sc harness.ScoreConfig
	var backend, model, baseURL string
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
			if sc.Predictions == "" || sc.Out == "" {
				return clierr.Bad("score needs --predictions FILE and --out DIR")
			}
			m, err := llm.FlagSpec(backend, model, baseURL)
			if err != nil {
				return clierr.AsBad(err)
			}
			sc.Model = m
			sc.Host = clienv.Host()
			sum, missing, err := harness.Score(cmd.Context(), sc)
			if err != nil {
				return err
			}
			sum.Print(cmd.OutOrStdout())
			if len(missing) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%d dataset questions have no prediction (e.g. %s); they are not scored\n", len(missing), missing[0])
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", sc.Out)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&sc.Dataset, "dataset", "locomo", "dataset: sample, locomo, longmemeval")
	f.StringVar(&sc.Data, "data", "", "dataset file")
	f.StringVar(&sc.Predictions, "predictions", "", "predictions JSONL file")
	f.StringVar(&sc.Out, "out", "", "output directory")
	f.StringVar(&sc.System, "system", "", "system name recorded in the judgments (default: predictions file name)")
	f.StringArrayVar(&sc.Judges, "judge", nil, "judge (repeatable); default f1, bleu1, lexical")
	f.StringVar(&backend, "llm", "", "backend for llm judges: offline or openai")
	f.StringVar(&model, "model", "", "judge model for --llm openai")
	f.StringVar(&baseURL, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&sc.CacheDir, "cache-dir", "", "LLM cache directory")
	f.BoolVar(&sc.NoCache, "no-cache", false, "do not use the LLM cache")
	return c
}
