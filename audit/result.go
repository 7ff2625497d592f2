package audit

import (
	"fmt"
	"slices"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/stats"
)

// Overall is the conversation label of a group's total row.
const Overall = "overall"

// Cell is one judge's count over one row: Unsupported of Judged items
// (unparsed replies are left out and counted apart).
type Cell struct {
	Unsupported int     `json:"unsupported"`
	Judged      int     `json:"judged"`
	Unparsed    int     `json:"unparsed,omitempty"`
	Rate        float64 `json:"rate"` // Unsupported / Judged, NaN-free: 0 when Judged = 0
	// Lo and Hi are the Wilson 95% interval of Rate, on overall rows.
	Lo *float64 `json:"lo,omitempty"`
	Hi *float64 `json:"hi,omitempty"`
}

// Row is one conversation (or the overall total) of one group.
type Row struct {
	Group        string          `json:"group,omitempty"` // links: constrained | unconstrained
	Conversation string          `json:"conversation"`
	Cells        map[string]Cell `json:"cells"` // by judge name
	// MeanRate is the mean of the judges' rates (judges with Judged > 0).
	MeanRate float64 `json:"mean_rate"`
}

// Result is one audit's outcome.
type Result struct {
	Kind    string   `json:"kind"` // extraction | links
	Runs    []string `json:"runs"`
	Judges  []string `json:"judges"`
	Items   int      `json:"items"` // items audited (after sampling)
	Total   int      `json:"total"` // items in the dump(s)
	Sample  int      `json:"sample,omitempty"`
	Seed    uint64   `json:"seed,omitempty"`
	Rows    []Row    `json:"rows"`
	Resumed int      `json:"resumed"` // verdicts read back from the audit file
	// Usage is the model calls this invocation made, by judge.
	Usage   []membench.Tally `json:"usage,omitempty"`
	Offline bool             `json:"offline"` // every judge is the offline backend
	// Unit is what a links audit counts (LinkUnitNarrative, LinkUnitLink):
	// not the paper's unit for narratives, so its table says so.
	Unit string `json:"unit,omitempty"`
}

// What one audited synthesis is (Result.Unit).
const (
	// LinkUnitNarrative: one narrative per consolidation window, the
	// synthesis the authors' code writes (docs/structmem.md).
	LinkUnitNarrative = "narrative per window"
	// LinkUnitLink: short links, several per window (dumps written before
	// narratives), the unit of the paper's Table 7.
	LinkUnitLink = "link"
	// LinkUnitMixed: dumps of both kinds together.
	LinkUnitMixed = "narratives and links mixed"
)

// paperLinkUnit is Table 7's unit as the paper counts it, for the note
// that sets ours beside it.
const paperLinkUnit = "the paper's Table 7 counts links, 73 to 131 per conversation (e.g. 982 constrained links judged by gpt-4o-mini over 10 conversations)"

