// Package compare is `membench compare`: paired tests of two systems (or
// two judges) on the questions both were scored on.
package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/stats"
)

// Result is the JSON output. Accuracies, mean_diff, lower_bound and margin
// are in points (0-100). Values a test leaves undefined are null.
type Result struct {
	N          int      `json:"n"`
	AccuracyA  float64  `json:"accuracy_a"`
	AccuracyB  float64  `json:"accuracy_b"`
	Both       int      `json:"both"`
	OnlyA      int      `json:"only_a"`
	OnlyB      int      `json:"only_b"`
	Neither    int      `json:"neither"`
	Statistic  *float64 `json:"statistic"`
	PValue     *float64 `json:"p_value"`
	Kappa      *float64 `json:"kappa"`
	MeanDiff   *float64 `json:"mean_diff,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	Margin     *float64 `json:"margin,omitempty"`
}

// Options are the command's inputs.
type Options struct {
	A, B            string
	JudgeA, JudgeB  string
	Test            string // "mcnemar" or "noninferiority"
	ChiSquare       bool   // McNemar: chi-square with continuity correction instead of exact
	Margin, Alpha   float64
	ExcludeCategory []int // 0 excludes nothing
}

// Join is the paired data: ids in both, with the ids left out and why.
type Join struct {
	IDs              []string
	A, B             []bool
	ScoreA, ScoreB   []float64 // points
	OnlyInA, OnlyInB []string
	Excluded         int
	Unknown          int // ids with no category, kept
	JudgeA, JudgeB   string
}

// Pair loads both sides and joins them by question id.
func Pair(o Options) (*Join, error) {
	sa, err := Load(o.A)
	if err != nil {
		return nil, err
	}
	sb, err := Load(o.B)
	if err != nil {
		return nil, err
	}
	ja, na, err := sa.ByJudge(o.JudgeA, "--judge-a/--judge")
	if err != nil {
		return nil, err
	}
	jb, nb, err := sb.ByJudge(o.JudgeB, "--judge-b/--judge")
	if err != nil {
		return nil, err
	}
	excl := map[int]bool{}
	for _, c := range o.ExcludeCategory {
		if c != 0 {
			excl[c] = true
		}
	}
	cat := func(id string) (int, bool) {
		if c, ok := sa.Categories[id]; ok {
			return c, true
		}
		c, ok := sb.Categories[id]
		return c, ok
	}
	j := &Join{JudgeA: na, JudgeB: nb}
	skip := func(id string) bool {
		c, ok := cat(id)
		return ok && excl[c]
	}
	for id := range ja {
		if _, ok := jb[id]; !ok && !skip(id) {
			j.OnlyInA = append(j.OnlyInA, id)
		}
	}
	for id := range jb {
		if _, ok := ja[id]; !ok && !skip(id) {
			j.OnlyInB = append(j.OnlyInB, id)
		}
	}
	for id := range ja {
		if _, ok := jb[id]; !ok {
			continue
		}
		if skip(id) {
			j.Excluded++
			continue
		}
		if _, ok := cat(id); !ok {
			j.Unknown++
		}
		j.IDs = append(j.IDs, id)
	}
	sort.Strings(j.IDs)
	for _, id := range j.IDs {
		a, b := ja[id], jb[id]
		j.A, j.B = append(j.A, a.Correct), append(j.B, b.Correct)
		j.ScoreA, j.ScoreB = append(j.ScoreA, 100*a.Score), append(j.ScoreB, 100*b.Score)
	}
	return j, nil
}

// Run computes the test on a join.
func Run(j *Join, o Options) (Result, error) {
	n := len(j.IDs)
	if n == 0 {
		return Result{}, clierr.Bad("%s and %s share no question ids after exclusions; check --a/--b and --exclude-category", o.A, o.B)
	}
	t, err := stats.Paired(j.A, j.B)
	if err != nil {
		return Result{}, err
	}
	r := Result{N: n, Both: t.Both, OnlyA: t.OnlyA, OnlyB: t.OnlyB, Neither: t.Neither,
		AccuracyA: 100 * float64(t.Both+t.OnlyA) / float64(n), AccuracyB: 100 * float64(t.Both+t.OnlyB) / float64(n)}
	if k, err := stats.CohenKappaBinary(j.A, j.B); err == nil {
		r.Kappa = finite(k)
	}
	switch o.Test {
	case "mcnemar":
		if o.ChiSquare {
			st, p, err := stats.McNemarChiSquare(t.OnlyA, t.OnlyB, true)
			if err != nil {
				return r, err
			}
			r.Statistic, r.PValue = finite(st), finite(p)
		} else {
			p, err := stats.McNemarExact(t.OnlyA, t.OnlyB)
			if err != nil {
				return r, err
			}
			// The exact test's statistic is the smaller discordant count.
			st := float64(min(t.OnlyA, t.OnlyB))
			r.Statistic, r.PValue = &st, finite(p)
		}
	case "noninferiority":
		ni, err := stats.NonInferiority(j.ScoreA, j.ScoreB, o.Margin, o.Alpha)
		if err != nil {
			return r, clierr.AsBad(err)
		}
		r.Statistic, r.PValue = finite(ni.T), finite(ni.P)
		r.MeanDiff, r.LowerBound, r.Margin = finite(ni.Mean), finite(ni.Lower), finite(ni.Margin)
	default:
		return r, clierr.Bad("--test %q: use mcnemar or noninferiority", o.Test)
	}
	return r, nil
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// NewCmd returns the compare command.
func NewCmd() *cobra.Command {
	var o Options
	var judgeBoth string
	var asJSON bool
	c := &cobra.Command{
		Use:   "compare",
		Short: "Paired test of two runs (McNemar or non-inferiority) on their shared questions",
		Long: `Join two judgment sets by question id and test them.

  --test mcnemar         exact McNemar on the discordant pairs (statistic =
                         min(only_a, only_b)); --chi2 for chi-square with
                         continuity correction instead
  --test noninferiority  paired t test of A against B on per-question scores
                         in points (d = A - B); A is non-inferior when the
                         one-sided (1-alpha) lower bound exceeds --margin

Ids present on one side only are reported on stderr (count and examples),
never silently paired. Category 5 (LoCoMo adversarial) is excluded by
default because the published LoCoMo scores use categories 1-4; categories
come from answers.jsonl beside the judgments; pass --exclude-category 0 to
keep every question.`,
		Example: `  membench compare --a results/peers/zep --b results/peers/memobase-v0.0.37 --judge peer-llm --test mcnemar --json
  membench compare --a results/run1 --b results/run2 --judge llm --test noninferiority --margin -5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.A == "" || o.B == "" {
				return clierr.Bad("compare needs --a RUN and --b RUN (run directories or judgments.jsonl files)")
			}
			if o.JudgeA == "" {
				o.JudgeA = judgeBoth
			}
			if o.JudgeB == "" {
				o.JudgeB = judgeBoth
			}
			if o.Test != "mcnemar" && o.Test != "noninferiority" {
				return clierr.Bad("--test %q: use mcnemar or noninferiority", o.Test)
			}
			if o.Margin > 0 {
				// A margin is a tolerated loss: "--margin 5" means A may be
				// at most 5 points worse than B, as the papers write it.
				fmt.Fprintf(cmd.ErrOrStderr(), "note: --margin %g read as %g points (A may be at most %g points worse than B)\n", o.Margin, -o.Margin, o.Margin)
				o.Margin = -o.Margin
			}
			j, err := Pair(o)
			if err != nil {
				return err
			}
			warn(cmd.ErrOrStderr(), o, j)
			r, err := Run(j, o)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			Print(cmd.OutOrStdout(), o, j, r)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.A, "a", "", "run directory or judgments.jsonl of system A")
	f.StringVar(&o.B, "b", "", "run directory or judgments.jsonl of system B")
	f.StringVar(&judgeBoth, "judge", "", "judge name on both sides (default: the only judge in each file)")
	f.StringVar(&o.JudgeA, "judge-a", "", "judge name for A (overrides --judge)")
	f.StringVar(&o.JudgeB, "judge-b", "", "judge name for B (overrides --judge)")
	f.StringVar(&o.Test, "test", "mcnemar", "mcnemar or noninferiority")
	f.BoolVar(&o.ChiSquare, "chi2", false, "mcnemar: chi-square with continuity correction instead of the exact test")
	f.Float64Var(&o.Margin, "margin", stats.DefaultMargin, "non-inferiority margin in points: the tolerated loss of A against B (-5 and 5 both mean 5 points worse)")
	f.Float64Var(&o.Alpha, "alpha", 0.05, "one-sided level of the non-inferiority bound")
	f.IntSliceVar(&o.ExcludeCategory, "exclude-category", []int{5}, "drop questions of these categories (0 = none)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func warn(w io.Writer, o Options, j *Join) {
	if len(j.OnlyInA) > 0 {
		fmt.Fprintf(w, "compare: %d question ids judged in A (%s) are missing from B: %s\n", len(j.OnlyInA), o.A, examples(j.OnlyInA))
	}
	if len(j.OnlyInB) > 0 {
		fmt.Fprintf(w, "compare: %d question ids judged in B (%s) are missing from A: %s\n", len(j.OnlyInB), o.B, examples(j.OnlyInB))
	}
	if j.Excluded > 0 {
		fmt.Fprintf(w, "compare: %d shared questions excluded by --exclude-category %v\n", j.Excluded, o.ExcludeCategory)
	}
	if j.Unknown > 0 && hasExclusion(o.ExcludeCategory) {
		fmt.Fprintf(w, "compare: %d shared questions have no category (no answers.jsonl); they were kept\n", j.Unknown)
	}
}

