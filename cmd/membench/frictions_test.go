package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
)

// Small frictions a first hour runs into: typos, unquoted globs, verify
// with no name, flag help, keyless local servers.

// A mistyped command, flag, system, dataset or judge names the real one;
// a word far from every name gets no guess. All exit 2 with one line.
func TestFrictionsDidYouMean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // "" = no guess at all
	}{
		{[]string{"rnu"}, `(did you mean "run"?)`},
		{[]string{"reprot", "--run", "x"}, `(did you mean "report"?)`},
		{[]string{"datasets", "lst"}, `(did you mean "list"?)`},
		{[]string{"run", "--sytem", "x"}, "(did you mean --system?)"},
		{[]string{"run", "--run_id=x"}, "(did you mean --run-id?)"},
		{[]string{"compare", "--rnu", "x"}, "(did you mean --run?)"},
		{[]string{"run", "--system", "structmen"}, `(did you mean "structmem"?)`},
		{[]string{"run", "--dataset", "lcomo"}, `(did you mean "locomo"?)`},
		{[]string{"run", "--judge-spec", "lexcal"}, `(did you mean "lexical"?)`},
		{[]string{"datasets", "fetch", "lcomo"}, `(did you mean "locomo"?)`},
		{[]string{"frobnicate"}, ""},
		{[]string{"run", "--system", "x"}, ""},
		{[]string{"run", "--frobnicate"}, ""},
		{[]string{"run", "-z"}, ""},
	} {
		out, code := membench(t, nil, c.args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Count(line, "\n") != 0 {
			t.Errorf("membench %s: exit %d, want 2 with one line:\n%s", strings.Join(c.args, " "), code, out)
			continue
		}
		if c.want == "" && strings.Contains(out, "did you mean") {
			t.Errorf("membench %s guessed: %s", strings.Join(c.args, " "), line)
		}
		if c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("membench %s: %s\nwant %s", strings.Join(c.args, " "), line, c.want)
		}
	}
	// A group alone still prints its help.
	if out, code := membench(t, nil, "datasets"); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("membench datasets: exit %d\n%s", code, out)
	}
}

