// Package kstar is `membench kstar`: token-matched budget selection.
package kstar

import (
	"encoding/json"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/internal/cli/clierr"
)

// NewCmd returns the kstar command.
func NewCmd() *cobra.Command {
	var (
		runsDir, reference, candidate, kRange string
		referenceK                            int
		asJSON                                bool
	)
	c := &cobra.Command{
		Use:   "kstar",
		Short: "Pick the candidate's k whose mean rendered tokens match a reference run",
		Long: `Token matching (papers.md B): take the reference system's mean rendered
context tokens at --reference-k, and pick the candidate's k* whose mean is
closest (ties go to the smaller k). Reads manifest.json (config.system,
config.k, rendered_tokens) of every run directory under --runs-dir; k=0
resolves to the run's --opt k or the system's default k. Candidate runs on
another question set (dataset, data file, conversations, limit) than the
reference are skipped. Ks of the range without a run are listed with the
membench run commands that would measure them.`,
		Example: `  membench kstar --runs-dir results --reference turns-cosine --candidate turns-rerank --k 1..40
  membench kstar --runs-dir results --reference engram --reference-k 3 --candidate turns-rerank --k 3,5,7,9 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if reference == "" || candidate == "" {
				return clierr.Bad("kstar needs --reference SYSTEM and --candidate SYSTEM")
			}
			if referenceK < 1 {
				return clierr.Bad("--reference-k %d: want a positive k (the paper uses 3)", referenceK)
			}
			ks, err := analysis.ParseKRange(kRange)
			if err != nil {
				return clierr.AsBad(err)
			}
			if !runlog.IsRunDir(runsDir) {
				if _, err := runlog.FindRuns([]string{runsDir}); err != nil {
					return clierr.Bad("--runs-dir %s: no run directories there (run `membench run --results %s` first)", runsDir, runsDir)
				}
			}
			runs, err := analysis.ScanTokens(runsDir)
			if err != nil {
				return clierr.AsBad(err)
			}
			res, err := analysis.KStar(runs, analysis.KStarQuery{Reference: reference, ReferenceK: referenceK, Candidate: candidate, Ks: ks, ResultsDir: runsDir})
			if err != nil {
				return clierr.AsBad(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return res.Table().Terminal(cmd.OutOrStdout())
		},
	}
	f := c.Flags()
	f.StringVar(&runsDir, "runs-dir", "results", "directory holding run directories")
	f.StringVar(&reference, "reference", "", "comparator system, e.g. engram or turns-cosine")
	f.IntVar(&referenceK, "reference-k", 3, "the comparator's k")
	f.StringVar(&candidate, "candidate", "", "system whose k is matched, e.g. turns-rerank")
	f.StringVar(&kRange, "k", "1..40", "candidate ks to consider: 1..40, 3-9 or 3,5,7")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return c
}
