package cliflag

import (
	"github.com/spf13/cobra"

	"github.com/membench/membench/runlog"
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
		return runlog.InvalidWrong
	}
	return runlog.InvalidSkip
}

func (v *invalidAsValue) Set(s string) error {
	if err := runlog.CheckInvalidAs(s); err != nil {
		return err
	}
	*v.dst = s == runlog.InvalidWrong
	return nil
}

func (v *invalidAsValue) Type() string { return "HOW" }
