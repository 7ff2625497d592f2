package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/analysis"
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
	if d := sa.DefaultJudge(); d != "" && slices.Contains(sb.Judges(), d) {
		def = d
	}
	var out []*Pair
	for _, name := range sa.Judges() {
		if !slices.Contains(sb.Judges(), name) {
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
		out = append(out, fmt.Sprintf("judged on one side only, left out: %d in A, %d in B (e.g. %s)", r.OnlyInA, r.OnlyInB, analysis.Examples(slices.Concat(j.OnlyInA, j.OnlyInB))))
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