// tally builds the rows: per group (first-seen order), each conversation in
// id order, then the overall row with Wilson intervals.
func tally(items []item, judges []Judge, recs map[string]Record) []Row {
	var groups []string
	convs := map[string][]string{}
	for _, it := range items {
		if _, ok := convs[it.group]; !ok {
			groups = append(groups, it.group)
		}
		convs[it.group] = append(convs[it.group], it.conv)
	}
	var rows []Row
	for _, g := range groups {
		slices.Sort(convs[g])
		convs[g] = slices.Compact(convs[g])
		cells := map[string]map[string]*Cell{} // conv -> judge
		for _, c := range append(convs[g], Overall) {
			cells[c] = map[string]*Cell{}
			for _, j := range judges {
				cells[c][j.Name] = &Cell{}
			}
		}
		for _, it := range items {
			if it.group != g {
				continue
			}
			for _, j := range judges {
				r, ok := recs[recKey(it.conv, it.id, j.Name, modelName(j.Model))]
				if !ok {
					continue
				}
				for _, c := range []*Cell{cells[it.conv][j.Name], cells[Overall][j.Name]} {
					switch {
					case r.Unparsed:
						c.Unparsed++
					case r.Supported:
						c.Judged++
					default:
						c.Judged++
						c.Unsupported++
					}
				}
			}
		}
		for _, c := range append(convs[g], Overall) {
			row := Row{Group: g, Conversation: c, Cells: map[string]Cell{}}
			sum, n := 0.0, 0
			for _, j := range judges {
				cl := *cells[c][j.Name]
				if cl.Judged > 0 {
					cl.Rate = float64(cl.Unsupported) / float64(cl.Judged)
					sum += cl.Rate
					n++
					if c == Overall {
						if lo, hi, err := stats.Wilson(cl.Unsupported, cl.Judged, 0.95); err == nil {
							cl.Lo, cl.Hi = &lo, &hi
						}
					}
				}
				row.Cells[j.Name] = cl
			}
			if n > 0 {
				row.MeanRate = sum / float64(n)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// callsOf counts the model calls of tallies.
func callsOf(ts []membench.Tally) (n int) {
	for _, t := range ts {
		n += t.Calls
	}
	return n
}

func pct(v float64) string { return report.F(100*v, 2) + "%" }

func wilsonText(c Cell) string {
	if c.Lo == nil {
		return ""
	}
	return fmt.Sprintf(" [%s, %s]", report.F(100**c.Lo, 2), report.F(100**c.Hi, 2))
}

// invalidText is a cell's count of replies with no verdict, beside its
// counts: " (+N invalid)", "" when none.
func invalidText(c Cell) string {
	if c.Unparsed == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d invalid)", c.Unparsed)
}

// Table renders the result in the paper's shape: Table 6 (rows =
// conversations + overall, columns = judges + mean hallucination rate) for
// extraction, Table 7 (rows = configuration × conversation, cells
// "S/T = rate") for links. Overall cells carry the Wilson 95% interval.
func (r *Result) Table() *report.Table {
	t := &report.Table{}
	if r.Kind == kindExtraction.name {
		t.Title = "Extraction hallucination rate (entries the judge finds unsupported by their utterance)"
		t.Header = append(append([]string{"Conversation"}, r.Judges...), "Mean")
		for _, row := range r.Rows {
			line := []string{row.Conversation}
			for _, j := range r.Judges {
				c := row.Cells[j]
				line = append(line, fmt.Sprintf("%s (%d/%d)%s%s", pct(c.Rate), c.Unsupported, c.Judged, wilsonText(c), invalidText(c)))
			}
			t.Rows = append(t.Rows, append(line, pct(row.MeanRate)))
		}
	} else {
		t.Title = "Spurious cross-event links (S of T links the judge finds unsupported by the cited events)"
		switch r.Unit {
		case LinkUnitNarrative:
			t.Title = "Spurious cross-event syntheses (S of T narratives, one per consolidation window, the judge finds unsupported by the cited events; not the paper's unit, links)"
		case LinkUnitMixed:
			t.Title = "Spurious cross-event syntheses (S of T syntheses the judge finds unsupported by the cited events; narratives and links mixed: not the paper's unit)"
		}
		t.Header = append([]string{"Configuration", "Conversation"}, r.Judges...)
		for _, row := range r.Rows {
			line := []string{row.Group, row.Conversation}
			for _, j := range r.Judges {
				c := row.Cells[j]
				line = append(line, fmt.Sprintf("%d/%d = %s%s%s", c.Unsupported, c.Judged, pct(c.Rate), wilsonText(c), invalidText(c)))
			}
			t.Rows = append(t.Rows, line)
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d of %d items audited", r.Items, r.Total))
	if r.Sample > 0 {
		t.Notes[0] += fmt.Sprintf(" (seeded sample: --sample %d --seed %d)", r.Sample, r.Seed)
	}
	t.Notes = append(t.Notes, "overall cells: [Wilson 95% interval, %]; (+N invalid): judge replies with no SUPPORTED/UNSUPPORTED verdict, left out of S and T")
	if r.Kind == kindLinks.name && r.Unit != "" && r.Unit != LinkUnitLink {
		t.Notes = append(t.Notes, "UNIT: T counts syntheses, one narrative per consolidation window (one per LoCoMo session, some 19 to 32 per conversation), each judged as a whole; "+paperLinkUnit+". A narrative with one unsupported claim counts as one spurious synthesis, so these rates are not the paper's rates of the same unit: compare them with the paper only as the share of narratives holding an unsupported claim")
	}
	unparsed := 0
	for _, row := range r.Rows {
		if row.Conversation == Overall {
			for _, c := range row.Cells {
				unparsed += c.Unparsed
			}
		}
	}
	if unparsed > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d judge replies had no SUPPORTED/UNSUPPORTED verdict and are left out (see unparsed records)", unparsed))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("model calls this time: %d; verdicts resumed from the audit file: %d", callsOf(r.Usage), r.Resumed))
	if r.Offline {
		t.Notes = append(t.Notes, "OFFLINE judges: these numbers measure the offline word-overlap heuristics (docs/audits.md), not a real model")
	}
	return t
}
