package cliflag

import (
	"fmt"

	"github.com/spf13/cobra"
)

// InvalidAs registers --invalid-as skip|wrong: how invalid verdicts (a
// judge's reply held none) are read. skip (the default) leaves them out of
// every figure and counts them beside n; wrong counts them as WRONG, as
// the papers' scripts do (any label but CORRECT scores 0), and still
// counts them. dst is set for wrong.
func InvalidAs(c *cobra.Command, dst *bool) {
	c.Flags().Var(&invalidAsValue{dst}, "invalid-as", "how verdicts a judge gave none on count: skip (left out of n and the scores, counted beside n) or wrong (counted as WRONG, as the papers' scripts count any label but CORRECT)")
}

type invalidAsValue struct{ dst *bool }

func (v *invalidAsValue) String() string {
	if v.dst != nil && *v.dst {
		return "wrong"
	}
	return "skip"
}

func (v *invalidAsValue) Set(s string) error {
	switch s {
	case "", "skip", "wrong":
	default:
		return fmt.Errorf("--invalid-as %q: give skip (leave invalid verdicts out, counted) or wrong (count them as WRONG, as the papers' scripts do)", s)
	}
	*v.dst = s == "wrong"
	return nil
}

func (v *invalidAsValue) Type() string { return "HOW" }
