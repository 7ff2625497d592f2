package runlog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/membench/membench/internal/badinput"
)

// Run is one loaded run directory (from `membench run` or `membench score`).
// Records are de-duplicated: the last line per question (and per judge)
// wins, as a resumed run is scored.
type Run struct {
	Dir        string
	Manifest   Manifest
	Retrievals []RetrievalRecord
	Answers    []AnswerRecord
	Judgments  []Judgment // valid verdicts, one per (question, judge)
	// Invalid are verdicts whose model reply held none (Raw has it); they
	// are left out of Judgments and of every accuracy.
	Invalid []Judgment
	Builds  []BuildRecord
	// Lines are the files' lines as read, every attempt's.
	Lines Lines
	// Summary is nil from Load: package summary computes it (analysis.Load
	// reads a run with it).
	Summary *Summary
}

// CountInvalidAsWrong makes the run's invalid verdicts WRONG ones marked
// CountedWrong (--invalid-as wrong): every figure read from it scores
// them 0 and still counts them as invalid.
func (r *Run) CountInvalidAsWrong() {
	r.Lines.Judgments = InvalidAsWrong(r.Lines.Judgments)
	r.Judgments, r.Invalid = Verdicts(r.Lines.Judgments)
	r.Summary = nil
}

// LoadManifest reads DIR/manifest.json.
func LoadManifest(dir string) (Manifest, error) {
	var m Manifest
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return m, fmt.Errorf("%s: %w (is this a run directory?)", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v (fix or re-run to rewrite it)", p, err)
	}
	return m, m.CheckSchema(p)
}

// ManifestSchema is the major version of the manifest layout this
// membench writes. Fields are only added within a major version, so an
// older manifest reads the same; a newer major one is refused.
const ManifestSchema = 1

// CheckSchema refuses a manifest written in a newer layout, naming the
// membench that wrote it; src says where the manifest came from.
func (m Manifest) CheckSchema(src string) error {
	if m.Schema > ManifestSchema {
		return badinput.Errorf("%s: manifest schema %d, written by membench %s, is newer than this membench reads (%d): upgrade membench to read it", src, m.Schema, m.Membench, ManifestSchema)
	}
	return nil
}

// Load reads every artifact of a run directory.
func Load(dir string) (*Run, error) {
	m, err := LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	// Each file is read once: Lines keep every line, so a summary of the
	// run (summary.FromLines) needs no second read.
	lines, err := ReadLines(dir)
	if err != nil {
		return nil, err
	}
	return FromLines(dir, m, lines), nil
}

// FromLines is Load on lines already read.
func FromLines(dir string, m Manifest, l Lines) *Run {
	r := &Run{Dir: dir, Manifest: m, Lines: l}
	r.Retrievals = LastBy(l.Retrievals, func(x RetrievalRecord) string { return x.QuestionID })
	r.Answers = LastBy(l.Answers, func(x AnswerRecord) string { return x.QuestionID })
	r.Judgments, r.Invalid = Verdicts(l.Judgments)
	// A conversation rebuilt after a failed build has a newer line.
	r.Builds = LastBy(l.Builds, func(b BuildRecord) string { return b.ConversationID })
	return r
}

// LastBy keeps the last record per key, in order of the key's first line.
func LastBy[T any](xs []T, key func(T) string) []T {
	if len(xs) == 0 {
		return nil
	}
	idx := make(map[string]int, len(xs))
	out := make([]T, 0, len(xs))
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
	st, err := os.Stat(filepath.Join(dir, ManifestFile))
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
				return nil, fmt.Errorf("--run %q: bad glob: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("--run %q: no file matches the pattern", a)
			}
			matches = m
		}
		found := 0
		for _, p := range matches {
			dirs, err := DirsUnder(p)
			if err != nil {
				return nil, fmt.Errorf("--run %q: %v", a, err)
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
			return nil, fmt.Errorf("--run %q: no run directory (with manifest.json) found there; give a run directory or the results directory holding them", a)
		}
	}
	return out, nil
}

// DirsUnder returns p itself when it is a run directory, else every run
// directory below it (not descending into run directories).
func DirsUnder(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if filepath.Base(p) == ManifestFile {
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
