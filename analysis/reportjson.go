package analysis

import (
	"github.com/membench/membench/runlog"
)

// ReportJSON is `membench report --json`: per run what the tables show,
// with numbers as numbers (null where a table prints "-").
type ReportJSON struct {
	Judge string      `json:"judge"` // the judge of Table 2 and 4 and of the interval
	Mixed []string    `json:"mixed,omitempty"`
	Runs  []ReportRun `json:"runs"`
}

// ReportRun is one run's row.
type ReportRun struct {
	Dir     string        `json:"dir"`
	RunID   string        `json:"run_id"`
	Label   string        `json:"label"` // the table's "method" cell
	System  string        `json:"system"`
	K       *int          `json:"k"` // null when the system has no k
	Dataset string        `json:"dataset"`
	Status  runlog.Status `json:"status"`
	Offline bool          `json:"offline"`
	// Synthetic is the SYNTHETIC line of a run on a `datasets synth` file.
	Synthetic string          `json:"synthetic,omitempty"`
	Overall   ReportOverall   `json:"overall"` // under Judge
	Judges    []string        `json:"judges"`  // the run's judges, primary first as the manifest lists them
	Summary   *runlog.Summary `json:"summary"` // per-category scores of every judge, build cost, context tokens
	// AuthorsCalls is the build's calls on the StructMem authors' counter
	// (Table 2's Authors' calls), null for a system without it.
	AuthorsCalls *int `json:"authors_calls"`
}

// ReportOverall is the overall score under one judge with its count and,
// for 0/1 judges, the Wilson 95% interval in percent.
type ReportOverall struct {
	Score *float64 `json:"score"`
	N     int      `json:"n"`
	Lo    *float64 `json:"ci_low"`
	Hi    *float64 `json:"ci_high"`
}

// Report builds the JSON form of report's tables.
func Report(runs []*runlog.Run, judgeName string, mixed []string) (ReportJSON, error) {
	out := ReportJSON{Judge: judgeName, Mixed: mixed, Runs: []ReportRun{}}
	for _, r := range runs {
		o, err := OverallOf(r, judgeName)
		if err != nil {
			return out, err
		}
		row := ReportRun{
			Dir: r.Dir, RunID: r.ID(), Label: RunLabel(r), System: r.Manifest.Config.System,
			Dataset: r.Manifest.Dataset, Status: r.Status(), Offline: r.Manifest.Offline, Synthetic: SyntheticNote(r.Manifest),
			Overall: ReportOverall{Score: finite(o.Score), N: o.N},
			Judges:  r.Manifest.Judges, Summary: summaryOf(r),
		}
		if o.Binary && o.N > 0 {
			row.Overall.Lo, row.Overall.Hi = finite(o.Lo), finite(o.Hi)
		}
		if k, _, ok := ResolveK(r.Manifest); ok {
			row.K = &k
		}
		if n, ok := authorsCalls(r); ok {
			row.AuthorsCalls = &n
		}
		out.Runs = append(out.Runs, row)
	}
	return out, nil
}
