// Package grade is `membench grade`: blind human grading in the terminal.
package grade

import (
	"context"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/runlog"
)

// Options are the grade command's inputs.
type Options struct {
	Runs  []string // run directories; answers are pooled and shuffled
	Human rejudge.HumanOptions
	JSON  bool      // session counts as JSON on Out; the items then go to Err
	In    io.Reader // one grade per line
	Out   io.Writer // the items shown to the grader (stdout), or the JSON
	Err   io.Writer
}

// NewCmd returns the grade command.
func NewCmd() *cobra.Command {
	o := &Options{}
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

With --json the items are shown on stderr and the session's counts are
printed as JSON on stdout. Compare judge and human afterwards with
membench agreement.`,
		Example: `  printf 'c\nw\nq\n' | membench grade --run results/A --run results/B --seed 7
  printf 'q\n' | membench grade --run results/A --exclude-group abstention --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.In, o.Out, o.Err = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, "run directory, glob, or directory of runs (repeatable; answers are pooled and shuffled)")
	cliflag.Uint64(c, &o.Human.Seed, "seed", 1, "shuffle seed (keep it across sessions to keep the order)")
	cliflag.ExcludeGroups(c, &o.Human.Exclude, nil, "leave out these groups, as the summaries name them (e.g. temporal; abstention = every question whose right answer is to decline)")
	cliflag.Int(c, &o.Human.Limit, "limit", 0, 0, math.MaxInt, "stop after this many grades (0 = all)")
	f.StringVar(&o.Human.Grader, "grader", "", "grader's name, stored in each judgment's reason")
	f.BoolVar(&o.JSON, "json", false, "print the session counts as JSON on stdout (the items go to stderr)")
	return c
}

// Run holds one grading session.
func Run(_ context.Context, o *Options) error {
	if len(o.Runs) == 0 {
		return clierr.Bad("grade needs --run DIR (repeatable)")
	}
	dirs, err := runlog.FindRuns(o.Runs)
	if err != nil {
		return clierr.AsBad(err)
	}
	shown := o.Out
	if o.JSON {
		shown = o.Err // stdout carries only the JSON
	}
	res, err := rejudge.Human(dirs, o.In, shown, o.Human)
	if err != nil {
		return clierr.AsBad(err)
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, res)
	}
	return nil
}
