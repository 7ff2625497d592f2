// Package version is `membench version` (and `membench --version`): the
// version run manifests record.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/internal/stamp"
)

// Line is what `membench version` and `membench --version` print: the
// version as manifests record it, and where a revision came from when the
// build carries no VCS stamp.
func Line() string {
	b := stamp.Of()
	line := "membench " + b.String()
	if b.From == "checkout" {
		line += " (revision read from the source checkout at run time: this build has no VCS stamp)"
	}
	return line
}

// NewCmd returns the version command.
func NewCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print membench's version (as run manifests record it)",
		Long: `Prints the module version of a release build, else devel+REVISION from the
build's VCS stamp, with -dirty when the tree had uncommitted changes. A
build without a stamp (go run, GOFLAGS=-buildvcs=false) asks git in the
source tree it was compiled from, and says so; "dev" when nothing is known.
Every run's manifest.json records the same (membench, git_commit, git_dirty,
version_from).`,
		Example: `  membench version
  membench version --json
  membench --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				b := stamp.Of()
				return cliflag.PrintJSON(cmd.OutOrStdout(), struct {
					Membench string `json:"membench"` // as manifests record it
					stamp.Build
				}{b.String(), b})
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), Line())
			return err
		},
	}
	cliflag.JSON(c, &asJSON)
	return c
}
