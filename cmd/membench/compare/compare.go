// Package compare is `membench compare`: paired tests of two systems (or
// two judges) on the questions both were scored on. The computation lives
// in analysis (Pair, Compare); this package parses flags and prints.
package compare

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
)

// Options are the command's inputs.
type Options struct {
	analysis.CompareOptions
	// Runs are the --run values: two sources, A then B (run directories,
	// judgments.jsonl files, or globs that expand to two runs).
	Runs      []string
	JudgeBoth string
	// AnswerKey compares both runs under this LoCoMo answer key: each
	// side's judge is read from its JUDGE+KEY verdicts unless the key is
	// the run's own.
	AnswerKey string
	// ExcludeGiven: the user gave --exclude-group;
	// otherwise Exclude is the default, and the note about it says so.
	ExcludeGiven bool
	Home         string
	JSON         bool
	Out, Err     io.Writer
}

// NewCmd returns the compare command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "compare",
		Short: "Paired test of two runs (McNemar or non-inferiority) on their shared questions",
		Long: `Join two judgment sets by question id and test them. The first --run is A,
the second B; each is a run directory or a judgments.jsonl file (a glob or
a directory holding runs works when it expands to exactly two).

  --test mcnemar         exact McNemar on the discordant pairs (statistic =
                         min(only_a, only_b)); --chi2 for chi-square with
                         continuity correction instead
  --test noninferiority  paired t test of A against B on per-question scores
                         in points (d = A - B); A is non-inferior when the
                         one-sided (1-alpha) lower bound exceeds --margin

For a metric judge (f1, bleu1, em) McNemar tests the thresholded outcome
(score >= the judge's threshold, 0.5 for f1 by default) and
non-inferiority the mean score; both are printed, and the mean score is
the figure the run's summary shows.

Ids present on one side only are reported on stderr (count and examples)
and counted in the JSON, never silently paired. Questions whose right
answer is to decline (LoCoMo adversarial, LongMemEval _abs) are excluded
by default, as the summary's overall leaves them out (--exclude-group
abstention names them in every dataset); --exclude-group takes the group
names the runs' summaries show, and --exclude-group none keeps every
question.

--judge NAME picks one judge on both sides; by default each side's primary
judge (the run's first verdict judge, as its manifest lists the judges;
A's primary judge on both sides when B has it too).

The runs' manifests must agree on dataset and question set, embedder,
answer model, the judge's spec and offline vs real backends; otherwise
compare refuses (exit 2) unless --allow-mixed, which prints a warning.
An imported peer's answer model, embedder and prompts are part of the
system under test: a difference only a peer brings is accepted, and a
note says so.`,
		Example: `  membench compare --run results/A --run results/B
  membench compare --run results/A --run results/B --judge f1 --test noninferiority --margin -5 --json
  membench compare --run results/A/judgments.jsonl --run results/B/judgments.jsonl --judge lexical --chi2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out, o.Err, o.Home = cmd.OutOrStdout(), cmd.ErrOrStderr(), clienv.Host(cmd.Context()).Home
			o.ExcludeGiven = cmd.Flags().Changed("exclude-group")
			return Run(o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, "run directory or judgments.jsonl: the first is A, the second B")
	cliflag.JudgeName(c, &o.JudgeBoth, "judge name on both sides (default: each run's primary judge)")
	f.StringVar(&o.JudgeA, "judge-a", "", "judge name for A (overrides --judge)")
	f.StringVar(&o.JudgeB, "judge-b", "", "judge name for B (overrides --judge)")
	f.StringVar(&o.AnswerKey, "answer-key", "", cliflag.AnswerKeyUsage+"; both runs are compared under it (default: each run's own)")
	f.StringVar(&o.Test, "test", "mcnemar", "mcnemar or noninferiority")
	f.BoolVar(&o.ChiSquare, "chi2", false, "mcnemar: chi-square with continuity correction instead of the exact test")
	cliflag.Float64(c, &o.Margin, "margin", stats.DefaultMargin, -100, 100, "non-inferiority margin in points: the tolerated loss of A against B (-5 and 5 both mean 5 points worse)")
	cliflag.Float64(c, &o.Alpha, "alpha", 0.05, 1e-6, 0.5, "level of the tests (one-sided for non-inferiority)")
	cliflag.ExcludeGroups(c, &o.Exclude, []string{analysis.Abstaining}, "drop questions of these groups, as the summaries name them (abstention = every question whose right answer is to decline; none = keep all)")
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "compare runs whose manifests differ (dataset, embedder, answer model, judge, backends), with a warning")
	cliflag.InvalidAs(c, &o.InvalidAsWrong)
	cliflag.JSON(c, &o.JSON)
	return c
}

// Run checks the options, runs the test and prints it.
func Run(o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("compare needs --run A --run B (run directories or judgments.jsonl files)")
	}
	srcs, err := cliflag.Sources(o.Runs)
	if err != nil {
		return err
	}
	if len(srcs) != 2 {
		return clierr.Bad("compare needs exactly two runs (--run A --run B); %v gave %d: %v", o.Runs, len(srcs), srcs)
	}
	o.A, o.B = srcs[0], srcs[1]
	o.JudgeA, o.JudgeB = cmp.Or(o.JudgeA, o.JudgeBoth), cmp.Or(o.JudgeB, o.JudgeBoth)
	if o.Test != "mcnemar" && o.Test != "noninferiority" {
		return clierr.Bad("--test %q: use mcnemar or noninferiority", o.Test)
	}
	if o.Margin > 0 {
		// A margin is a tolerated loss: "--margin 5" means A may be at
		// most 5 points worse than B, as the papers write it.
		fmt.Fprintf(o.Err, "note: --margin %g read as %g points (A may be at most %g points worse than B)\n", o.Margin, -o.Margin, o.Margin)
		o.Margin = -o.Margin
	}
	if o.AnswerKey != "" {
		if err := underKey(o); err != nil {
			return err
		}
	}
	j, err := analysis.Pair(o.CompareOptions)
	if err != nil {
		return clierr.AsBad(err)
	}
	warn(o.Err, o.CompareOptions, o.ExcludeGiven, j)
	r, err := analysis.Compare(j, o.CompareOptions)
	if err != nil {
		return err
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, r)
	}
	Print(o.Out, o.CompareOptions, j, r)
	return nil
}

func warn(w io.Writer, o analysis.CompareOptions, excludeGiven bool, j *analysis.Join) {
	if len(j.OnlyInA) > 0 {
		fmt.Fprintf(w, "compare: %d question ids judged in A (%s) are missing from B: %s\n", len(j.OnlyInA), o.A, analysis.Examples(j.OnlyInA))
	}
	if len(j.OnlyInB) > 0 {
		fmt.Fprintf(w, "compare: %d question ids judged in B (%s) are missing from A: %s\n", len(j.OnlyInB), o.B, analysis.Examples(j.OnlyInB))
	}
	for _, side := range []struct {
		name, run, judge string
		ids              []string
	}{{"A", o.A, j.JudgeA, j.InvalidA}, {"B", o.B, j.JudgeB, j.InvalidB}} {
		if len(side.ids) > 0 && !j.InvalidAsWrong {
			fmt.Fprintf(w, "compare: %s\n", InvalidNote(side.name, side.run, side.judge, side.ids))
		}
	}
	switch {
	case j.Excluded > 0 && excludeGiven:
		fmt.Fprintf(w, "compare: %d shared questions excluded by --exclude-group %s\n", j.Excluded, strings.Join(o.Exclude, ","))
	case j.Excluded > 0:
		// The default (analysis.Abstaining), which the user never typed.
		fmt.Fprintf(w, "compare: %d shared questions whose right answer is to decline are left out by default, as the summary's overall leaves them out; --exclude-group none keeps them\n", j.Excluded)
	}
	if j.Unknown > 0 && len(o.Exclude) > 0 {
		fmt.Fprintf(w, "compare: %d shared questions have no group (no answers.jsonl); they were kept\n", j.Unknown)
	}
}

// InvalidNote says how many questions one side's judge gave no verdict on.
func InvalidNote(side, run, judge string, ids []string) string {
	return fmt.Sprintf("%d questions of %s (%s) have an invalid verdict from judge %s (its reply held none; e.g. %s); they are left out of the pairing, as the summary leaves them out of accuracy; rerun the judge to re-ask them",
		len(ids), side, run, judge, analysis.Examples(ids))
}

// Print writes the human-readable table.
func Print(w io.Writer, o analysis.CompareOptions, j *analysis.Join, r analysis.CompareResult) {
	if len(r.Mixed) > 0 {
		fmt.Fprintln(w, analysis.MixedWarning(r.Mixed))
	}
	num := func(p *float64, f string) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf(f, *p)
	}
	metric := r.Measure != "verdict"
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, side := range []struct {
		name, run, judge string
		mean, acc        float64
	}{{"A", o.A, j.JudgeA, r.MeanA, r.AccuracyA}, {"B", o.B, j.JudgeB, r.MeanB, r.AccuracyB}} {
		switch {
		case metric:
			fmt.Fprintf(tw, "%s\t%s (judge %s)\tmean score %.2f\tshare with score >= %s: %.2f\n", side.name, side.run, side.judge, side.mean, num(r.Threshold, "%g"), side.acc)
		case r.PartialA+r.PartialB > 0:
			fmt.Fprintf(tw, "%s\t%s (judge %s)\tscore %.2f (PARTIAL = 0.5)\tshare CORRECT %.2f\n", side.name, side.run, side.judge, side.mean, side.acc)
		default:
			fmt.Fprintf(tw, "%s\t%s (judge %s)\taccuracy %.2f\n", side.name, side.run, side.judge, side.acc)
		}
	}
	fmt.Fprintf(tw, "n\t%d\tinvalid: %d in A, %d in B\n", r.N, r.InvalidA, r.InvalidB)
	fmt.Fprintf(tw, "\tB correct\tB wrong\n")
	fmt.Fprintf(tw, "A correct\t%d\t%d\n", r.Both, r.OnlyA)
	fmt.Fprintf(tw, "A wrong\t%d\t%d\n", r.OnlyB, r.Neither)
	tw.Flush()
	if metric {
		fmt.Fprintf(w, "measure: %s (McNemar: thresholded outcome, score >= %s; non-inferiority: mean score, as the summary)\n", r.Measure, num(r.Threshold, "%g"))
	}
	switch o.Test {
	case "mcnemar":
		kind := "exact McNemar, statistic = min(only_a, only_b)"
		if o.ChiSquare {
			kind = "McNemar chi-square with continuity correction"
		}
		fmt.Fprintf(w, "%s: statistic %s, p = %s: %s\n", kind, num(r.Statistic, "%.4g"), num(r.PValue, "%.4g"), r.Verdict)
	case "noninferiority":
		fmt.Fprintf(w, "non-inferiority of A vs B: mean diff %s points (%.2f - %.2f), one-sided %.0f%% lower bound %s, margin %.2f, t %s, p = %s: %s\n",
			num(r.MeanDiff, "%+.2f"), r.MeanA, r.MeanB, 100*(1-o.Alpha), num(r.LowerBound, "%+.2f"), o.Margin, num(r.Statistic, "%.3f"), num(r.PValue, "%.4g"), r.Verdict)
	}
	fmt.Fprintf(w, "Cohen's kappa between A's and B's correctness: %s\n", num(r.Kappa, "%.4f"))
	if r.PartialA+r.PartialB > 0 {
		fmt.Fprintf(w, "note: PARTIAL verdicts (%d in A, %d in B) are worth 0.5 in the scores and the non-inferiority test; McNemar, the table above and kappa need binary outcomes and count them as wrong\n", r.PartialA, r.PartialB)
	}
	switch {
	case r.InvalidA+r.InvalidB > 0 && r.InvalidAsWrong:
		fmt.Fprintf(w, "note: invalid verdicts counted as WRONG (--invalid-as wrong, as the papers' scripts count any label but CORRECT): %d in A, %d in B (the judge's reply held no verdict)\n", r.InvalidA, r.InvalidB)
	case r.InvalidA+r.InvalidB > 0:
		fmt.Fprintf(w, "note: invalid verdicts left out: %d in A, %d in B (the judge's reply held no verdict; --invalid-as wrong counts them as WRONG)\n", r.InvalidA, r.InvalidB)
	}
	for _, n := range r.PeerSettings {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// underKey points each side's judge at its verdicts under --answer-key.
func underKey(o *Options) error {
	k, err := answerkey.Open(o.AnswerKey, o.Home)
	if err != nil {
		return clierr.AsBad(err)
	}
	for _, side := range []struct {
		src   string
		judge *string
	}{{o.A, &o.JudgeA}, {o.B, &o.JudgeB}} {
		if !runlog.IsRunDir(side.src) {
			return clierr.Bad("--answer-key needs run directories; %s is not one", side.src)
		}
		r, err := analysis.Load(side.src)
		if err != nil {
			return clierr.AsBad(err)
		}
		name := analysis.ChooseJudge([]*runlog.Run{r}, *side.judge)
		if *side.judge, err = analysis.KeyedJudgeOf(r, name, k.Label()); err != nil {
			return clierr.AsBad(err)
		}
	}
	return nil
}
