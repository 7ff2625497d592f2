package cliflag

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// Completion functions for flag values (cobra's __complete and the shell
// scripts `membench completion SHELL` writes).

// DefaultResults is where runs live unless --results says otherwise.
const DefaultResults = "results"

func withPrefix(names []string, prefix string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !strings.HasPrefix(n, prefix) })
}

// CompleteSystems offers the registered memory systems.
func CompleteSystems(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range withPrefix(systems.Names(), toComplete) {
		desc := ""
		if s, err := systems.Lookup(n); err == nil {
			desc = firstLine(s.Description)
		}
		out = append(out, describe(n, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteDatasets offers the dataset names run and score take.
func CompleteDatasets(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return withPrefix(datasets.Names(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// CompleteRegistry offers the dataset registry's entries (datasets fetch,
// verify).
func CompleteRegistry(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, e := range datasets.Registry {
		if strings.HasPrefix(e.Name, toComplete) {
			out = append(out, describe(e.Name, e.File))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteJudgeKinds offers the judges a writer can build (run, score,
// judge --judge-spec); a spec may add name=, model= and more after them.
func CompleteJudgeKinds(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, s := range judge.Specs() {
		if s.New != nil && strings.HasPrefix(s.Name, toComplete) {
			out = append(out, describe(s.Name, s.Description))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteJudgeNames offers the judges of the runs already given with
// --run (a reader's --judge), else every judge the registry knows.
func CompleteJudgeNames(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	seen := map[string]bool{}
	if f := c.Flags().Lookup("run"); f != nil {
		if v, ok := f.Value.(runsValue); ok && v.dst != nil && len(*v.dst) > 0 {
			if dirs, err := runlog.FindRuns(*v.dst); err == nil {
				for _, d := range dirs {
					if m, err := runlog.LoadManifest(d); err == nil {
						for _, j := range m.Judges {
							seen[j] = true
						}
					}
				}
			}
		}
	}
	if len(seen) == 0 {
		for _, s := range judge.Specs() {
			seen[s.Name] = true
		}
	}
	return withPrefix(slices.Sorted(maps.Keys(seen)), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// CompleteConfigs offers the YAML files under configs/ (and under the
// directory being typed).
func CompleteConfigs(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	dirs := []string{"configs"}
	if d := filepath.Dir(toComplete); d != "." && d != "configs" {
		dirs = append(dirs, d)
	}
	var out []string
	for _, d := range dirs {
		for _, ext := range []string{"*.yaml", "*.yml"} {
			m, _ := filepath.Glob(filepath.Join(d, ext))
			out = append(out, withPrefix(m, toComplete)...)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteRuns offers the run directories under results/ (or under the
// directory being typed) that match what is typed.
func CompleteRuns(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	roots := []string{DefaultResults}
	if d := filepath.Dir(toComplete); d != "." && d != DefaultResults {
		roots = append(roots, d)
	}
	var out []string
	for _, root := range roots {
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			continue
		}
		if dirs, err := runlog.DirsUnder(root); err == nil {
			out = append(out, withPrefix(dirs, toComplete)...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveDefault // a path elsewhere: let the shell complete files
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func describe(name, desc string) string {
	if desc == "" {
		return name
	}
	return name + "\t" + desc
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
