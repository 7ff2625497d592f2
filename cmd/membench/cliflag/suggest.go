package cliflag

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/internal/suggest"
)

// flagError is every command's answer to a flag it cannot parse: one line
// naming the flag, the closest real flag when the name looks mistyped, and
// where the help is (exit 2). A command group first looks in argv for a
// mistyped command: `membench reprot --run x` fails on --run, which only
// report has, but the word to fix is reprot.
func flagError(c *cobra.Command, err error, argv []string) error {
	if c.HasSubCommands() {
		if word := strayWord(c, argv); word != "" {
			return unknownCommand(c, word)
		}
	}
	hint := ""
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		hint = suggest.HintQuoted(ne.GetSpecifiedName(), flagNames(c), "--%s")
	}
	return clierr.Bad("%s%s (see `%s --help`)", err, hint, c.CommandPath())
}

// flagNames are the flags c shows in its help, inherited ones included.
func flagNames(c *cobra.Command) []string {
	names := []string{"help"}
	add := func(fl *pflag.Flag) {
		if !fl.Hidden {
			names = append(names, fl.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

// ExplainArgs makes every command under root say what went wrong with a
// stray word on the command line instead of cobra's bare "unknown command"
// (or, for a command group, its help and exit 0), and a mistyped flag name
// the closest real one:
//   - a group (membench, membench datasets, ...) given a word that is not
//     one of its commands names the closest command (did you mean);
//   - a command given paths it takes no argument for says the shell
//     expanded an unquoted glob, and shows the quoted pattern.
//
// argv is the command line without the program name (os.Args[1:]): only
// it shows which flag the shell's expansion followed.
func ExplainArgs(root *cobra.Command, argv []string) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, argv) })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.HasSubCommands() && !c.Runnable():
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				if err := globHint(cmd, args, argv); err != nil {
					return err
				}
				return unknownCommand(cmd, args[0])
			}
		case c.Args != nil:
			check := c.Args
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				if err == nil {
					return nil
				}
				if g := globHint(cmd, args, argv); g != nil {
					return g
				}
				return err
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// strayWord is the first word of argv that is neither a flag nor a
// command on the way to group c, nor one of c's commands: what the user
// meant as a command ("" when there is none).
func strayWord(c *cobra.Command, argv []string) string {
	path := map[string]bool{}
	for p := c; p != nil; p = p.Parent() {
		path[p.Name()] = true
	}
	for _, a := range argv {
		if strings.HasPrefix(a, "-") || path[a] {
			continue
		}
		if slices.ContainsFunc(c.Commands(), func(s *cobra.Command) bool { return s.Name() == a || s.HasAlias(a) }) {
			return ""
		}
		return a
	}
	return ""
}

func unknownCommand(c *cobra.Command, word string) error {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return clierr.Bad("unknown command %q for %q%s; see `%s --help`", word, c.CommandPath(), suggest.Hint(word, names), c.CommandPath())
}

// globHint explains stray arguments that are paths on disk: a shell that
// expanded `--run results/x-*` leaves the first match as the flag's value
// and the rest as arguments no command expects. nil when none is a path.
func globHint(c *cobra.Command, args, argv []string) error {
	first := slices.IndexFunc(args, exists)
	if first < 0 {
		return nil
	}
	word := args[first]
	flag, paths := expandedFlag(c, word, argv)
	if len(paths) == 0 {
		paths = args[first:]
	}
	pattern := Pattern(paths)
	shown := strings.Join(paths, " ")
	if len(paths) > 3 {
		shown = strings.Join(paths[:3], " ") + fmt.Sprintf(" … (%d paths)", len(paths))
	}
	what := fmt.Sprintf("unexpected argument %q for %q", word, c.CommandPath())
	switch fl := c.Flags().Lookup(flag); {
	case fl != nil && takesGlob(fl):
		return clierr.Bad("%s: the shell expanded an unquoted glob (--%s %s); quote it, e.g. --%s '%s'", what, flag, shown, flag, pattern)
	case fl != nil:
		return clierr.Bad("%s: the shell expanded an unquoted glob (--%s %s), and --%s takes one path; give one", what, flag, shown, flag)
	case c.Flags().Lookup("run") != nil:
		return clierr.Bad("%s: runs go with --run; quote a glob so the shell leaves it to membench, e.g. --run '%s'", what, pattern)
	}
	return clierr.Bad("%s: if the shell expanded an unquoted glob (%s), quote it, e.g. '%s'; see `%s --help`", what, shown, pattern, c.CommandPath())
}

// takesGlob reports whether a flag's value may be a pattern membench
// expands itself (--run and the flags that say so in their help).
func takesGlob(fl *pflag.Flag) bool {
	return fl.Name == "run" || strings.Contains(fl.Usage, "glob")
}

// expandedFlag finds, in argv, the run of existing paths that holds word
// and the flag right before it: the flag the shell's expansion followed
// ("" when no flag taking a value is there) and the whole run of paths.
func expandedFlag(c *cobra.Command, word string, argv []string) (string, []string) {
	at := slices.Index(argv, word)
	if at < 0 {
		return "", nil
	}
	start, end := at, at+1
	for start > 0 && !strings.HasPrefix(argv[start-1], "-") && exists(argv[start-1]) {
		start--
	}
	for end < len(argv) && !strings.HasPrefix(argv[end], "-") && exists(argv[end]) {
		end++
	}
	paths := argv[start:end]
	if start == 0 || !strings.HasPrefix(argv[start-1], "--") || strings.Contains(argv[start-1], "=") {
		return "", paths
	}
	fl := c.Flags().Lookup(strings.TrimPrefix(argv[start-1], "--"))
	if fl == nil || fl.NoOptDefVal != "" {
		return "", paths // a switch such as --json takes no value
	}
	return fl.Name, paths
}

// Pattern is a glob that matches every path given: their common beginning
// and end around a star ("results/locomo-*" for results/locomo-a and
// results/locomo-b). One path stands for its folder's entries.
func Pattern(paths []string) string {
	if len(paths) == 0 {
		return "*"
	}
	if len(paths) == 1 {
		p := strings.TrimRight(paths[0], "/")
		if i := strings.LastIndex(p, "/"); i >= 0 {
			return p[:i+1] + "*"
		}
		return "*"
	}
	pre := paths[0]
	for _, p := range paths[1:] {
		n := 0
		for n < len(pre) && n < len(p) && pre[n] == p[n] {
			n++
		}
		pre = pre[:n]
	}
	for pre != "" && !utf8.ValidString(pre) {
		pre = pre[:len(pre)-1] // never split a character
	}
	rest := make([]string, len(paths))
	for i, p := range paths {
		rest[i] = p[len(pre):]
	}
	suf := rest[0]
	for _, r := range rest[1:] {
		n := 0
		for n < len(suf) && n < len(r) && suf[len(suf)-1-n] == r[len(r)-1-n] {
			n++
		}
		suf = suf[len(suf)-n:]
	}
	for suf != "" && !utf8.ValidString(suf) {
		suf = suf[1:]
	}
	return pre + "*" + suf
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
