// Package prereg is `membench prereg`: lock a pre-registration file and
// test its hypotheses on finished runs.
package prereg

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/study/prereg"
)

// NewCmd returns the prereg command with lock and test.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "prereg",
		Short: "Pre-registered hypotheses: lock the plan, then test it on finished runs",
		Long: `A pre-registration YAML declares hypotheses (a primary non-inferiority
test with its margin; a secondary family of McNemar tests, Holm-corrected),
the systems (run directories or judgments files by name), the judge, the
data split and the planned n. See configs/prereg_seed_study.yaml.

  prereg lock FILE --runs-dir D record FILE's sha256 and time in D/FILE.lock
                                (next to the results; default D: results)
  prereg test FILE --runs-dir D run the declared tests; refuses (exit 2) when
                                FILE is not locked or changed since locking`,
		Args: cobra.NoArgs,
	}
	var lockDir string
	lock := &cobra.Command{
		Use:   "lock FILE",
		Short: "Record the plan's sha256 and the time in RUNS-DIR/FILE.lock, next to the results",
		Example: `  membench prereg lock configs/prereg_seed_study.yaml --runs-dir results/sweeps/seed-study/runs
  membench prereg lock my_plan.yaml                     # writes results/my_plan.yaml.lock`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := prereg.Lock(args[0], lockDir, time.Now())
			if err != nil {
				return clierr.AsBad(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "locked %s: sha256 %s at %s (%s)\n", args[0], l.SHA256, l.LockedAt.Format(time.RFC3339), prereg.LockPath(args[0], lockDir))
			return nil
		},
	}
	lock.Flags().StringVar(&lockDir, "runs-dir", "", "the runs directory `prereg test --runs-dir` will read; the lock goes there (default: "+prereg.DefaultLockDir+")")
	var runsDir string
	var asJSON, allowMixed bool
	test := &cobra.Command{
		Use:   "test FILE",
		Short: "Run the locked plan's tests on finished runs",
		Example: `  membench prereg lock configs/prereg_seed_study.yaml --runs-dir results/sweeps/seed-study/runs
  membench prereg test configs/prereg_seed_study.yaml --runs-dir results/sweeps/seed-study/runs`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := prereg.TestRuns(args[0], runsDir, allowMixed)
			if err != nil {
				var ch *prereg.ChangedError
				if errors.As(err, &ch) {
					return clierr.Bad("refusing to test: %v", err)
				}
				return clierr.AsBad(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return rep.Table().Terminal(cmd.OutOrStdout())
		},
	}
	test.Flags().StringVar(&runsDir, "runs-dir", "", "directory the plan's system paths are relative to, and where its lock is (default lock directory: "+prereg.DefaultLockDir+")")
	test.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	test.Flags().BoolVar(&allowMixed, "allow-mixed", false, "test hypotheses on runs whose manifests differ (dataset, embedder, answer model, judge, backends), with a warning")
	c.AddCommand(lock, test)
	return c
}
