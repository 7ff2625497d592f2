package view

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// OfflineMark is what every figure made from the offline backend says.
const OfflineMark = "offline heuristics"

// Headline is what the landing page shows of a run above the fold: the
// primary judge's overall score with its interval, and the bill.
type Headline struct {
	Judge   string `json:"judge"`
	Overall *Cell  `json:"overall,omitempty"`
	// Left is how many answered questions the overall leaves out (those
	// whose right answer is to decline), as the summary and compare do.
	Left int `json:"left"`
	// Dollars by stage and in total, priced as `report --table dollars` does.
	Dollars [][2]string `json:"dollars"`
	Total   string      `json:"total"`
	AsOf    string      `json:"as_of"`
	// Calls counts model requests; Embedded the texts sent to an
	// embedder, which are not model calls (a stage keyed
	// runlog.EmbeddedTexts counts texts in its calls).
	Calls    int `json:"calls"`
	Embedded int `json:"embedded,omitempty"`
	In       int `json:"in"`
	Out      int `json:"out"`
	// Offline is OfflineMark when any of the run's models is the offline
	// backend, else "".
	Offline string `json:"offline,omitempty"`
}

func headline(rv *RunView, m runlog.Manifest, bill *prices.Bill) *Headline {
	h := &Headline{Judge: rv.Primary, Dollars: [][2]string{}}
	for _, row := range rv.Table {
		if row.Name == "overall" {
			if c, ok := row.Cells[rv.Primary]; ok {
				h.Overall = &c
			}
		}
	}
	for _, q := range rv.Qs {
		if q.Abs {
			h.Left++
		}
	}
	for _, c := range rv.Costs {
		if strings.HasSuffix(c.Stage, runlog.EmbeddedTexts) {
			h.Embedded += c.Calls
		} else {
			h.Calls += c.Calls
		}
		h.In += c.In
		h.Out += c.Out
	}
	if bill != nil {
		for _, st := range prices.StageOrder {
			if a, ok := bill.Stages[st]; ok {
				h.Dollars = append(h.Dollars, [2]string{st, a.String()})
			}
		}
		h.Total = bill.Total.String()
		if bill.Table != nil {
			h.AsOf = bill.Table.AsOf
		}
	}
	if m.Offline || len(m.OfflineList()) > 0 {
		h.Offline = OfflineMark
	}
	return h
}

// attr is one thing a run was made with, as a label shows it.
type attr struct {
	key, val string
	// cfg marks a config setting, absent when at its default: a run
	// without it differs from one that has it.
	cfg bool
}

