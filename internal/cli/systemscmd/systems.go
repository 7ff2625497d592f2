// Package systemscmd is `membench systems`: the registered memory systems
// and their options.
package systemscmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/systems"
)

// Options are the systems command's inputs: only where to print.
type Options struct {
	Out io.Writer
}

// NewCmd returns the systems command.
func NewCmd() *cobra.Command {
	o := &Options{}
	return &cobra.Command{
		Use:   "systems",
		Short: "List the memory systems and their options (set with --opt key=value)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
}

// Run lists every registered system, its description and its defaults.
func Run(_ context.Context, o *Options) error {
	w := o.Out
	for _, n := range systems.Names() {
		s, _ := systems.Lookup(n)
		var kv []string
		for k, v := range s.Defaults {
			kv = append(kv, fmt.Sprintf("%s=%s", k, v))
		}
		sort.Strings(kv)
		fmt.Fprintf(w, "%s\n  %s\n", n, s.Description)
		if len(kv) > 0 {
			fmt.Fprintf(w, "  options: %s\n", strings.Join(kv, " "))
		}
	}
	return nil
}
