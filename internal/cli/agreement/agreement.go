// Package agreement is `membench agreement`: how far judges agree on the
// same questions (pairwise Cohen's kappa and Pearson r, Fleiss' kappa), in
// the shape of the StructMem paper's Table 5, plus judge–human agreement
// per system when human labels are present.
package agreement

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/cli/compare"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
)

// HumanJudge is the judge name that marks human labels.
const HumanJudge = "human"

// Pair is one pair of raters.
type Pair struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	CohenKappa *float64 `json:"cohen_kappa"`
	PearsonR   *float64 `json:"pearson_r"`
	PValue     *float64 `json:"p_value"`
}

// Human is one judge's agreement with human labels on one system.
type Human struct {
	System    string   `json:"system"`
	Judge     string   `json:"judge"`
	N         int      `json:"n"`
	Agreement float64  `json:"agreement"` // percent of questions where judge and human agree
	Kappa     *float64 `json:"cohen_kappa"`
}

// Result is the JSON output.
type Result struct {
	Judges      []string `json:"judges"`
	N           int      `json:"n"`
	FleissKappa *float64 `json:"fleiss_kappa"`
	Pairs       []Pair   `json:"pairs"`
	Human       []Human  `json:"human,omitempty"`
	Dropped     int      `json:"-"` // questions not judged by every rater
}

// rater is one judge on one system from one file.
type rater struct {
	source, system, judge string
	key                   string
	byID                  map[string]runlog.Judgment
}

