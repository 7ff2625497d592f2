package analysis

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
)

// Judge agreement (the StructMem paper's Table 5): pairwise Cohen's kappa
// and Pearson r, Fleiss' kappa, and judge–human agreement per system.

// HumanJudge is the judge name that marks human labels.
const HumanJudge = "human"

// Rater modes.
const (
	// RatersJudge: raters are judges; items are (system, question) pairs
	// pooled over every run given (Table 5).
	RatersJudge = "judge"
	// RatersRun: raters are (run, system, judge) triples; items are
	// question ids (e.g. one peer judge on two versions of a system).
	RatersRun = "run"
	// RatersRepeat: raters are the repeats of each judge (judge spec
	// repeats=N, or an imported peer's judgment runs); items are (system,
	// question) pairs pooled over every run given: a judge's agreement with
	// itself.
	RatersRepeat = "repeat"
)

// RaterPair is one pair of raters.
type RaterPair struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	CohenKappa *float64 `json:"cohen_kappa"`
	PearsonR   *float64 `json:"pearson_r"`
	PValue     *float64 `json:"p_value"`
}

// AllSystems is the system of the judge–human rows that pool every system.
const AllSystems = "(all)"

// HumanAgreement is one judge's agreement with human labels on one system
// (AllSystems pools every system).
type HumanAgreement struct {
	System    string   `json:"system"`
	Judge     string   `json:"judge"`
	N         int      `json:"n"`
	Agreement float64  `json:"agreement"` // percent of items where judge and human agree
	Kappa     *float64 `json:"cohen_kappa"`
}

// AgreementOptions select raters and items.
type AgreementOptions struct {
	Judges     []string // only these judges (empty: every verdict judge; metric judges only when named)
	Exclude    []string // groups left out (CompareOptions.Exclude)
	AllowMixed bool
	Raters     string // RatersJudge (default) or RatersRun
}

// AgreementResult is agreement's JSON.
type AgreementResult struct {
	Raters string `json:"raters"` // judge | run
	// Items says what one rated item is: "system-question pairs" (raters
	// are judges) or "questions" (raters are run/system/judge).
	Items       string           `json:"items"`
	Judges      []string         `json:"judges"`
	Systems     []string         `json:"systems"`
	N           int              `json:"n"`
	FleissKappa *float64         `json:"fleiss_kappa"`
	Pairs       []RaterPair      `json:"pairs"`
	Human       []HumanAgreement `json:"human,omitempty"`
	Dropped     int              `json:"dropped"` // items not judged by every rater
	// Invalid counts, per judge, verdicts whose judge model gave none: they
	// are left out (their items then count as dropped).
	Invalid map[string]int `json:"invalid,omitempty"`
	// Offline names the offline parts when any verdict or answer comes
	// from the offline backend's heuristics.
	Offline string   `json:"offline,omitempty"`
	Mixed   []string `json:"mixed,omitempty"` // differences accepted with --allow-mixed
	// MetricsLeftOut are the metric judges (F1, BLEU-1, ...) present but not
	// rated: they are not raters unless named with --judge.
	MetricsLeftOut []string `json:"metrics_left_out,omitempty"`
	Synthetic      string   `json:"synthetic,omitempty"` // runs on a `datasets synth` file, named
}

// rater is one judge (RatersJudge) or one judge on one system of one file
// (RatersRun), with its verdicts by item.
type rater struct {
	source, system, judge string
	key                   string // its name in the result
	byItem                map[string]runlog.Judgment
}

