package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/spf13/cobra"
)

// Every example in `membench CMD --help` runs as written, except those
// that need what a test machine lacks; each skip names its reason.
var exampleSkips = []struct{ match, why string }{
	{"openai", "needs a real model and its key"},
	{"http://", "needs a server"},
	{"../shared/", "needs the real LoCoMo file outside the repository"},
	{"locomo10.json", "needs the real LoCoMo file"},
	{"preds.jsonl", "needs the user's predictions file"},
	{"~/Downloads/", "needs the user's downloaded copy"},
	{"datasets fetch", "downloads from the network"},
	{"datasets verify", "needs a fetched dataset file"},
	{"prereg test", "needs the study's finished runs"},
	{"configs/seed_study.yaml", "the full study: hours of runs"},
}

// serves reports whether an example starts the web app (it runs until
// stopped): view with no --out (with no --run it opens ./results).
func serves(line string) bool {
	return strings.HasPrefix(line, "membench view") && !strings.Contains(line, "--out")
}

// eachCommand calls fn on c and on every command under it, depth first
// in command order.
func eachCommand(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range c.Commands() {
		eachCommand(s, fn)
	}
}

// examples collects every Example line under c, in command order, with
// run's first (later examples read the runs they make).
func examples(c *cobra.Command) []string {
	var first, rest []string
	eachCommand(c, func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "membench ") || strings.HasPrefix(line, "printf ") {
				if c.Name() == "run" || !c.HasParent() {
					first = append(first, line)
				} else {
					rest = append(rest, line)
				}
			}
		}
	})
	return append(first, rest...)
}

var tmpPath = regexp.MustCompile(`(^|[\s'"=])/tmp/`)

func TestHelpExamplesRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every help example (about a minute)")
	}
	lines := examples(newRoot(nil))
	if len(lines) < 30 {
		t.Fatalf("only %d example lines found; the walk is broken", len(lines))
	}
	dir := workspace(t)
	scratch := filepath.Join(dir, "scratch") // stands for /tmp in the examples
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	ran := 0
	for _, line := range lines {
		why := ""
		for _, s := range exampleSkips {
			if strings.Contains(line, s.match) {
				why = s.why
			}
		}
		if serves(line) {
			why = "serves the web app until stopped (its export form runs below)"
		}
		if why != "" {
			t.Logf("skip %q: %s", line, why)
			continue
		}
		sh := tmpPath.ReplaceAllString(line, "${1}"+scratch+"/")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", sh)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+path, "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+filepath.Join(dir, ".home"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Errorf("help example failed: %s\n(ran: %s)\n%v\n%s", line, sh, err, out.String())
			continue
		}
		ran++
	}
	t.Logf("%d of %d help examples ran", ran, len(lines))
}

// Help stands on its own: no file outside the repository, no paper by
// nickname, no system that does not exist.
func TestHelpNamesNothingOutsideTheRepository(t *testing.T) {
	t.Parallel()
	root := newRoot(nil)
	eachCommand(root, func(c *cobra.Command) {
		var text strings.Builder
		text.WriteString(c.Short + "\n" + c.Long + "\n" + c.Example + "\n" + c.Flags().FlagUsages())
		for _, bad := range []string{"papers.md", "seed paper", "engram"} {
			if strings.Contains(strings.ToLower(text.String()), bad) {
				t.Errorf("membench %s help mentions %q", c.CommandPath(), bad)
			}
		}
	})
	for _, name := range []string{"systems", "datasets"} {
		for _, c := range root.Commands() {
			if c.Name() == name && c.Example == "" {
				t.Errorf("membench %s has no Example", name)
			}
		}
	}
}

// badPlaceholder says what is wrong with the argument name a flag's help
// shows ("" = nothing): pflag takes the first `backquoted` text of a usage
// string as that name, so prose in backquotes turns into it.
func badPlaceholder(fl *pflag.Flag) string {
	name, _ := pflag.UnquoteUsage(fl)
	if strings.Contains(fl.Usage, "`") {
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(name) {
			return "backquoted " + strings.TrimSpace(name) + " becomes the argument name; use 'quotes' in prose or an upper-case placeholder"
		}
		return ""
	}
	if name != "" && !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`).MatchString(name) {
		return "value type " + name + " is not a placeholder"
	}
	return ""
}

func TestFlagHelpShowsPlaceholders(t *testing.T) {
	t.Parallel()
	// The check itself catches the --shard mistake.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("shard", "", "join the parts with `membench merge`")
	fs.String("out", "", "write the `FILE`")
	if badPlaceholder(fs.Lookup("shard")) == "" || badPlaceholder(fs.Lookup("out")) != "" {
		t.Fatal("badPlaceholder misjudges")
	}
	flags := 0
	eachCommand(newRoot(nil), func(c *cobra.Command) {
		for _, set := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			set.VisitAll(func(fl *pflag.Flag) {
				flags++
				if why := badPlaceholder(fl); why != "" {
					t.Errorf("%s --%s: %s", c.CommandPath(), fl.Name, why)
				}
			})
		}
	})
	if flags < 100 {
		t.Fatalf("only %d flags walked; the walk is broken", flags)
	}
	out, code := membench(t, nil, "run", "--help")
	if code != 0 || !regexp.MustCompile(`--shard string +run only part`).MatchString(out) {
		t.Errorf("run --help does not show --shard string:\n%s", out)
	}
}
