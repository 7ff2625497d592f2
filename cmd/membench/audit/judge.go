package audit

import (
	"cmp"
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench"
	"github.com/membench/membench/audit"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/llm"
)

// JudgeOptions are `audit judge`'s inputs.
type JudgeOptions struct {
	Wrong       string   // --wrong: the known-wrong answers
	Judges      []string // --judge-spec: judges to run now
	Recorded    bool     // read the verdicts the file carries
	Data        string   // --data: the LoCoMo file the ids point into
	JudgeModel  string   // the llm judge's model spec
	CacheDir    string
	NoCache     bool
	Concurrency int
	JSON        bool
	Host        membench.Host
	Out         io.Writer
}

func judgeCmd() *cobra.Command {
	o := &JudgeOptions{}
	c := &cobra.Command{
		Use:   "judge",
		Short: "False-accept rate of a judge on answers known to be wrong",
		Long: `Run each --judge-spec over answers known to be wrong and report the share it
accepts as CORRECT (its false-accept rate), per LoCoMo category and overall,
with a Wilson 95% interval. --wrong takes a scored file (the locomo-audit
ap-baseline shape: {"detailed_results": {CONV: [{question_id, question,
golden_answer, generated_answer, category, llm_judgments}]}}) or JSONL lines
{"question_id": ..., "answer": ...}. Questions, gold answers and categories
the file lacks come from the LoCoMo file --data (ids
locomo_<conversation index>_qa<question index>, both from 0 in file order, or
membench's own conv-26:0); with --data every answer is checked against it.
--recorded reads the verdicts the file carries instead of (or besides)
judging now; a judge spec with repeats=N judges each answer N times, each
repeat one judgment run (the rate is the runs' mean). Offline judges (lexical, f1) measure membench's heuristics, not
a model; the llm judge needs a real model (--judge-model).`,
		Example: `  membench audit judge --wrong ../shared/datasets/locomo-audit/ap-baseline/v1_specific_wrong.scored.json --recorded
  membench audit judge --wrong ../shared/datasets/locomo-audit/ap-baseline/v1_specific_wrong.scored.json --judge-spec lexical --judge-spec f1
  membench audit judge --wrong ../shared/datasets/locomo-audit/ap-baseline/v1_specific_wrong.scored.json --judge-model openai:gpt-4o-mini --judge-spec llm --judge-spec lenient=openai:gpt-4o-mini,prompt=lenient
  membench audit judge --wrong wrong.jsonl --data locomo10.json --judge-spec f1,threshold=0.3 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Host, o.Out = clienv.Host(cmd.Context()), cmd.OutOrStdout()
			return RunJudge(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Wrong, "wrong", "", "file of known-wrong answers: a scored file (ap-baseline shape) or JSONL of question_id, answer")
	f.StringArrayVar(&o.Judges, "judge-spec", nil, "judge to measure (repeatable): "+cliflag.JudgeSpecSyntax)
	_ = c.RegisterFlagCompletionFunc("judge-spec", cliflag.CompleteJudgeKinds)
	f.BoolVar(&o.Recorded, "recorded", false, "report the verdicts the file carries (llm_judgments), one judgment run each")
	f.StringVar(&o.Data, "data", "", "LoCoMo file the question ids point into (default: the fetched LoCoMo, when the file lacks questions)")
	f.StringVar(&o.JudgeModel, "judge-model", "", "model spec of the llm judge, e.g. openai:gpt-4o-mini")
	f.StringVar(&o.CacheDir, "cache-dir", "", "LLM cache directory (default $MEMBENCH_HOME/cache or ~/.cache/membench/cache)")
	f.BoolVar(&o.NoCache, "no-cache", false, "do not read or write the LLM cache")
	cliflag.Concurrency(c, &o.Concurrency, "parallel judge calls")
	cliflag.JSON(c, &o.JSON)
	return c
}

// RunJudge measures the judges' false-accept rates and prints them.
func RunJudge(ctx context.Context, o *JudgeOptions) error {
	switch {
	case o.Wrong == "":
		return clierr.Bad("audit judge needs --wrong FILE: answers known to be wrong (e.g. the locomo-audit ap-baseline/v1_specific_wrong.scored.json)")
	case !o.Recorded && len(o.Judges) == 0:
		return clierr.Bad("audit judge needs --judge-spec SPEC (e.g. lexical, f1, llm) or --recorded to read the verdicts the file carries")
	case o.Concurrency < 1:
		return clierr.Bad("--concurrency %d: must be at least 1", o.Concurrency)
	}
	w, err := audit.ReadWrong(o.Wrong)
	if err != nil {
		return clierr.AsBad(err)
	}
	if o.Data != "" || w.NeedsData() {
		ds, err := datasets.Load(locomo.Name, o.Data, datasets.LoadOptions{Home: o.Host.Home})
		if err != nil {
			return clierr.AsBad(err)
		}
		if err := w.Resolve(ds); err != nil {
			return clierr.AsBad(err)
		}
	}
	res := &audit.JudgeAudit{File: o.Wrong, Format: w.Format, Answers: len(w.Answers), Published: w.Accuracy}
	if o.Recorded {
		jr, err := audit.Recorded(w)
		if err != nil {
			return clierr.AsBad(err)
		}
		res.Judges = append(res.Judges, jr)
	}
	if len(o.Judges) > 0 {
		b := &judging.Builder{DefaultSpec: o.JudgeModel, CacheDir: cmp.Or(o.CacheDir, o.Host.CacheDir()), NoCache: o.NoCache}
		defer b.Close()
		meter := llm.NewMeter()
		js, err := b.Judges(o.Judges, meter)
		if err != nil {
			if o.JudgeModel == "" && strings.Contains(err.Error(), "no judge model configured") {
				return clierr.Bad("%v; for audit judge, give the llm judge's model with --judge-model BACKEND:MODEL (e.g. openai:gpt-4o-mini)", err)
			}
			return clierr.AsBad(err)
		}
		for _, j := range js {
			jr, err := audit.Judged(ctx, w, j, o.Concurrency)
			if err != nil {
				return err
			}
			res.Judges = append(res.Judges, jr)
		}
		res.Usage = meter.Snapshot()
	}
	return cliflag.PrintResult(o.Out, o.JSON, res, res.Table())
}