// Agreement measures how far the judges of the sources agree.
func Agreement(srcs []*Source, o AgreementOptions) (AgreementResult, error) {
	if o.Raters == "" {
		o.Raters = RatersJudge
	}
	if o.Raters != RatersJudge && o.Raters != RatersRun && o.Raters != RatersRepeat {
		return AgreementResult{}, badinput.Errorf("--raters %q: use judge, run or repeat", o.Raters)
	}
	seenPath := map[string]bool{}
	var sides []Side
	for _, s := range srcs {
		// One run given twice would rate every item twice.
		p := filepath.Clean(s.Path)
		if seenPath[p] {
			return AgreementResult{}, badinput.Errorf("%s is given twice; give each run once", s.Path)
		}
		seenPath[p] = true
		sides = append(sides, s.Side())
	}
	// Raters are judges; the runs they judged must have been made the same
	// way (their specs differ by design, so they are not compared).
	mixed, err := CheckComparable(sides, o.AllowMixed)
	if err != nil {
		return AgreementResult{}, err
	}
	res := AgreementResult{Raters: o.Raters, Mixed: mixed, Offline: offlineNote(srcs...)}
	var ms []*runlog.Manifest
	for _, s := range srcs {
		ms = append(ms, s.Manifest)
	}
	res.Synthetic = syntheticNotes(ms...)
	res.Items = "system-question pairs"
	if o.Raters == RatersRun {
		res.Items = "questions"
	}
	leftOut := map[string]bool{}
	keep := func(s *Source, j runlog.Judgment) bool {
		if len(o.Judges) > 0 && !slices.Contains(o.Judges, j.Judge) {
			return false
		}
		if len(o.Judges) == 0 && s.IsMetric(j.Judge) {
			// Lexical metrics agree with each other by construction; a
			// rater is a judge that gives verdicts unless named.
			leftOut[j.Judge] = true
			return false
		}
		g, ok := s.Groups[j.QuestionID]
		return !(ok && Excluded(o.Exclude, g, s.Abstains[j.QuestionID]))
	}
	system := func(s *Source, j runlog.Judgment) string {
		if j.System != "" {
			return j.System
		}
		return s.Name
	}
	var rs []*rater
	idx := map[[3]string]*rater{}
	// byJudge holds every verdict (human labels included) by judge and
	// (run, system, question) item, for the judge–human table.
	byJudge := map[string]map[string]runlog.Judgment{}
	itemSystem := map[string]string{}
	systems := map[string]bool{}
	for _, s := range srcs {
		for _, j := range s.Invalid {
			if keep(s, j) {
				if res.Invalid == nil {
					res.Invalid = map[string]int{}
				}
				res.Invalid[j.Judge]++
			}
		}
		verdicts := s.Judgments
		if o.Raters == RatersRepeat {
			verdicts = slices.DeleteFunc(slices.Clone(s.Repeats), func(j runlog.Judgment) bool { return j.Invalid })
		}
		for _, j := range verdicts {
			if !keep(s, j) {
				continue
			}
			sys := system(s, j)
			systems[sys] = true
			item := s.Path + "\x00" + sys + "\x00" + j.QuestionID
			itemSystem[item] = sys
			if byJudge[j.Judge] == nil {
				byJudge[j.Judge] = map[string]runlog.Judgment{}
			}
			byJudge[j.Judge][item] = j
			k := [3]string{j.Judge}
			id := item
			switch o.Raters {
			case RatersRun:
				k, id = [3]string{s.Path, sys, j.Judge}, j.QuestionID
			case RatersRepeat:
				k = [3]string{j.Judge, strconv.Itoa(j.Repeat)}
			}
			r := idx[k]
			if r == nil {
				r = &rater{source: s.Name, system: sys, judge: j.Judge, key: j.Judge, byItem: map[string]runlog.Judgment{}}
				if o.Raters == RatersRepeat {
					r.key = fmt.Sprintf("%s#%d", j.Judge, j.Repeat+1)
				}
				idx[k] = r
				rs = append(rs, r)
			}
			r.byItem[id] = j
		}
	}
	res.Systems = slices.Sorted(maps.Keys(systems))
	res.MetricsLeftOut = slices.Sorted(maps.Keys(leftOut))
	if o.Raters == RatersRun {
		nameRaters(rs)
	}
	if o.Raters != RatersRepeat {
		res.Human = humanAgreement(byJudge, itemSystem)
	}
	// With a human table, the human labels are its reference, not a rater.
	raters := slices.DeleteFunc(rs, func(r *rater) bool { return r.judge == HumanJudge && len(res.Human) > 0 })
	slices.SortFunc(raters, func(a, b *rater) int { return strings.Compare(a.key, b.key) })
	for _, r := range raters {
		res.Judges = append(res.Judges, r.key)
	}
	if len(raters) < 2 {
		if len(res.Human) > 0 {
			return res, nil // one judge against human labels: the human table alone
		}
		hint := "add --run/--judgments or drop --judge filters"
		if o.Raters == RatersRepeat {
			hint = "--raters repeat needs a judge that judged each answer more than once (judge spec repeats=N, or an imported peer's judgment runs)"
		} else if len(res.MetricsLeftOut) > 0 {
			hint = fmt.Sprintf("metric judges %v are raters only when named (--judge NAME for each rater), or add verdict judges with `membench judge`", res.MetricsLeftOut)
		}
		if o.Raters == RatersJudge && len(srcs) > 1 {
			hint += "; to compare one judge across runs use --raters run"
		}
		return res, badinput.Errorf("agreement needs at least two raters; found %d (%v): %s", len(raters), res.Judges, hint)
	}
	all := map[string]int{}
	for _, r := range raters {
		for id := range r.byItem {
			all[id]++
		}
	}
	// Only the items every rater judged are compared.
	ids := slices.Sorted(maps.Keys(all))
	ids = slices.DeleteFunc(ids, func(id string) bool { return all[id] != len(raters) })
	res.N, res.Dropped = len(ids), len(all)-len(ids)
	if res.N < 3 {
		return res, badinput.Errorf("only %d items are judged by all of %v; agreement needs at least 3", res.N, res.Judges)
	}
	labels := make([][]bool, len(ids))
	for i, id := range ids {
		for _, r := range raters {
			labels[i] = append(labels[i], r.byItem[id].Correct)
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
				ja, jb := raters[a].byItem[id], raters[b].byItem[id]
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

// humanAgreement compares every judge with the human labels on the same
// items, per system and over all systems (AllSystems), since judge–human
// agreement can differ by answer style (paper B).
func humanAgreement(byJudge map[string]map[string]runlog.Judgment, itemSystem map[string]string) []HumanAgreement {
	human := byJudge[HumanJudge]
	if len(human) == 0 {
		return nil
	}
	type cell struct {
		a, b  []bool
		agree int
	}
	cells := map[[2]string]*cell{}
	add := func(sys, judge string, h, j runlog.Judgment) {
		k := [2]string{sys, judge}
		c := cells[k]
		if c == nil {
			c = &cell{}
			cells[k] = c
		}
		c.a, c.b = append(c.a, h.Correct), append(c.b, j.Correct)
		if h.Correct == j.Correct {
			c.agree++
		}
	}
	for name, verdicts := range byJudge {
		if name == HumanJudge {
			continue
		}
		for item, hj := range human {
			if j, ok := verdicts[item]; ok {
				add(itemSystem[item], name, hj, j)
				add(AllSystems, name, hj, j)
			}
		}
	}
	var out []HumanAgreement
	for k, c := range cells {
		hu := HumanAgreement{System: k[0], Judge: k[1], N: len(c.a), Agreement: 100 * float64(c.agree) / float64(len(c.a))}
		if kp, err := stats.CohenKappaBinary(c.a, c.b); err == nil {
			hu.Kappa = finite(kp)
		}
		out = append(out, hu)
	}
	sort.Slice(out, func(i, j int) bool {
		// AllSystems last, after the per-system rows.
		if (out[i].System == AllSystems) != (out[j].System == AllSystems) {
			return out[j].System == AllSystems
		}
		if out[i].System != out[j].System {
			return out[i].System < out[j].System
		}
		return out[i].Judge < out[j].Judge
	})
	return out
}