func hasExclusion(cs []int) bool {
	for _, c := range cs {
		if c != 0 {
			return true
		}
	}
	return false
}

// Print writes the human-readable table.
func Print(w io.Writer, o Options, j *Join, r Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "A\t%s (judge %s)\taccuracy %.2f\n", o.A, j.JudgeA, r.AccuracyA)
	fmt.Fprintf(tw, "B\t%s (judge %s)\taccuracy %.2f\n", o.B, j.JudgeB, r.AccuracyB)
	fmt.Fprintf(tw, "n\t%d\t\n", r.N)
	fmt.Fprintf(tw, "\tB correct\tB wrong\n")
	fmt.Fprintf(tw, "A correct\t%d\t%d\n", r.Both, r.OnlyA)
	fmt.Fprintf(tw, "A wrong\t%d\t%d\n", r.OnlyB, r.Neither)
	tw.Flush()
	num := func(p *float64, f string) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf(f, *p)
	}
	switch o.Test {
	case "mcnemar":
		kind := "exact McNemar, statistic = min(only_a, only_b)"
		if o.ChiSquare {
			kind = "McNemar chi-square with continuity correction"
		}
		fmt.Fprintf(w, "%s: statistic %s, p = %s\n", kind, num(r.Statistic, "%.4g"), num(r.PValue, "%.4g"))
	case "noninferiority":
		verdict := "NOT shown non-inferior"
		if r.LowerBound != nil && *r.LowerBound > o.Margin {
			verdict = "non-inferior"
		}
		fmt.Fprintf(w, "non-inferiority of A vs B: mean diff %s points, one-sided %.0f%% lower bound %s, margin %.2f, t %s, p = %s: %s\n",
			num(r.MeanDiff, "%+.2f"), 100*(1-o.Alpha), num(r.LowerBound, "%+.2f"), o.Margin, num(r.Statistic, "%.3f"), num(r.PValue, "%.4g"), verdict)
	}
	fmt.Fprintf(w, "Cohen's kappa between A's and B's correctness: %s\n", num(r.Kappa, "%.4f"))
}
