package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/agreement"
	"github.com/membench/membench/internal/cli/compare"
	clidatasets "github.com/membench/membench/internal/cli/datasets"
	"github.com/membench/membench/internal/cli/diagnose"
	"github.com/membench/membench/internal/cli/kstar"
	clireport "github.com/membench/membench/internal/cli/report"
	"github.com/membench/membench/internal/cli/run"
	"github.com/membench/membench/internal/cli/score"
	"github.com/membench/membench/internal/cli/systemscmd"

	// Registrations: systems, judges' and answerer's offline heuristics.
	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/systems/all"
)

// commands lists every subcommand; one line per command folder.
func commands() []*cobra.Command {
	return []*cobra.Command{
		run.NewCmd(),
		score.NewCmd(),
		systemscmd.NewCmd(),
		clidatasets.NewCmd(),
		kstar.NewCmd(),
		diagnose.NewCmd(),
		clireport.NewCmd(),
		compare.NewCmd(),
		agreement.NewCmd(),
	}
}

func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.Contains(s, "accepts ") || strings.Contains(s, "requires at least") || strings.Contains(s, "unknown flag") || strings.Contains(s, "unknown shorthand")
}
