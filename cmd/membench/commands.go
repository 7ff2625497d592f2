package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// commands lists every subcommand; one line per command folder.
func commands() []*cobra.Command {
	return []*cobra.Command{}
}

func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.Contains(s, "accepts ") || strings.Contains(s, "requires at least") || strings.Contains(s, "unknown flag") || strings.Contains(s, "unknown shorthand")
}
