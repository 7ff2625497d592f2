package cliflag

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
)

// ExcludeGroups registers --exclude-group, the question groups a reader
// leaves out by the names the runs' answers carry (analysis.Abstaining
// for every abstaining question, "none" for none), def as the default;
// and the deprecated --exclude-category, LoCoMo's numbers for the same
// (analysis.CategoryExclusion). Either one's first use replaces the
// default, later uses add to it.
func ExcludeGroups(c *cobra.Command, dst *[]string, def []string, usage string) {
	*dst = append([]string(nil), def...)
	x := &exclusion{dst: dst}
	c.Flags().Var(&groupsValue{x}, "exclude-group", usage)
	c.Flags().Var(&categoriesValue{x}, "exclude-category", "deprecated: use --exclude-group (0 = none; 5 = abstention)")
	Deprecate(c, "exclude-category", "use --exclude-group (5 is --exclude-group abstention, 0 is --exclude-group none)")
}

// exclusion is the list both flags write.
type exclusion struct {
	dst     *[]string
	changed bool
}

func (x *exclusion) add(names []string) {
	if !x.changed {
		*x.dst, x.changed = []string{}, true
	}
	*x.dst = append(*x.dst, names...)
}

func (x *exclusion) String() string {
	if x.dst == nil || len(*x.dst) == 0 {
		return ""
	}
	return "[" + strings.Join(*x.dst, ",") + "]"
}

type groupsValue struct{ *exclusion }

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
	v.add(names)
	return nil
}

func (v *groupsValue) Type() string { return "strings" }

// categoriesValue is Bounded like every numeric flag: 0 to 5.
type categoriesValue struct{ *exclusion }

func (v *categoriesValue) Set(s string) error {
	var cs []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 5 {
			return fmt.Errorf("%q: %w", f, errRange(v.Range()+", comma-separated"))
		}
		cs = append(cs, n)
	}
	v.add(analysis.CategoryExclusion(cs))
	return nil
}

func (v *categoriesValue) Type() string  { return "intSlice" }
func (v *categoriesValue) Range() string { return "whole numbers from 0 to 5" }
func (v *categoriesValue) Outside() []string {
	return []string{"NaN", "Inf", "1.5", "-1", "6", "1,6"}
}
