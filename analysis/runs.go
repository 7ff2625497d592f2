// Package analysis reads finished run directories and computes the
// paper-shaped numbers: token-matched k* (kstar), the retrieval-loss
// decomposition (diagnose) and the score tables (report). Loading is kept
// in this file; everything else works on loaded runs, so tests can build
// small runs by hand.
package analysis

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/systems"
)

// Run is one loaded run directory (from `membench run` or `membench score`).
// Records are de-duplicated: the last line per question (and per judge)
// wins, as harness.Summarize does for resumed runs.
type Run struct {
	Dir        string
	Manifest   harness.Manifest
	Retrievals []harness.RetrievalRecord
	Answers    []harness.AnswerRecord
	Judgments  []judge.Judgment
	Builds     []harness.BuildRecord
	Summary    *harness.Summary
}

// LoadManifest reads DIR/manifest.json.
func LoadManifest(dir string) (harness.Manifest, error) {
	var m harness.Manifest
	p := filepath.Join(dir, harness.ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return m, fmt.Errorf("%s: %w (is this a run directory?)", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v (fix or re-run to rewrite it)", p, err)
	}
	return m, nil
}

// LoadRun reads every artifact of a run directory.
func LoadRun(dir string) (*Run, error) {
	m, err := LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Manifest: m}
	retr, err := harness.ReadJSONL[harness.RetrievalRecord](filepath.Join(dir, harness.RetrievalsFile))
	if err != nil {
		return nil, err
	}
	r.Retrievals = lastBy(retr, func(x harness.RetrievalRecord) string { return x.QuestionID })
	ans, err := harness.ReadJSONL[harness.AnswerRecord](filepath.Join(dir, harness.AnswersFile))
	if err != nil {
		return nil, err
	}
	r.Answers = lastBy(ans, func(x harness.AnswerRecord) string { return x.QuestionID })
	js, err := harness.ReadJSONL[judge.Judgment](filepath.Join(dir, harness.JudgmentsFile))
	if err != nil {
		return nil, err
	}
	r.Judgments = lastBy(js, func(x judge.Judgment) string { return x.QuestionID + "\x00" + x.Judge })
	if r.Builds, err = harness.ReadJSONL[harness.BuildRecord](filepath.Join(dir, harness.BuildFile)); err != nil {
		return nil, err
	}
	if r.Summary, err = harness.Summarize(dir); err != nil {
		return nil, err
	}
	return r, nil
}

// lastBy keeps the last record per key, in order of the key's first line.
func lastBy[T any](xs []T, key func(T) string) []T {
	idx := map[string]int{}
	var out []T
	for _, x := range xs {
		k := key(x)
		if i, ok := idx[k]; ok {
			out[i] = x
			continue
		}
		idx[k] = len(out)
		out = append(out, x)
	}
	return out
}

// ID is the run's id (manifest run_id, else the directory name).
func (r *Run) ID() string {
	if r.Manifest.RunID != "" {
		return r.Manifest.RunID
	}
	return filepath.Base(r.Dir)
}

// IsRunDir reports whether dir holds a manifest.json.
func IsRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, harness.ManifestFile))
	return err == nil && !st.IsDir()
}

// FindRuns expands --runs arguments: a run directory, a glob, or a
// directory whose subdirectories (at any depth) are run directories.
// The result is de-duplicated and, per argument, sorted.
func FindRuns(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		matches := []string{a}
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("--runs %q: bad glob: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("--runs %q: no file matches the pattern", a)
			}
			matches = m
		}
		found := 0
		for _, p := range matches {
			dirs, err := runDirsUnder(p)
			if err != nil {
				return nil, fmt.Errorf("--runs %q: %v", a, err)
			}
			for _, d := range dirs {
				found++
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("--runs %q: no run directory (with manifest.json) found there; give a run directory or the results directory holding them", a)
		}
	}
	return out, nil
}

// runDirsUnder returns p itself when it is a run directory, else every run
// directory below it (not descending into run directories).
func runDirsUnder(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if filepath.Base(p) == harness.ManifestFile {
			return []string{filepath.Dir(p)}, nil
		}
		return nil, nil // globs may match stray files
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != p && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if IsRunDir(path) {
			out = append(out, path)
			return filepath.SkipDir
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// ResolveK is the retrieval budget a run used: --k when set, else the run's
// --opt k=, else the system's registered default k. ok is false when none
// applies (e.g. fullcontext, or a system not registered in this binary).
func ResolveK(cfg harness.Config) (k int, source string, ok bool) {
	if cfg.K > 0 {
		return cfg.K, "--k", true
	}
	if v, has := cfg.Options["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "--opt k", true
		}
	}
	spec, err := systems.Lookup(cfg.System)
	if err != nil {
		return 0, "system " + cfg.System + " is not registered in this binary, so its default k is unknown", false
	}
	if v, has := spec.Defaults["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "default of " + cfg.System, true
		}
	}
	return 0, "system " + cfg.System + " has no k option (no retrieval budget)", false
}

// metricKinds are the lexical metrics; every other judge gives verdicts.
var metricKinds = map[string]bool{"f1": true, "bleu1": true, "em": true}

// IsMetricJudge reports whether the judge named name in run manifest m is
// a lexical metric (f1, bleu1, em), by name or by the spec it was built from.
func IsMetricJudge(m harness.Manifest, name string) bool {
	if metricKinds[strings.ToLower(name)] {
		return true
	}
	// Manifest judge names are parallel to the config's specs.
	if len(m.Config.Judges) == len(m.Judges) {
		for i, n := range m.Judges {
			if n == name {
				kind, _, _ := strings.Cut(m.Config.Judges[i], ",")
				return !strings.Contains(kind, "=") && metricKinds[strings.ToLower(strings.TrimSpace(kind))]
			}
		}
	}
	return false
}

// DefaultJudge is the first judge in the manifest that is not a lexical
// metric; if there is none, "f1" when present, else the first judge.
func DefaultJudge(m harness.Manifest) string {
	for _, j := range m.Judges {
		if !IsMetricJudge(m, j) {
			return j
		}
	}
	for _, j := range m.Judges {
		if j == "f1" {
			return j
		}
	}
	if len(m.Judges) > 0 {
		return m.Judges[0]
	}
	return ""
}

// IsAbstention reports whether a question's correct answer is to decline:
// LoCoMo category 5 (adversarial) or a LongMemEval "_abs" question.
func IsAbstention(a harness.AnswerRecord) bool {
	return a.Category == 5 || strings.HasSuffix(a.QuestionID, "_abs")
}
