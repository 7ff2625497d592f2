// Package prereg is `membench prereg`: lock a pre-registration file and
// test its hypotheses on finished runs.
package prereg

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/prereg"
)

// NewCmd returns the prereg command with lock and test.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "prereg",
		Short: "Pre-registered hypotheses: lock the plan, then test it on finished runs",
		Long: `A pre-registration YAML declares hypotheses (a primary non-inferiority
test with its margin; a secondary family of McNemar tests, Holm-corrected),
the systems (run directories or judgments files by name), the judge, the
data split, the planned n and the protocol (the judge spec and its prompt,
the answer prompt, every role's model, the embedder, the answer key and
the systems' options). See configs/prereg_seed_study.yaml.

  prereg lock FILE --run D      record FILE's sha256 and time in D/FILE.lock
                                (next to the results; default D: results)
  prereg test FILE --run D      run the declared tests on the runs under D (the
                                plan's system paths are relative to D);
                                refuses (exit 2) when FILE is not locked or
                                changed since locking, or a run it reads
                                started before the lock (--exploratory tests
                                them, every line labelled EXPLORATORY), or
                                a run differs from the locked protocol
                                (naming the field)

Lock the plan before any run of it exists: lock, then run, then test.
Every test naming "{kstar}" gets its own k*: the candidate's k whose mean
rendered tokens are closest to that test's comparator run. Holm counts
every hypothesis of a family the plan registers; a slot (named, not
defined) enters as "not run, p = 1".`,
		Args: cobra.NoArgs,
	}
	var lockDirs []string
	var allowPromptMismatch bool
	lock := &cobra.Command{
		Use:   "lock FILE",
		Short: "Record the plan's sha256 and the time in DIR/FILE.lock, next to the results (--run DIR)",
		Example: `  membench prereg lock configs/prereg_seed_study.yaml --run /tmp/seed-study/runs
  membench prereg lock configs/prereg_seed_study.yaml   # writes results/prereg_seed_study.yaml.lock`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lockDir, err := oneDir(lockDirs)
			if err != nil {
				return err
			}
			l, err := prereg.LockWith(args[0], lockDir, time.Now(), prereg.LockOptions{AllowPromptMismatch: allowPromptMismatch})
			if err != nil {
				return clierr.AsBad(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "locked %s: sha256 %s at %s (%s)\n", args[0], l.SHA256, l.LockedAt.Format(time.RFC3339), prereg.LockPath(args[0], lockDir))
			if pr := l.Protocol; pr != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "protocol: %s; every run is checked against it\n", pr.Summary())
				if lab := pr.PaperPrompts.Label(); lab != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "prompts: %s\n", pr.PaperPrompts.Note())
				}
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), "protocol: none registered (the plan has no protocol block); runs will not be checked against one")
			}
			return nil
		},
	}
	lock.Flags().BoolVar(&allowPromptMismatch, "allow-prompt-mismatch", false, "register prompt files whose sha256 is not the one the plan pins (paper_prompts:), every line of the test labelled")
	cliflag.Runs(lock, &lockDirs, "the runs directory 'prereg test --run' will read; the lock goes there (default: "+prereg.DefaultLockDir+")")
	var runs []string
	var asJSON, allowMixed, exploratory, invalidAsWrong bool
	test := &cobra.Command{
		Use:   "test FILE",
		Short: "Run the locked plan's tests on finished runs",
		Example: `  membench prereg lock configs/prereg_seed_study.yaml --run results/sweeps/seed-study/runs
  membench prereg test configs/prereg_seed_study.yaml --run results/sweeps/seed-study/runs --json
  membench prereg test configs/prereg_seed_study.yaml --run results/sweeps/seed-study/runs --exploratory`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runsDir, err := oneDir(runs)
			if err != nil {
				return err
			}
			rep, err := prereg.TestWith(args[0], runsDir, prereg.TestOptions{AllowMixed: allowMixed, Exploratory: exploratory, InvalidAsWrong: invalidAsWrong})
			if err != nil {
				var ch *prereg.ChangedError
				if errors.As(err, &ch) {
					return clierr.Bad("refusing to test: %v", err)
				}
				return clierr.AsBad(err)
			}
			return cliflag.PrintResult(cmd.OutOrStdout(), asJSON, rep, rep.Table())
		},
	}
	cliflag.Runs(test, &runs, "directory the plan's system paths are relative to, and where its lock is (default lock directory: "+prereg.DefaultLockDir+")")
	cliflag.JSON(test, &asJSON)
	cliflag.InvalidAs(test, &invalidAsWrong)
	test.Flags().BoolVar(&allowMixed, "allow-mixed", false, "test hypotheses on runs whose manifests differ (dataset, embedder, answer model, judge, backends), with a warning")
	test.Flags().BoolVar(&exploratory, "exploratory", false, "test runs that started before the plan was locked; every line and the JSON say EXPLORATORY (not a pre-registered result)")
	c.AddCommand(lock, test)
	return c
}

// oneDir is the single --run DIR of prereg ("" when none): a directory,
// not a list of runs, since the plan names its runs relative to it.
func oneDir(dirs []string) (string, error) {
	switch len(dirs) {
	case 0:
		return "", nil
	case 1:
		return dirs[0], nil
	}
	return "", clierr.Bad("prereg takes one --run DIR: the directory the plan's system paths are relative to (got %d)", len(dirs))
}