// Compute builds raters from the sources and measures their agreement.
// Judges present in several files or systems get "system/" (and if needed
// "dir/system/") prefixes so they stay apart.
func Compute(srcs []*compare.Source, judges []string, exclude []int) (Result, error) {
	want := map[string]bool{}
	for _, j := range judges {
		want[j] = true
	}
	excl := map[int]bool{}
	for _, c := range exclude {
		if c != 0 {
			excl[c] = true
		}
	}
	var rs []*rater
	idx := map[[3]string]*rater{}
	for _, s := range srcs {
		for _, j := range s.Judgments {
			if len(want) > 0 && !want[j.Judge] {
				continue
			}
			if c, ok := s.Categories[j.QuestionID]; ok && excl[c] {
				continue
			}
			sys := j.System
			if sys == "" {
				sys = s.Name
			}
			k := [3]string{s.Path, sys, j.Judge}
			r := idx[k]
			if r == nil {
				r = &rater{source: s.Name, system: sys, judge: j.Judge, byID: map[string]runlog.Judgment{}}
				idx[k] = r
				rs = append(rs, r)
			}
			if _, dup := r.byID[j.QuestionID]; dup {
				return Result{}, clierr.Bad("%s: judge %s scored %s twice for system %s; remove the duplicate line", s.Path, j.Judge, j.QuestionID, sys)
			}
			r.byID[j.QuestionID] = j
		}
	}
	nameRaters(rs)
	var res Result
	res.Human = humanAgreement(rs)
	var raters []*rater
	for _, r := range rs {
		if r.judge != HumanJudge || len(res.Human) == 0 {
			raters = append(raters, r)
		}
	}
	if len(raters) < 2 {
		return res, clierr.Bad("agreement needs at least two judges; found %d (add --run/--judgments or drop --judge filters)", len(raters))
	}
	sort.Slice(raters, func(i, j int) bool { return raters[i].key < raters[j].key })
	all := map[string]int{}
	for _, r := range raters {
		res.Judges = append(res.Judges, r.key)
		for id := range r.byID {
			all[id]++
		}
	}
	var ids []string
	for id, c := range all {
		if c == len(raters) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	res.N, res.Dropped = len(ids), len(all)-len(ids)
	if res.N < 3 {
		return res, clierr.Bad("only %d questions are judged by all of %v; agreement needs at least 3", res.N, res.Judges)
	}
	labels := make([][]bool, len(ids))
	for i, id := range ids {
		for _, r := range raters {
			labels[i] = append(labels[i], r.byID[id].Correct)
		}
	}
	if k, err := stats.FleissKappa(labels); err == nil {
		res.FleissKappa = finite(k)
	}
	for a := 0; a < len(raters); a++ {
		for b := a + 1; b < len(raters); b++ {
			ca, cb := make([]bool, len(ids)), make([]bool, len(ids))
			sa, sb := make([]float64, len(ids)), make([]float64, len(ids))
			for i, id := range ids {
				ja, jb := raters[a].byID[id], raters[b].byID[id]
				ca[i], cb[i], sa[i], sb[i] = ja.Correct, jb.Correct, ja.Score, jb.Score
			}
			p := Pair{A: raters[a].key, B: raters[b].key}
			if k, err := stats.CohenKappaBinary(ca, cb); err == nil {
				p.CohenKappa = finite(k)
			}
			if r, pv, err := stats.Pearson(sa, sb); err == nil {
				p.PearsonR, p.PValue = finite(r), finite(pv)
			}
			res.Pairs = append(res.Pairs, p)
		}
	}
	return res, nil
}

// nameRaters keys each rater by judge name when that is unique, else by
// system/judge, else by dir/system/judge.
func nameRaters(rs []*rater) {
	count := func(f func(*rater) string) map[string]int {
		m := map[string]int{}
		for _, r := range rs {
			m[f(r)]++
		}
		return m
	}
	byJudge := count(func(r *rater) string { return r.judge })
	bySys := count(func(r *rater) string { return r.system + "/" + r.judge })
	for _, r := range rs {
		switch {
		case byJudge[r.judge] == 1:
			r.key = r.judge
		case bySys[r.system+"/"+r.judge] == 1:
			r.key = r.system + "/" + r.judge
		default:
			r.key = r.source + "/" + r.system + "/" + r.judge
		}
	}
}

// humanAgreement compares every judge with the human labels of the same
// system, since judge–human agreement can differ by answer style.
func humanAgreement(rs []*rater) []Human {
	var out []Human
	for _, h := range rs {
		if h.judge != HumanJudge {
			continue
		}
		for _, r := range rs {
			if r == h || r.system != h.system || r.judge == HumanJudge {
				continue
			}
			var a, b []bool
			agree := 0
			for id, hj := range h.byID {
				if j, ok := r.byID[id]; ok {
					a, b = append(a, hj.Correct), append(b, j.Correct)
					if hj.Correct == j.Correct {
						agree++
					}
				}
			}
			if len(a) == 0 {
				continue
			}
			hu := Human{System: r.system, Judge: r.judge, N: len(a), Agreement: 100 * float64(agree) / float64(len(a))}
			if k, err := stats.CohenKappaBinary(a, b); err == nil {
				hu.Kappa = finite(k)
			}
			out = append(out, hu)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].System != out[j].System {
			return out[i].System < out[j].System
		}
		return out[i].Judge < out[j].Judge
	})
	return out
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// NewCmd returns the agreement command.
func NewCmd() *cobra.Command {
	var runs, files, judges []string
	var exclude []int
	var asJSON bool
	c := &cobra.Command{
		Use:   "agreement",
		Short: "Judge agreement: pairwise Cohen's kappa and Pearson r, Fleiss' kappa, judge-human agreement",
		Long: `Measure agreement between every judge found in the given runs, on the
questions judged by all of them (the others are counted and reported).
Cohen's kappa and Fleiss' kappa use the correct/incorrect verdicts;
Pearson r uses the scores (identical to the verdicts for binary judges).
A judge name found in several files or systems is prefixed with its
system (or dir/system) to keep the raters apart. When a judge named
"human" exists, each judge's agreement with it is reported per system and
"human" is left out of the pairwise table. Category 5 is excluded by default
(--exclude-category 0 keeps all), matching compare.`,
		Example: `  membench agreement --run results/run1
  membench agreement --run results/peers/memobase-v0.0.32 --run results/peers/memobase-v0.0.37 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths := append(append([]string{}, runs...), files...)
			if len(paths) == 0 {
				return clierr.Bad("agreement needs --run DIR or --judgments FILE (repeatable)")
			}
			var srcs []*compare.Source
			for _, p := range paths {
				s, err := compare.Load(p)
				if err != nil {
					return err
				}
				srcs = append(srcs, s)
			}
			res, err := Compute(srcs, judges, exclude)
			if err != nil {
				return err
			}
			if res.Dropped > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "agreement: %d questions not judged by every judge were dropped; %d remain\n", res.Dropped, res.N)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			Print(cmd.OutOrStdout(), res)
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&runs, "run", nil, "run directory (repeatable)")
	f.StringArrayVar(&files, "judgments", nil, "judgments.jsonl file (repeatable)")
	f.StringArrayVar(&judges, "judge", nil, "only these judges (repeatable; default all)")
	f.IntSliceVar(&exclude, "exclude-category", []int{5}, "drop questions of these categories (0 = none)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// Print writes Table 5's shape: one column per pair, rows Cohen κ and
// Pearson r, then Fleiss' κ.
func Print(w io.Writer, r Result) {
	num := func(p *float64) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.4f", *p)
	}
	fmt.Fprintf(w, "judges: %v; questions judged by all: %d\n", r.Judges, r.N)
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
	fmt.Fprintf(w, "Fleiss κ over %d judges: %s\n", len(r.Judges), num(r.FleissKappa))
	if len(r.Human) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "system\tjudge\tn\tagreement with human %\tCohen κ\n")
		for _, h := range r.Human {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\n", h.System, h.Judge, h.N, h.Agreement, num(h.Kappa))
		}
		tw.Flush()
	}
}
