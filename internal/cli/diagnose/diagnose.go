// Package diagnose is `membench diagnose`: where retrieval loses evidence.
package diagnose

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/report"
)

// Options are the diagnose command's inputs.
type Options struct {
	Run         string   // run directory to decompose
	Runs        []string // more runs for the abstention table
	Judge       string   // "" = the first judge that is not a metric
	PerQuestion string   // CSV file, one line per question
	Format      string   // terminal, markdown or csv
	JSON        bool
	Out         io.Writer
}

// NewCmd returns the diagnose command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "diagnose",
		Short: "Decompose retrieval losses: candidate stage vs selection, evidence recall, abstention",
		Long: `Read a run's retrievals.jsonl, answers.jsonl and judgments.jsonl and report
where evidence is lost. An item hits evidence when its sources include an
evidence turn id.

For selectors with a candidate stage (records with candidates, e.g.
turns-rerank): per category, the share of questions with all / at least one
evidence turn among the candidates; "lost at candidate stage" = no evidence
turn among the candidates; "lost at selection" = some evidence among the
candidates but none among the selected items; "dropped by selector" = lost
at selection / questions with at least one evidence turn in the candidates.
For every system: evidence recall of the rendered context (all evidence hit,
at least one, mean fraction). Questions without evidence ids are counted
apart. Overall leaves out LoCoMo category 5.

Correct abstention: the share of adversarial (category 5) and LongMemEval
_abs questions the --judge accepted (default: the first judge that is not
f1/bleu1/em; with f1 a category-5 score is 1 exactly when the answer
declines). --runs adds more runs to the abstention table, ordered by system
and k. The seed paper's numbers are printed next to ours.`,
		Example: `  membench diagnose --run results/locomo-turns-rerank-0123456789
  membench diagnose --run results/A --runs 'results/locomo-turns-*' --judge llm --per-question diag.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Run, "run", "", "run directory to decompose")
	f.StringArrayVar(&o.Runs, "runs", nil, "more run directories (globs, or a directory of runs) for the abstention table (repeatable)")
	f.StringVar(&o.Judge, "judge", "", "judge whose verdicts give the abstention rate (default: first judge that is not f1/bleu1/em)")
	f.StringVar(&o.PerQuestion, "per-question", "", "write one CSV line per question to FILE")
	f.StringVar(&o.Format, "format", "terminal", "table format: terminal, markdown or csv")
	f.BoolVar(&o.JSON, "json", false, "print JSON instead of tables")
	return c
}

// Run decomposes the run's retrieval losses and prints the tables.
func Run(ctx context.Context, o *Options) error {
	if o.Run == "" {
		return clierr.Bad("diagnose needs --run DIR (a run directory)")
	}
	if !runlog.IsRunDir(o.Run) {
		return clierr.Bad("--run %s: no manifest.json there; give one run directory (use --runs for several)", o.Run)
	}
	run, err := runlog.Load(o.Run)
	if err != nil {
		return clierr.AsBad(err)
	}
	if err := analysis.CheckJudge(run, o.Judge); err != nil {
		return clierr.AsBad(err)
	}
	d, err := analysis.Diagnose(run, o.Judge)
	if err != nil {
		return err
	}
	rows := []analysis.AbstentionRate{d.Abstention}
	if len(o.Runs) > 0 {
		dirs, err := runlog.FindRuns(o.Runs)
		if err != nil {
			return clierr.AsBad(err)
		}
		for _, dir := range dirs {
			if dir == o.Run {
				continue
			}
			r, err := runlog.Load(dir)
			if err != nil {
				return clierr.AsBad(err)
			}
			a, err := analysis.Abstention(r, d.Abstention.Judge)
			if err != nil {
				return err
			}
			rows = append(rows, a)
		}
	}
	if o.PerQuestion != "" {
		f, err := os.Create(o.PerQuestion)
		if err != nil {
			return clierr.Bad("--per-question: %v", err)
		}
		if err := d.WritePerQuestion(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	out := o.Out
	if o.JSON {
		rates := []analysis.Rates{}
		for _, g := range d.Groups {
			rates = append(rates, g.Rates())
		}
		rates = append(rates, d.Overall.Rates())
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"diagnosis":  d,
			"rates":      rates,
			"abstention": rows,
			"paper": map[string]any{
				"all_in_candidates_pct": analysis.PaperAllInCandidates, "any_in_candidates_pct": analysis.PaperAnyInCandidates,
				"dropped_by_selector_pct": analysis.PaperDroppedBySelector, "lost_at_candidates_pct": analysis.PaperLostAtCandidates,
				"lost_at_selection_pct": analysis.PaperLostAtSelection, "temporal_dropped_pct": analysis.PaperTemporalDropped,
				"abstention_k3_pct": analysis.PaperAbstentionK3,
			},
		})
	}
	tables := []*report.Table{}
	if t := d.CandidateTable(); t != nil {
		tables = append(tables, t)
	}
	tables = append(tables, d.RecallTable(), d.PaperTable(), analysis.AbstentionTable(rows))
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := t.Write(out, o.Format); err != nil {
			return clierr.AsBad(err)
		}
	}
	if d.CandidateTable() == nil && o.Format != "csv" {
		fmt.Fprintf(out, "\n%s has no candidate stage (no record lists candidates); only the rendered context is decomposed\n", d.System)
	}
	if o.PerQuestion != "" && o.Format != "csv" {
		fmt.Fprintf(out, "per-question outcomes: %s\n", o.PerQuestion)
	}
	return nil
}