// attrs lists what a run was made with that can change its numbers: the
// resolved system options, models, embedder, judges, dataset and question
// set, prompts, and any other recorded setting (an answer key, a seed).
func attrs(m runlog.Manifest) []attr {
	var out []attr
	add := func(k, v string) { out = append(out, attr{key: k, val: v}) }
	if k, _, ok := analysis.ResolveK(m); ok {
		add("k", fmt.Sprint(k))
	}
	opts := map[string]string{}
	for k, v := range m.Config.Options {
		opts[k] = fmt.Sprint(v)
	}
	for k, v := range m.SystemOptions {
		opts[k] = fmt.Sprint(v)
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if k != "k" {
			add(k, opts[k])
		}
	}
	roles := map[string]string{}
	for role, id := range m.Models {
		roles[role] = id.Backend + ":" + id.Model
	}
	for _, role := range slices.Sorted(maps.Keys(roles)) {
		add(role, roles[role])
	}
	add("embedder", m.Embedder)
	add("judges", strings.Join(m.Judges, ","))
	add("dataset", m.Dataset+" "+short(m.DatasetSHA256, 8))
	add("questions", fmt.Sprintf("%d %s", m.Questions, short(m.QuestionSetSHA256, 8)))
	add("turn step", m.TurnStep)
	// The answer and judge prompts change every system's numbers; the
	// manifest hashes every prompt the binary holds, most of them unused
	// by a given system, so the others would only add noise.
	for _, p := range slices.Sorted(maps.Keys(m.Prompts)) {
		if p == "answer" || strings.HasPrefix(p, "judge") {
			add(p+" prompt", short(m.Prompts[p], 8))
		}
	}
	// Settings recorded in the config that the fields above do not cover
	// (an answer key, a seed, a shard, a question limit): shown as the
	// config names them, so a new setting tells runs apart without a
	// change here.
	covered := map[string]bool{"system": true, "options": true, "k": true, "dataset": true, "data": true, "data_sha256": true,
		"model": true, "build_model": true, "answer_model": true, "decide_model": true, "judge_model": true,
		"judges": true, "embedder": true, "turn_step": true}
	var cfg map[string]json.RawMessage
	if b, err := json.Marshal(m.Config); err == nil && json.Unmarshal(b, &cfg) == nil {
		for _, k := range slices.Sorted(maps.Keys(cfg)) {
			if !covered[k] {
				out = append(out, attr{k, llm.RedactText(strings.Trim(string(cfg[k]), `"`)), true})
			}
		}
	}
	return out
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// labels names each run by its system and what sets it apart from the
// others: the k it retrieved with, and every setting whose value differs
// from another run's that has it too (a system option only among runs of
// that system, since options are the system's own). Runs that differ in
// nothing recorded get their run id's tail.
func labels(ms []runlog.Manifest, ids []string) []string {
	all := make([]map[string]string, len(ms))
	opt := make([]map[string]bool, len(ms))
	for i, m := range ms {
		all[i], opt[i] = map[string]string{}, map[string]bool{}
		for _, a := range attrs(m) {
			all[i][a.key] = a.val
		}
		for k := range m.Config.Options {
			opt[i][k] = true
		}
		for k := range m.SystemOptions {
			opt[i][k] = true
		}
	}
	out := make([]string, len(ms))
	count := map[string]int{}
	for i, m := range ms {
		parts := []string{m.Config.System}
		for _, a := range attrs(m) {
			if a.val == "" {
				continue
			}
			show := a.key == "k"
			for j := range ms {
				if show {
					break
				}
				if j == i || (opt[i][a.key] && ms[j].Config.System != m.Config.System) {
					continue
				}
				if v, has := all[j][a.key]; (has || a.cfg) && (v != "" || a.cfg) && v != a.val {
					show = true
				}
			}
			if show {
				parts = append(parts, a.key+"="+a.val)
			}
		}
		out[i] = strings.Join(parts, " ")
		count[out[i]]++
	}
	for i := range out {
		if count[out[i]] > 1 {
			id := ids[i]
			out[i] += " #" + id[strings.LastIndex(id, "-")+1:]
		}
	}
	return out
}

// Exclusions are the groups compare leaves out by default, which every
// paired figure in the view leaves out too.
var Exclusions = []string{analysis.Abstaining}

// comparePairs computes runs i and j's A/B pages with compare's own code:
// the same sources, pairing, exclusions and default judge as
// `membench compare --run A --run B`, one page per judge both runs have.
func comparePairs(srcs []*analysis.Source, runs []*RunView, i, j int) []*Pair {
	sa, sb := srcs[i], srcs[j]
	if sa == nil || sb == nil {
		return nil
	}
	def := ""
	if d := sa.DefaultJudge(); d != "" && contains(sb.Judges(), d) {
		def = d
	}
	var out []*Pair
	for _, name := range sa.Judges() {
		if !contains(sb.Judges(), name) {
			continue
		}
		o := analysis.CompareOptions{A: sa.Path, B: sb.Path, JudgeA: name, JudgeB: name, Test: "mcnemar", Alpha: 0.05,
			Exclude: Exclusions, AllowMixed: true}
		p := &Pair{A: i, B: j, Judge: name, Default: name == def, Exclude: Exclusions,
			Cells: map[string][]string{"both": {}, "a": {}, "b": {}, "neither": {}}}
		out = append(out, p)
		join, err := analysis.PairSources(sa, sb, o)
		if err != nil {
			p.Error = err.Error()
			continue
		}
		p.Mixed = join.Mixed
		res, err := analysis.Compare(join, o)
		if err != nil {
			p.Error = err.Error()
			continue
		}
		p.Result = &res
		for k, id := range join.IDs {
			a, b := join.A[k], join.B[k]
			cell := "neither"
			switch {
			case a && b:
				cell = "both"
			case a:
				cell = "a"
			case b:
				cell = "b"
			}
			p.Cells[cell] = append(p.Cells[cell], id)
		}
		p.N = res.N
		if res.PValue != nil {
			p.P = *res.PValue
		}
		p.Notes = pairNotes(join, res)
	}
	return out
}

// pairNotes says what compare would print on stderr about the pairing.
func pairNotes(j *analysis.Join, r analysis.CompareResult) []string {
	var out []string
	if r.Excluded > 0 {
		out = append(out, fmt.Sprintf("%d shared questions left out: group %s (questions whose right answer is to decline), as compare and the summary's overall leave them out", r.Excluded, strings.Join(Exclusions, ", ")))
	} else {
		out = append(out, "exclusions: group "+strings.Join(Exclusions, ", ")+" (none of the shared questions is in it)")
	}
	if r.OnlyInA+r.OnlyInB > 0 {
		out = append(out, fmt.Sprintf("judged on one side only, left out: %d in A, %d in B (e.g. %s)", r.OnlyInA, r.OnlyInB, analysis.Examples(append(append([]string{}, j.OnlyInA...), j.OnlyInB...))))
	}
	if r.InvalidA+r.InvalidB > 0 {
		out = append(out, fmt.Sprintf("invalid verdicts left out: %d in A, %d in B (the judge's reply held no verdict)", r.InvalidA, r.InvalidB))
	}
	if r.PartialA+r.PartialB > 0 {
		out = append(out, fmt.Sprintf("PARTIAL verdicts (%d in A, %d in B) count as wrong in these cells and McNemar's test", r.PartialA, r.PartialB))
	}
	if len(r.Mixed) > 0 {
		out = append(out, "compare refuses this pair unless --allow-mixed: the runs differ in "+strings.Join(r.Mixed, "; "))
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
