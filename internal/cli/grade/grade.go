// Package grade is `membench grade`: blind human grading in the terminal.
package grade

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/study/grade"
)

// NewCmd returns the grade command.
func NewCmd() *cobra.Command {
	var (
		dirs   []string
		o      grade.HumanOptions
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "grade",
		Short: "Blind human grading of run answers; stored as judge \"human\"",
		Long: `Show each answer's question, gold answer and prediction, with system and
run names hidden, and read a grade per line: c (correct), w (wrong),
s (skip) or q (quit). With several --run, answers are pooled and shuffled
(--seed), so the grader cannot tell which system answered. Grades go to each
run's judgments.jsonl as judge "human" at once; a later session skips what
is graded and keeps the same order. Input may come from a pipe:

  printf 'c\nw\nq\n' | membench grade --run results/RUN

Compare judge and human afterwards with membench agreement.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(dirs) == 0 {
				return clierr.Bad("grade needs --run DIR (repeatable)")
			}
			res, err := grade.Human(dirs, cmd.InOrStdin(), cmd.OutOrStdout(), o)
			if err != nil {
				return clierr.AsBad(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.ErrOrStderr())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&dirs, "run", nil, "run directory (repeatable; answers are pooled and shuffled)")
	f.Uint64Var(&o.Seed, "seed", 1, "shuffle seed (keep it across sessions to keep the order)")
	f.IntSliceVar(&o.Exclude, "exclude-category", nil, "leave out these categories (e.g. 5 for LoCoMo adversarial)")
	f.IntVar(&o.Limit, "limit", 0, "stop after this many grades (0 = all)")
	f.StringVar(&o.Grader, "grader", "", "grader's name, stored in each judgment's reason")
	f.BoolVar(&asJSON, "json", false, "print the session counts as JSON on stderr")
	return c
}
