package analysis

import (
	"sort"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
)

// Judge agreement (the StructMem paper's Table 5): pairwise Cohen's kappa
// and Pearson r, Fleiss' kappa, and judge–human agreement per system.

// HumanJudge is the judge name that marks human labels.
const HumanJudge = "human"

// RaterPair is one pair of raters.
type RaterPair struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	CohenKappa *float64 `json:"cohen_kappa"`
	PearsonR   *float64 `json:"pearson_r"`
	PValue     *float64 `json:"p_value"`
}

// HumanAgreement is one judge's agreement with human labels on one system.
type HumanAgreement struct {
	System    string   `json:"system"`
	Judge     string   `json:"judge"`
	N         int      `json:"n"`
	Agreement float64  `json:"agreement"` // percent of questions where judge and human agree
	Kappa     *float64 `json:"cohen_kappa"`
}

// AgreementResult is agreement's JSON.
type AgreementResult struct {
	Judges      []string         `json:"judges"`
	N           int              `json:"n"`
	FleissKappa *float64         `json:"fleiss_kappa"`
	Pairs       []RaterPair      `json:"pairs"`
	Human       []HumanAgreement `json:"human,omitempty"`
	Dropped     int              `json:"dropped"` // questions not judged by every rater
	// Offline names the offline parts when any verdict or answer comes
	// from the offline backend's heuristics.
	Offline string   `json:"offline,omitempty"`
	Mixed   []string `json:"mixed,omitempty"` // differences accepted with --allow-mixed
}

// rater is one judge on one system from one file.
type rater struct {
	source, system, judge string
	key                   string
	byID                  map[string]runlog.Judgment
}

// Agreement builds raters from the sources and measures their agreement.
// Judges present in several files or systems get "system/" (and if needed
// "dir/system/") prefixes so they stay apart.
func Agreement(srcs []*Source, judges []string, exclude []int, allowMixed bool) (AgreementResult, error) {
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
	// Raters are judges; the runs they judged must have been made the same
	// way (their specs differ by design, so they are not compared).
	var sides []runlog.Side
	for _, s := range srcs {
		sides = append(sides, s.Side())
	}
	mixed, err := runlog.CheckComparable(sides, allowMixed)
	if err != nil {
		return AgreementResult{}, err
	}
	var rs []*rater
	idx := map[[3]string]*rater{}
	for _, s := range srcs {
		for _, j := range s.Judgments {
			if len(want) > 0 && !want[j.Judge] {
				continue
			}
			if c, ok := s.Categories[j.QuestionID]; (ok && excl[c]) || (s.Abstains[j.QuestionID] && excl[5]) {
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
				return AgreementResult{}, inputErr("%s: judge %s scored %s twice for system %s; remove the duplicate line", s.Path, j.Judge, j.QuestionID, sys)
			}
			r.byID[j.QuestionID] = j
		}
	}
	nameRaters(rs)
	res := AgreementResult{Mixed: mixed, Offline: offlineNote(srcs...)}
	res.Human = humanAgreement(rs)
	var raters []*rater
	for _, r := range rs {
		if r.judge != HumanJudge || len(res.Human) == 0 {
			raters = append(raters, r)
		}
	}
	if len(raters) < 2 {
		return res, inputErr("agreement needs at least two judges; found %d (add --run/--judgments or drop --judge filters)", len(raters))
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
		return res, inputErr("only %d questions are judged by all of %v; agreement needs at least 3", res.N, res.Judges)
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
			p := RaterPair{A: raters[a].key, B: raters[b].key}
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
func humanAgreement(rs []*rater) []HumanAgreement {
	var out []HumanAgreement
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
			hu := HumanAgreement{System: r.system, Judge: r.judge, N: len(a), Agreement: 100 * float64(agree) / float64(len(a))}
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
