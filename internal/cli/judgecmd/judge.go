// Package judgecmd is `membench judge`: add judges to a finished run.
package judgecmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clienv"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/study/grade"
)

// NewCmd returns the judge command.
func NewCmd() *cobra.Command {
	var (
		dir                     string
		specs                   []string
		o                       grade.RejudgeOptions
		llmBackend, model, base string
		asJSON                  bool
	)
	c := &cobra.Command{
		Use:   "judge",
		Short: "Add judges to a finished run (resumable, cached) and rewrite its summary",
		Long: `Score every answer in RUN/answers.jsonl with each --judge and append the
verdicts to RUN/judgments.jsonl. Questions come from answers.jsonl itself
(question, gold, category, type), so the dataset is not reloaded. Pairs
(question, judge) already judged are skipped, so rerunning is free and an
interrupted command resumes; model judges also go through the LLM cache.
Judge calls are metered into costs.jsonl; the summary is recomputed.

The "llm" judge uses the run's judge model unless --judge-model or --llm
says otherwise; a judge whose name is already in the run is skipped pair by
pair, so give a new model judge its own name (e.g. qwen=openai:qwen2.5-32b-instruct).`,
		Example: `  membench judge --run results/sample-turns-cosine-ecb288c6c7 --judge lexical --judge em
  membench judge --run results/RUN --judge gpt4o=openai:gpt-4o-mini
  membench judge --run results/RUN --judge name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return clierr.Bad("judge needs --run DIR (a finished run directory)")
			}
			if len(specs) == 0 {
				return clierr.Bad("judge needs at least one --judge SPEC, e.g. --judge lexical or --judge gpt4o=openai:gpt-4o-mini")
			}
			m, err := llm.FlagSpec(llmBackend, model, base)
			if err != nil {
				return clierr.AsBad(err)
			}
			if m != "" && o.JudgeModel == "" {
				o.JudgeModel = m
			}
			o.Home = clienv.Host().Home
			counts, sum, err := grade.Rejudge(cmd.Context(), dir, specs, o)
			if err != nil {
				return clierr.AsBad(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"judges": counts, "summary": sum})
			}
			t := &report.Table{Title: "judgments added to " + dir, Header: []string{"judge", "added", "already there"}}
			for _, c := range counts {
				t.Add(c.Judge, c.Added, c.Skipped)
			}
			if err := t.Terminal(cmd.OutOrStdout()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return sum.Print(cmd.OutOrStdout())
		},
	}
	f := c.Flags()
	f.StringVar(&dir, "run", "", "finished run directory")
	f.StringArrayVar(&specs, "judge", nil, "judge to add (repeatable): llm, lexical, f1, bleu1, em, NAME=BACKEND:MODEL or name=N,backend=B,model=M,base-url=U,prompt=FILE")
	f.StringVar(&o.JudgeModel, "judge-model", "", "model spec for the llm judge (default: the run's judge model)")
	f.StringVar(&llmBackend, "llm", "", "backend for the llm judge: offline or openai")
	f.StringVar(&model, "model", "", "model name for --llm openai")
	f.StringVar(&base, "base-url", "", "OpenAI-compatible base URL")
	f.StringVar(&o.JudgePrompt, "judge-prompt", "", "file replacing the llm judge prompt (default: the run's)")
	f.StringVar(&o.CacheDir, "cache-dir", "", "LLM cache directory (default $MEMBENCH_HOME/cache)")
	f.BoolVar(&o.NoCache, "no-cache", false, "do not read or write the LLM cache")
	f.IntVar(&o.Concurrency, "concurrency", 4, "parallel judge calls")
	f.BoolVar(&asJSON, "json", false, "print JSON (counts and the new summary)")
	return c
}
