package cliflag

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
)

// ExcludeGroups registers --exclude-group, the question groups a reader
// leaves out by the names the runs' answers carry (analysis.Abstaining
// for every abstaining question, "none" for none), def as the default.
// Its first use replaces the default, later uses add to it.
func ExcludeGroups(c *cobra.Command, dst *[]string, def []string, usage string) {
	*dst = append([]string(nil), def...)
	c.Flags().Var(&groupsValue{dst: dst}, "exclude-group", usage)
}

type groupsValue struct {
	dst     *[]string
	changed bool
}

func (v *groupsValue) Set(s string) error {
	var names []string
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case "":
			return fmt.Errorf("%q: %w", s, clierr.Bad("give group names, comma-separated (%s, or none)", analysis.Abstaining))
		case "none":
		default:
			names = append(names, f)
		}
	}
	if !v.changed {
		*v.dst, v.changed = []string{}, true
	}
	*v.dst = append(*v.dst, names...)
	return nil
}

func (v *groupsValue) Type() string { return "strings" }

func (v *groupsValue) String() string { return listString(v.dst) }
