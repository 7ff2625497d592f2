// Package systemscmd is `membench systems`: the registered memory systems
// and their options.
package systemscmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/report"
	"github.com/membench/membench/systems"
)

// NewCmd returns the systems command.
func NewCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "systems",
		Short: "List the memory systems and their options (set with --opt key=value)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t := &report.Table{Header: []string{"system", "options (defaults)", "description"}}
			for _, n := range systems.Names() {
				s, _ := systems.Lookup(n)
				var kv []string
				for k, v := range s.Defaults {
					kv = append(kv, fmt.Sprintf("%s=%s", k, v))
				}
				sort.Strings(kv)
				t.Add(n, strings.Join(kv, " "), s.Description)
			}
			return t.Terminal(cmd.OutOrStdout())
		},
	}
}
