package compare

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/internal/cli/clierr"
)

// Source is one judgments file with the categories of its questions (from
// the answers.jsonl beside it, when there is one).
type Source struct {
	Path       string // as given
	Name       string // run dir name, or the judgments file's dir name
	Judgments  []runlog.Judgment
	Categories map[string]int // question id → category; empty when unknown
}

// Load reads a run directory or a judgments.jsonl file.
func Load(path string) (*Source, error) {
	js, err := runlog.LoadJudgments(path)
	if err != nil {
		return nil, clierr.AsBad(err)
	}
	if len(js) == 0 {
		return nil, clierr.Bad("%s: no judgments (give a run directory or a non-empty judgments.jsonl)", path)
	}
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	s := &Source{Path: path, Name: filepath.Base(filepath.Clean(dir)), Judgments: js, Categories: map[string]int{}}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		return nil, clierr.AsBad(err)
	}
	for _, a := range answers {
		if a.Category != 0 {
			s.Categories[a.QuestionID] = a.Category
		}
	}
	return s, nil
}

// Judges lists the judge names present, sorted.
func (s *Source) Judges() []string {
	seen := map[string]bool{}
	for _, j := range s.Judgments {
		seen[j.Judge] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ByJudge returns one judge's verdicts keyed by question id. An empty name
// picks the only judge; a question judged twice by the same judge (two
// systems in one file) is an error, since the pairing would be ambiguous.
func (s *Source) ByJudge(name, flag string) (map[string]runlog.Judgment, string, error) {
	judges := s.Judges()
	if name == "" {
		if len(judges) != 1 {
			return nil, "", clierr.Bad("%s holds judges %s; pick one with %s", s.Path, strings.Join(judges, ", "), flag)
		}
		name = judges[0]
	}
	out := map[string]runlog.Judgment{}
	for _, j := range s.Judgments {
		if j.Judge != name {
			continue
		}
		if prev, dup := out[j.QuestionID]; dup {
			return nil, "", clierr.Bad("%s: judge %s scored %s twice (systems %q and %q); split the file per system", s.Path, name, j.QuestionID, prev.System, j.System)
		}
		out[j.QuestionID] = j
	}
	if len(out) == 0 {
		return nil, "", clierr.Bad("%s has no judgments by judge %q (%s); it holds %s", s.Path, name, flag, strings.Join(judges, ", "))
	}
	return out, name, nil
}

// System is the system named in the judgments, or the directory name.
func (s *Source) System() string {
	for _, j := range s.Judgments {
		if j.System != "" {
			return j.System
		}
	}
	return s.Name
}

// examples formats up to three ids.
func examples(ids []string) string {
	sort.Strings(ids)
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + ", ..."
	}
	return strings.Join(ids, ", ")
}
