// Package diagnose is `membench diagnose`: where retrieval loses evidence.
package diagnose

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/internal/report"
)

// Options are the diagnose command's inputs.
type Options struct {
	Runs        []string // --run: the first is decomposed; all go into the abstention table
	Judge       string   // "" = the run's primary judge
	PerQuestion string   // --out: CSV file, one line per question
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
apart. Overall leaves out the questions whose right answer is to decline
(LoCoMo adversarial, LongMemEval _abs).

Correct abstention: the share of adversarial (category 5) and LongMemEval
_abs questions the --judge accepted (default: the run's primary judge, its
first verdict judge; with f1 a category-5 score is 1 exactly when the answer
declines). --run is repeatable and takes globs and directories of runs: the
first run is decomposed, and every run goes into the abstention table,
ordered by system and k.

Where the raw-turn selection study ("Under a tight context budget, raw-turn
selection replaces LLM-extracted memory") reports the same figure on the
same questions, its number is printed next to ours, with the decision
model, embedder and decision prompt each side used: its loss
decomposition for turns-rerank on its 9 held-out LoCoMo conversations
(all but conv-26, 1,388 scored questions, published answer key), and its
correct-abstention rates of turns-cosine, turns-rerank and turns-llm at
k=3 on its split (conv-44, 47, 48, 49, 50). On any other question set
(conv-26, a --limit, another answer key) the output says the paper
column does not apply, and why.`,
		Example: `  membench diagnose --run results/A
  membench diagnose --run results/A --run 'results/sample-*' --judge f1 --out diag.csv
  membench diagnose --run results/A --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, "run to decompose; more runs (globs, directories of runs) join the abstention table (repeatable)")
	cliflag.JudgeName(c, &o.Judge, "judge whose verdicts give the abstention rate (default: the run's primary judge)")
	f.StringVar(&o.PerQuestion, "out", "", "write one CSV line per question to FILE")
	f.StringVar(&o.Format, "format", "terminal", "table format: terminal, markdown or csv")
	cliflag.JSON(c, &o.JSON)
	return c
}

// Run decomposes the run's retrieval losses and prints the tables.
func Run(ctx context.Context, o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("diagnose needs --run DIR (a run directory)")
	}
	runs, err := cliflag.LoadRuns(o.Runs)
	if err != nil {
		return err
	}
	run := runs[0]
	if err := analysis.CheckJudge(run, o.Judge); err != nil {
		return clierr.AsBad(err)
	}
	d, err := analysis.Diagnose(run, o.Judge)
	if err != nil {
		return err
	}
	rows := []analysis.AbstentionRate{d.Abstention}
	for _, r := range runs[1:] {
		a, err := analysis.Abstention(r, d.Abstention.Judge)
		if err != nil {
			return err
		}
		rows = append(rows, a)
	}
	if o.PerQuestion != "" {
		f, err := os.Create(o.PerQuestion)
		if err != nil {
			return clierr.Bad("--out: %v", err)
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
		res := map[string]any{
			"diagnosis":  d,
			"rates":      rates,
			"abstention": rows,
		}
		if d.HasPaperFigures() {
			res["paper"] = map[string]any{
				"source":                analysis.PaperStudy,
				"all_in_candidates_pct": analysis.PaperAllInCandidates, "any_in_candidates_pct": analysis.PaperAnyInCandidates,
				"dropped_by_selector_pct": analysis.PaperDroppedBySelector, "lost_at_candidates_pct": analysis.PaperLostAtCandidates,
				"lost_at_selection_pct": analysis.PaperLostAtSelection, "temporal_dropped_pct": analysis.PaperTemporalDropped,
				"question_set": analysis.HeldOutSet, "decision_model": analysis.PaperDecisionModel,
				"embedder": analysis.PaperEmbedder, "decision_prompt": analysis.PaperDecisionPrompt,
			}
		}
		if slices.ContainsFunc(rows, analysis.AbstentionRate.HasPaper) {
			res["paper_abstention"] = map[string]any{
				"source": analysis.PaperStudy, "question_set": analysis.PrimarySet, "abstention_k3_pct": analysis.PaperAbstentionK3,
			}
		}
		return cliflag.PrintJSON(out, res)
	}
	tables := []*report.Table{}
	if t := d.CandidateTable(); t != nil {
		tables = append(tables, t)
	}
	tables = append(tables, d.RecallTable())
	if t := d.PaperTable(); t != nil {
		tables = append(tables, t)
	}
	tables = append(tables, analysis.AbstentionTable(rows))
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := t.Write(out, o.Format); err != nil {
			return clierr.AsBad(err)
		}
	}
	if d.PaperNotApplicable != "" && o.Format != "csv" {
		fmt.Fprintf(out, "\nno paper column: the raw-turn selection study's loss decomposition does not apply here: %s\n", d.PaperNotApplicable)
	}
	if d.CandidateTable() == nil && o.Format != "csv" {
		fmt.Fprintf(out, "\n%s has no candidate stage (no record lists candidates); only the rendered context is decomposed\n", d.System)
	}
	if o.PerQuestion != "" && o.Format != "csv" {
		fmt.Fprintf(out, "per-question outcomes: %s\n", o.PerQuestion)
	}
	return nil
}
