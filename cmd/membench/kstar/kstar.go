// Package kstar is `membench kstar`: token-matched budget selection.
package kstar

import (
	"context"
	"io"
	"strings"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/systems"
)

// Options are the kstar command's inputs.
type Options struct {
	Runs                 []string // --run: run directories, globs, directories of runs (default results)
	Reference, Candidate string   // systems
	ReferenceK           int
	KRange               string // 1..40, 3-9 or 3,5,7
	JSON                 bool
	AllowMixed           bool // match runs whose manifests differ
	// ReferenceOpts and CandidateOpts are --opt key=value settings (apart
	// from k) of the runs to match; none = the systems' defaults.
	ReferenceOpts, CandidateOpts []string
	Out                          io.Writer
}

// NewCmd returns the kstar command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "kstar",
		Short: "Pick the candidate's k whose mean rendered tokens match a reference run",
		Long: `Token matching, as the raw-turn selection study ("Under a tight context
budget, raw-turn selection replaces LLM-extracted memory") matches budgets:
take the reference system's mean rendered context tokens at --reference-k,
and pick the candidate's k* whose mean is closest (ties go to the smaller
k). Reads manifest.json (config.system, config.k, rendered_tokens) of every
run given with --run (run directories, globs, or directories holding runs;
default results); k=0
resolves to the run's --opt k or the system's default k. Only runs of the
reference's question set (manifest question_set_sha256) count, and only
runs made with the options asked for (--reference-opt, --candidate-opt;
default: the systems' defaults): a run with other options never stands in
for them. An incomplete run (fewer questions retrieved than its question
set) is refused (exit 2) unless a complete run at that k exists. Ks of the
range without a run are listed with the membench run commands that would
measure them (consecutive ks as one line, a shell loop over k; --json
lists one command per k); each command repeats every setting of the reference run
(data, questions, turn step, models, judges, prompts, embedder). The
reference and the matched runs must agree on everything that changes an
answer but k (exit 2 otherwise; --allow-mixed shows them with a warning).`,
		Example: `  membench run --system turns-rerank --k 3 && membench kstar --reference turns-rerank --reference-k 3 --candidate turns-cosine --k 1..10
  membench kstar --run results --reference turns-rerank --reference-k 3 --candidate turns-cosine --k 3,5,10 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, cliflag.RunsUsage+" (default: results)")
	f.StringVar(&o.Reference, "reference", "", "comparator system, e.g. turns-cosine or extract-rerank")
	_ = c.RegisterFlagCompletionFunc("reference", cliflag.CompleteSystems)
	cliflag.Int(c, &o.ReferenceK, "reference-k", 3, 1, cliflag.MaxK, "the comparator's k")
	f.StringVar(&o.Candidate, "candidate", "", "system whose k is matched, e.g. turns-rerank")
	_ = c.RegisterFlagCompletionFunc("candidate", cliflag.CompleteSystems)
	f.StringVar(&o.KRange, "k", "1..40", "candidate ks to consider: 1..40, 3-9 or 3,5,7")
	f.StringArrayVar(&o.ReferenceOpts, "reference-opt", nil, "the reference run's --opt key=value (repeatable; k aside); default: the system's defaults")
	f.StringArrayVar(&o.CandidateOpts, "candidate-opt", nil, "the candidate runs' --opt key=value (repeatable; k aside); default: the system's defaults")
	cliflag.JSON(c, &o.JSON)
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "match runs whose manifests differ (embedder, dataset, question set, backends), with a warning")
	return c
}

// Run scans the runs' token means and prints k*.
func Run(ctx context.Context, o *Options) error {
	if o.Reference == "" || o.Candidate == "" {
		return clierr.Bad("kstar needs --reference SYSTEM and --candidate SYSTEM")
	}
	if o.ReferenceK < 1 {
		return clierr.Bad("--reference-k %d: want a positive k (the paper uses 3)", o.ReferenceK)
	}
	ks, err := analysis.ParseKRange(o.KRange)
	if err != nil {
		return clierr.AsBad(err)
	}
	if len(o.Runs) == 0 {
		o.Runs = []string{cliflag.DefaultResults}
	}
	dirs, err := runlog.FindRuns(o.Runs)
	if err != nil {
		return clierr.Bad("%v (run `membench run --results DIR` first)", err)
	}
	runs, err := analysis.ScanTokenDirs(dirs)
	if err != nil {
		return clierr.AsBad(err)
	}
	// Suggested run commands write where the runs were found.
	resultsDir := cliflag.DefaultResults
	if len(o.Runs) == 1 && !runlog.IsRunDir(o.Runs[0]) && !strings.ContainsAny(o.Runs[0], "*?[") {
		resultsDir = o.Runs[0]
	}
	refOpts, err := systems.Parse(o.ReferenceOpts)
	if err != nil {
		return clierr.AsBad(err)
	}
	candOpts, err := systems.Parse(o.CandidateOpts)
	if err != nil {
		return clierr.AsBad(err)
	}
	res, err := analysis.KStar(runs, analysis.KStarQuery{Reference: o.Reference, ReferenceK: o.ReferenceK, Candidate: o.Candidate, Ks: ks, ResultsDir: resultsDir,
		ReferenceOptions: refOpts, CandidateOptions: candOpts, AllowMixed: o.AllowMixed})
	if err != nil {
		return clierr.AsBad(err)
	}
	return cliflag.PrintResult(o.Out, o.JSON, res, res.Table())
}
