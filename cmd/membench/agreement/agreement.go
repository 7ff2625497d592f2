// Package agreement is `membench agreement`: how far judges agree on the
// same questions (pairwise Cohen's kappa and Pearson r, Fleiss' kappa), in
// the shape of the StructMem paper's Table 5, plus judge–human agreement
// per system when human labels are present.
package agreement

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets/answerkey"
)

// Options are the command's inputs.
type Options struct {
	Runs, Judges     []string // --run: run directories, judgments.jsonl files, globs
	Exclude          []string
	Raters           string
	AllowMixed, JSON bool
	// AnswerKey measures agreement on the verdicts given under this LoCoMo
	// answer key ("": each run's own), Home finding the audited key.
	AnswerKey, Home string
	Out, Err        io.Writer
}

// NewCmd returns the agreement command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "agreement",
		Short: "Judge agreement: pairwise Cohen's kappa and Pearson r, Fleiss' kappa, judge-human agreement",
		Long: `Measure agreement between judges, in the shape of the StructMem paper's
Table 5.

  --raters judge (default)  raters are judges; items are (system, question)
                            pairs pooled over every run given, e.g. the runs
                            of several systems each scored by gpt-4o-mini,
                            Qwen and DeepSeek judges
  --raters run              raters are (run, system, judge); items are
                            question ids, e.g. one peer judge on two
                            versions of a system
  --raters repeat           raters are the repeats of a judge that judged
                            each answer several times (repeats=N, or an
                            imported peer's judgment runs): Fleiss κ of a
                            judge with itself

Only items judged by every rater count; the others are dropped and
counted (stderr and "dropped" in the JSON). Invalid verdicts (the judge
model's reply held none) are left out and counted per judge. Cohen's kappa
and Fleiss' kappa use the correct/incorrect verdicts; Pearson r uses the
scores (identical to the verdicts for binary judges). When a judge named
"human" exists (membench grade writes it), each judge's agreement with it
is reported per system and over all systems, and "human" is left out of
the pairwise table. Raters are the verdict judges; metric judges (f1,
bleu1, em) rate only when named with --judge, since lexical metrics agree
with each other by construction. Questions whose right answer is to decline are
excluded by default (--exclude-group none keeps all), matching compare.
With --answer-key KEY, each run's judges rate with their verdicts under
that key: a run's own verdicts when KEY is its key, else those 'membench
judge --answer-key KEY' added (NAME+KEY, rated as NAME).`,
		Example: `  membench agreement --run results/A --judge lexical --judge f1
  membench agreement --run results/A --run results/B/judgments.jsonl --judge lexical --judge f1 --json
  membench agreement --raters run --run results/A --run results/B --json
  membench agreement --run results/A --answer-key published --judge lexical --judge f1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out, o.Err, o.Home = cmd.OutOrStdout(), cmd.ErrOrStderr(), clienv.Host(cmd.Context()).Home
			return Run(o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, "run directory, judgments.jsonl file, glob, or directory of runs (repeatable)")
	f.StringVar(&o.Raters, "raters", analysis.RatersJudge, "judge: raters are judges, items (system, question) pairs; run: raters are run/system/judge, items questions; repeat: raters are a judge's repeats")
	f.StringArrayVar(&o.Judges, "judge", nil, "only these judges, by name (repeatable; default every verdict judge: metric judges such as f1 and bleu1 are raters only when named)")
	_ = c.RegisterFlagCompletionFunc("judge", cliflag.CompleteJudgeNames)
	cliflag.ExcludeGroups(c, &o.Exclude, []string{analysis.Abstaining}, "drop questions of these groups, as the summaries name them (abstention = every question whose right answer is to decline; none = keep all)")
	f.StringVar(&o.AnswerKey, "answer-key", "", cliflag.AnswerKeyUsage+"; every run's judges rate with their verdicts under it (default: each run's own)")
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "measure agreement across runs whose manifests differ (dataset, embedder, answer model, backends), with a warning")
	cliflag.JSON(c, &o.JSON)
	return c
}

// Run loads the sources, measures agreement and prints it.
func Run(o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("agreement needs --run DIR or --run judgments.jsonl (repeatable)")
	}
	paths, err := cliflag.Sources(o.Runs)
	if err != nil {
		return err
	}
	label := ""
	if o.AnswerKey != "" {
		k, err := answerkey.Open(o.AnswerKey, o.Home)
		if err != nil {
			return clierr.AsBad(err)
		}
		label = k.Label()
	}
	var srcs []*analysis.Source
	for _, p := range paths {
		s, err := analysis.LoadSource(p)
		if err != nil {
			return clierr.AsBad(err)
		}
		if label != "" {
			if err := s.UnderKey(label); err != nil {
				return clierr.AsBad(err)
			}
		}
		srcs = append(srcs, s)
	}
	res, err := analysis.Agreement(srcs, analysis.AgreementOptions{Judges: o.Judges, Exclude: o.Exclude, AllowMixed: o.AllowMixed, Raters: o.Raters})
	if err != nil {
		return clierr.AsBad(err)
	}
	if res.Dropped > 0 {
		fmt.Fprintf(o.Err, "agreement: %d %s not judged by every rater were dropped; %d remain\n", res.Dropped, res.Items, res.N)
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, res)
	}
	Print(o.Out, res)
	return nil
}

// Print writes Table 5's shape: one column per pair, rows Cohen κ and
// Pearson r, then Fleiss' κ.
func Print(w io.Writer, r analysis.AgreementResult) {
	if len(r.Mixed) > 0 {
		fmt.Fprintln(w, analysis.MixedWarning(r.Mixed))
	}
	num := func(p *float64) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.4f", *p)
	}
	fmt.Fprintf(w, "raters: %v (%s); systems: %v; %s judged by all: %d (dropped %d)\n", r.Judges, r.Raters, r.Systems, r.Items, r.N, r.Dropped)
	if len(r.MetricsLeftOut) > 0 {
		fmt.Fprintf(w, "note: metric judges %v are not raters by default (they give scores, not verdicts); name them with --judge to add them\n", r.MetricsLeftOut)
	}
	for _, j := range slices.Sorted(maps.Keys(r.Invalid)) {
		fmt.Fprintf(w, "note: judge %s gave no verdict on %d items (invalid replies); they are left out\n", j, r.Invalid[j])
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "pair\tCohen κ\tPearson r\tp\n")
	for _, p := range r.Pairs {
		pv := "n/a"
		if p.PValue != nil {
			pv = fmt.Sprintf("%.3g", *p.PValue)
			if *p.PValue == 0 {
				pv = "< 1e-300" // below float64's range, not exactly zero
			}
		}
		fmt.Fprintf(tw, "%s – %s\t%s\t%s\t%s\n", p.A, p.B, num(p.CohenKappa), num(p.PearsonR), pv)
	}
	tw.Flush()
	if len(r.Pairs) > 0 {
		what := "judges"
		if r.Raters == analysis.RatersRepeat {
			what = "repeats"
		}
		fmt.Fprintf(w, "Fleiss κ over %d %s: %s\n", len(r.Judges), what, num(r.FleissKappa))
	}
	if r.Synthetic != "" {
		fmt.Fprintln(w, r.Synthetic)
	}
	if r.Offline != "" {
		fmt.Fprintln(w, r.Offline)
	}
	if len(r.Human) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "judge-human agreement per system:")
		fmt.Fprint(tw, "system\tjudge\tn\tagreement with human %\tCohen κ\n")
		for _, h := range r.Human {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\n", h.System, h.Judge, h.N, h.Agreement, num(h.Kappa))
		}
		tw.Flush()
	}
}
