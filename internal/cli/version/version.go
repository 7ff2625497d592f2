// Package version is `membench version`: the version run manifests record.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/membench/membench/harness"
)

// NewCmd returns the version command.
func NewCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print membench's version (as run manifests record it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := harness.Version()
			if c := harness.GitCommit(); c != "" && v == "dev" {
				v += " (git " + c + ")" // built without VCS stamping: ask the checkout
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "membench", v)
			return err
		},
	}
}
