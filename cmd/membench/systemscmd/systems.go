// Package systemscmd is `membench systems`: the registered memory systems
// and their options.
package systemscmd

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/systems"
)

// Options are the systems command's inputs: only where to print.
type Options struct {
	JSON bool
	Out  io.Writer
}

// NewCmd returns the systems command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "systems",
		Short: "List the memory systems and their options (set with --opt key=value)",
		Long: `List every memory system membench can run, what it stores and reads, and
its options with their defaults. Set an option on a run with
--opt key=value (e.g. --opt k=5); --k is the retrieval budget.`,
		Example: `  membench systems
  membench systems --json
  membench run --system turns-rerank --opt n=30 --opt floor=10 --k 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	cliflag.JSON(c, &o.JSON)
	return c
}

// System is one entry of `systems --json`.
type System struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Options     map[string]string `json:"options"` // option -> default
}

// Run lists every registered system, its description and its defaults.
func Run(_ context.Context, o *Options) error {
	w := o.Out
	if o.JSON {
		out := []System{}
		for _, n := range systems.Names() {
			s, _ := systems.Lookup(n)
			opts := map[string]string{}
			maps.Copy(opts, s.Defaults)
			out = append(out, System{Name: n, Description: s.Description, Options: opts})
		}
		return cliflag.PrintJSON(w, out)
	}
	for _, n := range systems.Names() {
		s, _ := systems.Lookup(n)
		var kv []string
		for k, v := range s.Defaults {
			kv = append(kv, fmt.Sprintf("%s=%s", k, v))
		}
		slices.Sort(kv)
		fmt.Fprintf(w, "%s\n  %s\n", n, s.Description)
		if len(kv) > 0 {
			fmt.Fprintf(w, "  options: %s\n", strings.Join(kv, " "))
		}
	}
	return nil
}