// An unquoted --run glob is expanded by the shell; the command says so and
// the quoted pattern it suggests runs.
func TestFrictionsUnquotedGlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, id := range []string{"sample-a", "sample-b", "sample-c"} {
		if out, code := in(t, dir, "run", "--quiet", "--run-id", id, "--k", "2"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
	}
	shell := func(line string) (string, int) {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+filepath.Join(dir, ".home"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	quoted := regexp.MustCompile(`e\.g\. (--run '[^']+')`)
	for _, cmdline := range []string{
		"membench view --run results/sample-* --out page.html",
		"membench diagnose --run results/sample-* --judge lexical",
		"membench kstar --json results/sample-*", // no --run before the paths
	} {
		out, code := shell(cmdline)
		m := quoted.FindStringSubmatch(out)
		if code != 2 || !strings.Contains(out, `unexpected argument "results/sample-`) || m == nil {
			t.Errorf("%s: exit %d, want 2 naming the stray path and the quoted pattern:\n%s", cmdline, code, out)
			continue
		}
		if m[1] != "--run 'results/sample-*'" {
			t.Errorf("%s: suggests %s, want --run 'results/sample-*'", cmdline, m[1])
		}
		if !strings.Contains(out, "shell") {
			t.Errorf("%s: the hint does not name the shell: %s", cmdline, out)
		}
	}
	if out, code := shell("membench view --run 'results/sample-*' --out page.html"); code != 0 {
		t.Errorf("the suggested quoting does not run: exit %d\n%s", code, out)
	}
	// A flag that takes one path: no pattern to quote, take one.
	out, code := shell("membench run --quiet --results results/sample-*")
	if code != 2 || !strings.Contains(out, "--results takes one path") {
		t.Errorf("run --results with a glob: exit %d\n%s", code, out)
	}
	// A stray word that is no path keeps cobra's plain refusal.
	out, code = shell("membench kstar --run results/sample-a nothing-here")
	if code != 2 || strings.Contains(out, "glob") || !strings.Contains(out, `"nothing-here"`) {
		t.Errorf("stray non-path: exit %d\n%s", code, out)
	}
}

// datasets verify with no name checks what is installed and names the
// rest; a copy that does not match fails the command.
func TestFrictionsDatasetsVerifyAll(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + home}
	out, code := membench(t, env, "datasets", "verify")
	if code != 0 || !strings.Contains(out, "no dataset installed") || !strings.Contains(out, "locomo, locomo-audit, longmemeval-s, longmemeval-oracle, longmemeval-m") {
		t.Fatalf("empty home: exit %d\n%s", code, out)
	}
	copyOf := filepath.Join(t.TempDir(), "oracle.json")
	os.WriteFile(copyOf, []byte(`[]`), 0o644)
	if out, code := membench(t, env, "datasets", "add", "longmemeval-oracle", copyOf); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	out, code = membench(t, env, "datasets", "verify")
	if code != 0 || !regexp.MustCompile(`(?m)^longmemeval-oracle: ok `).MatchString(out) ||
		!strings.Contains(out, "not installed in "+filepath.Join(home, "datasets")+": locomo, locomo-audit, longmemeval-s, longmemeval-m") {
		t.Fatalf("one installed: exit %d\n%s", code, out)
	}
	// A LoCoMo file that is not the published one fails, and the oracle
	// copy is still reported.
	os.WriteFile(filepath.Join(home, "datasets", "locomo10.json"), []byte(`[]`), 0o644)
	out, code = membench(t, env, "datasets", "verify")
	if code != 1 || !strings.Contains(out, "locomo: FAILED") || !strings.Contains(out, "longmemeval-oracle: ok") || !strings.Contains(out, "do not match their checksum: locomo;") {
		t.Fatalf("corrupt locomo: exit %d, want 1\n%s", code, out)
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

func TestFrictionsFlagHelpShowsPlaceholders(t *testing.T) {
	t.Parallel()
	// The check itself catches the --shard mistake.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("shard", "", "join the parts with `membench merge`")
	fs.String("out", "", "write the `FILE`")
	if badPlaceholder(fs.Lookup("shard")) == "" || badPlaceholder(fs.Lookup("out")) != "" {
		t.Fatal("badPlaceholder misjudges")
	}
	flags := 0
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, set := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			set.VisitAll(func(fl *pflag.Flag) {
				flags++
				if why := badPlaceholder(fl); why != "" {
					t.Errorf("%s --%s: %s", c.CommandPath(), fl.Name, why)
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(nil))
	if flags < 100 {
		t.Fatalf("only %d flags walked; the walk is broken", flags)
	}
	out, code := membench(t, nil, "run", "--help")
	if code != 0 || !regexp.MustCompile(`--shard string +run only part`).MatchString(out) {
		t.Errorf("run --help does not show --shard string:\n%s", out)
	}
}

// A local OpenAI-compatible server needs no key (vLLM, Ollama), as the
// README says; OpenAI's own needs one.
func TestFrictionsKeylessLocalServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	results := t.TempDir()
	out, code := membench(t, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=" + srv.URL},
		"run", "--quiet", "--results", results, "--llm", "openai", "--model", "m", "--judge-spec", "f1")
	if code != 0 || srv.Count("/v1/chat/completions") == 0 {
		t.Fatalf("keyless local server: exit %d, %d chat calls\n%s", code, srv.Count("/v1/chat/completions"), out)
	}
	for _, a := range srv.Authorizations() {
		if strings.Contains(a, "sk-") {
			t.Fatalf("a key reached the server: %q", a)
		}
	}
	out, code = membench(t, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="}, "run", "--results", results, "--llm", "openai", "--model", "m")
	if code != 2 || !strings.Contains(out, "OPENAI_API_KEY") {
		t.Fatalf("OpenAI without a key: exit %d\n%s", code, out)
	}
	readme, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `OPENAI_API_KEY` .*$").Find(readme)
	if !bytes.Contains(row, []byte("OpenAI's own servers")) || !bytes.Contains(row, []byte("without one")) {
		t.Errorf("README's OPENAI_API_KEY row does not say a local server needs no key: %s", row)
	}
}
