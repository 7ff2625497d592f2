// Package cliflag holds the flags every command spells the same way:
// --run DIR (repeatable) wherever runs are read, --judge NAME wherever a
// reader picks a judge, --json to print a result as JSON on stdout, and
// the completion of their values.
package cliflag

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// runsValue appends every occurrence, so --run A --run B keeps both.
type runsValue struct{ dst *[]string }

func (v runsValue) Set(s string) error { *v.dst = append(*v.dst, s); return nil }
func (v runsValue) Type() string       { return "DIR" }
func (v runsValue) String() string     { return listString(v.dst) }

// listString shows a list flag's value as pflag shows its string slices.
func listString(dst *[]string) string {
	if dst == nil || len(*dst) == 0 {
		return ""
	}
	return "[" + strings.Join(*dst, ",") + "]"
}

// RunsUsage is the usage line of a --run that takes globs and
// directories of runs.
const RunsUsage = "run directory, glob, or directory holding run directories (repeatable)"

// Runs registers --run DIR (repeatable) appending to dst, and its value
// completion.
func Runs(c *cobra.Command, dst *[]string, usage string) {
	c.Flags().Var(runsValue{dst}, "run", usage)
	must(c.RegisterFlagCompletionFunc("run", CompleteRuns))
}

// JSON registers --json.
func JSON(c *cobra.Command, dst *bool) {
	c.Flags().BoolVar(dst, "json", false, "print the result as JSON on stdout")
}

// PrintJSON writes v as indented JSON: the one shape every --json prints.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// PrintResult prints v as JSON with --json (asJSON), else t as the
// terminal table: the two shapes of one result.
func PrintResult(w io.Writer, asJSON bool, v any, t *report.Table) error {
	if asJSON {
		return PrintJSON(w, v)
	}
	return t.Terminal(w)
}

// FailedJSON is what --json prints for a pass (run, judge) that ended with
// questions failed: no results, only what failed and where it is recorded,
// so a script reading stdout learns what to retry. The exit code stays 1.
type FailedJSON struct {
	Status       string           `json:"status"` // "failed"
	Artifacts    string           `json:"artifacts"`
	FailuresFile string           `json:"failures_file"`
	Total        int              `json:"total"`            // questions the pass set out to finish
	Questions    int              `json:"failed_questions"` // distinct questions among Failures
	Failures     []runlog.Failure `json:"failures"`
	Retry        string           `json:"retry"`
}

// PrintFailed prints e as FailedJSON.
func PrintFailed(w io.Writer, e *runlog.QuestionsFailedError) error {
	qs := map[string]bool{}
	for _, f := range e.Failed {
		qs[f.QuestionID] = true
	}
	return PrintJSON(w, FailedJSON{
		Status: "failed", Artifacts: e.Dir, FailuresFile: filepath.Join(e.Dir, runlog.FailuresFile),
		Total: e.Total, Questions: len(qs), Failures: e.Failed,
		Retry: "rerun the same command: only these are retried",
	})
}

// JudgeName registers --judge NAME: a judge already in the runs, picked by
// name; "" means each run's primary judge.
func JudgeName(c *cobra.Command, dst *string, usage string) {
	c.Flags().StringVar(dst, "judge", "", usage)
	must(c.RegisterFlagCompletionFunc("judge", CompleteJudgeNames))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Sources expands --run values for readers that also take judgments
// files (compare, agreement): an existing file (a judgments.jsonl) stays
// as given, in place, as does a directory holding a judgments.jsonl; a run directory, a glob or a directory holding runs
// becomes its run directories (runlog.FindRuns), in order.
func Sources(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if isFile(a) && filepath.Base(a) != runlog.ManifestFile {
			out = append(out, a)
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			m, _ := filepath.Glob(a)
			if len(m) > 0 && !slices.ContainsFunc(m, func(p string) bool { return !isFile(p) || !strings.HasSuffix(p, ".jsonl") }) {
				out = append(out, m...) // a glob over judgments files
				continue
			}
		}
		// A run, or a directory of judgments without a manifest, stays.
		dirs, err := RunDirs([]string{a}, runlog.JudgmentsFile)
		if err != nil {
			return nil, err
		}
		out = append(out, dirs...)
	}
	return out, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// RunDirs expands --run values for readers of one file of a run (audit
// reads memory.jsonl): a directory holding marker stays as given, with or
// without a manifest; anything else goes through runlog.FindRuns.
func RunDirs(args []string, marker string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, marker)); err == nil {
			out = append(out, a)
			continue
		}
		dirs, err := runlog.FindRuns([]string{a})
		if err != nil {
			return nil, clierr.AsBad(err)
		}
		out = append(out, dirs...)
	}
	return out, nil
}

// LoadRuns reads the runs --run values name (runlog.FindRuns), in order;
// a path or a run that cannot be read is bad input.
func LoadRuns(args []string) ([]*runlog.Run, error) {
	dirs, err := runlog.FindRuns(args)
	if err != nil {
		return nil, clierr.AsBad(err)
	}
	runs := make([]*runlog.Run, len(dirs))
	for i, d := range dirs {
		if runs[i], err = analysis.Load(d); err != nil {
			return nil, clierr.AsBad(err)
		}
	}
	return runs, nil
}

// Prices is the price table --prices FILE gives (the default table when
// FILE is "").
func Prices(file string) (*prices.Table, error) {
	if file == "" {
		return prices.Default(), nil
	}
	t, err := prices.Load(file)
	return t, clierr.AsBad(err)
}

// JudgeSpecSyntax is the one syntax of --judge-spec in run, score and judge.
const JudgeSpecSyntax = "a judge (lexical, f1, bleu1, em, llm), NAME=BACKEND:MODEL, or name=N,backend=B,model=M,base-url=U,prompt=FILE; a model judge takes repeats=N (each answer judged N times)"
