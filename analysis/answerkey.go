package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
)

// OwnKey is the label of the answer key a run's own verdicts were given
// under: "published" unless the run applied a key (runlog.AnswerKeyInfo,
// "NAME sha256:HEX": its NAME).
func OwnKey(m runlog.Manifest) string {
	if m.AnswerKey == nil {
		return "published"
	}
	return strings.Fields(m.AnswerKey.Key + " ")[0]
}

// KeyedJudgeOf is the judge whose verdicts on r are judgeName's under the
// key labelled key: judgeName itself under the run's own key, else the
// verdicts `membench judge --answer-key` logged (membench.KeyedJudge). A
// run without them is refused with the command that adds them.
func KeyedJudgeOf(r *runlog.Run, judgeName, key string) (string, error) {
	if key == OwnKey(r.Manifest) {
		return judgeName, nil
	}
	name := membench.KeyedJudge(judgeName, key)
	if !HasJudge(r.Manifest, name) {
		spec := JudgeSpecOf(r.Manifest, judgeName)
		if spec == "" {
			return "", badinput.Errorf("run %s has no verdicts of %s under the %s answer key, and membench judge cannot add them (%s is not a judge --judge-spec builds); pick another judge with --judge", r.ID(), judgeName, key, judgeName)
		}
		return "", badinput.Errorf("run %s has no verdicts of %s under the %s answer key; add them (the answers are reused): membench judge --run %s --answer-key %s --judge-spec %s", r.ID(), judgeName, key, r.Dir, key, shellQuote(spec))
	}
	return name, nil
}

// JudgeSpecOf is a --judge-spec that builds the run's judge name again,
// for commands to print: the spec the run was given for it, else one
// written from its manifest entry (judges added later), or for a judge
// the run lacks, its name when that is a kind; "" when no --judge-spec
// builds it (human grades, imported verdicts).
func JudgeSpecOf(m runlog.Manifest, name string) string {
	for _, s := range m.Config.Judges {
		if judge.SpecName(s) == name {
			return s
		}
	}
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			return judge.SpecOf(in, m.Models["judge"])
		}
	}
	// A judge the run does not have, named by its kind (f1, em, llm).
	if sp, err := judge.Lookup(name); err == nil && sp.New != nil {
		return name
	}
	return ""
}

// GroupScores are one judge's scores over a run's answers, by group, with
// the questions in skip left out.
type GroupScores struct {
	Groups  []string           // the run's groups in order
	Abstain map[string]bool    // groups whose right answer is to decline
	Score   map[string]float64 // group -> mean score × 100 (NaN: no verdict)
	N       map[string]int
	Overall Overall // the groups that do not abstain
	Skipped int     // answered questions left out
}

// ScoresOf computes judgeName's scores on r from its judgments.
func ScoresOf(r *runlog.Run, judgeName string, skip map[string]bool) (GroupScores, error) {
	gs := GroupScores{Abstain: map[string]bool{}, Score: map[string]float64{}, N: map[string]int{}}
	group := map[string]string{}
	for _, a := range r.Answers {
		if skip[a.QuestionID] {
			gs.Skipped++
			continue
		}
		group[a.QuestionID] = a.Group
		if a.Abstains() {
			gs.Abstain[a.Group] = true
		}
		if !slices.Contains(gs.Groups, a.Group) {
			gs.Groups = append(gs.Groups, a.Group)
		}
	}
	sort.SliceStable(gs.Groups, func(i, j int) bool { return r.Manifest.GroupLess(gs.Groups[i], gs.Groups[j]) })
	sum := map[string]float64{}
	var overall []float64
	for _, j := range r.Judgments {
		g, ok := group[j.QuestionID]
		if j.Judge != judgeName || !ok {
			continue
		}
		sum[g] += j.Score
		gs.N[g]++
		if !gs.Abstain[g] {
			overall = append(overall, j.Score)
		}
	}
	for _, g := range gs.Groups {
		gs.Score[g] = math.NaN()
		if gs.N[g] > 0 {
			gs.Score[g] = 100 * sum[g] / float64(gs.N[g])
		}
	}
	o, err := overallFrom(overall)
	if err != nil {
		return gs, err
	}
	gs.Overall = o
	return gs, nil
}

// KeyTable shows each run under each answer key: n, overall with its
// interval, every group that does not abstain, then the abstaining groups
// (LoCoMo adversarial, LongMemEval _abs) in columns of their own, never in
// overall. Questions in skip (image-dependent ones) are left out and
// counted in a note.
func KeyTable(runs []*runlog.Run, judgeName string, keys []string, skip map[string]bool, skipWhat string, v View) (*report.Table, error) {
	if len(keys) == 0 {
		keys = []string{""}
	}
	var groups, abst []string
	isAbst := map[string]bool{}
	type row struct {
		r   *runlog.Run
		i   int // the run's place in runs
		key string
		gs  GroupScores
	}
	var rows []row
	for i, r := range runs {
		for _, k := range keys {
			name := judgeName
			if k != "" {
				var err error
				if name, err = KeyedJudgeOf(r, judgeName, k); err != nil {
					return nil, err
				}
			}
			gs, err := ScoresOf(r, name, skip)
			if err != nil {
				return nil, err
			}
			for _, g := range gs.Groups {
				if gs.Abstain[g] && !isAbst[g] {
					isAbst[g] = true
					abst = append(abst, g)
				} else if !gs.Abstain[g] && !slices.Contains(groups, g) {
					groups = append(groups, g)
				}
			}
			rows = append(rows, row{r, i, k, gs})
		}
	}
	t := &report.Table{Title: "Scores by answer key: " + Measure(runs, judgeName) + "; declining groups apart, not in overall"}
	t.Header = []string{"run"}
	if keys[0] != "" {
		t.Header = append(t.Header, "key")
	}
	t.Header = append(t.Header, "n", "Overall", "95% CI")
	t.Header = append(t.Header, groups...)
	for _, g := range abst {
		t.Header = append(t.Header, g+" (declines)")
	}
	names, allOffline := labels(runs)
	skipped := 0
	for _, rw := range rows {
		label := names[rw.i]
		if v == Wide {
			label = rw.r.ID()
		}
		cells := []any{label}
		if keys[0] != "" {
			cells = append(cells, rw.key)
		}
		cells = append(cells, nCell(rw.r, rw.gs.Overall.N), report.F(rw.gs.Overall.Score, 2), ciCell(rw.gs.Overall, v))
		for _, g := range append(append([]string(nil), groups...), abst...) {
			if rw.gs.N[g] == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, report.F(rw.gs.Score[g], 2))
		}
		t.Add(cells...)
		skipped = max(skipped, rw.gs.Skipped)
	}
	if len(abst) > 0 {
		t.Notes = append(t.Notes, "(declines): questions whose right answer is to decline, scored by whether the answer declines; the abstain system shows this column's gaming floor")
	}
	if skipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("left out: %d answered questions per run at most (%s)", skipped, skipWhat))
	}
	if keys[0] != "" {
		t.Notes = append(t.Notes, "a key other than a run's own is read from JUDGE+KEY verdicts (membench judge --answer-key KEY); a key leaves its ambiguous questions out, so n differs")
	}
	return finish(t, v, allOffline), nil
}

// ImageTable is judgeName's overall per run over all questions, without
// the image-dependent ones (dep), and on those alone.
func ImageTable(runs []*runlog.Run, judgeName string, dep map[string]bool, v View) (*report.Table, error) {
	t := &report.Table{Title: "Image-dependent questions: " + Measure(runs, judgeName) + " overall"}
	t.Header = []string{"run", "n", "all", "n", "without image-dependent", "n", "image-dependent only"}
	names, allOffline := labels(runs)
	for i, r := range runs {
		only := map[string]bool{}
		for _, a := range r.Answers {
			if !dep[a.QuestionID] {
				only[a.QuestionID] = true
			}
		}
		cells := []any{names[i]}
		if v == Wide {
			cells[0] = r.ID()
		}
		// All questions, without the image-dependent ones, and those alone.
		for _, skip := range []map[string]bool{nil, dep, only} {
			gs, err := ScoresOf(r, judgeName, skip)
			if err != nil {
				return nil, err
			}
			cells = append(cells, gs.Overall.N, report.F(gs.Overall.Score, 2))
		}
		t.Add(cells...)
	}
	t.Notes = append(t.Notes, "image-dependent: the gold answer's words are in an evidence turn's image caption or search query and in no evidence turn's text (docs/answer-keys.md)")
	return finish(t, v, allOffline), nil
}

// UnderKey keeps of s the verdicts given under the answer key labelled
// key, each under its judge's own name: a judge that judged against the
// run's own key keeps its verdicts when key is that key; a judge added
// with `membench judge --answer-key` (NAME+key) gives its verdicts to
// NAME; verdicts under any other key are left out. So raters across runs
// are the same judges under one key. The manifest says which key each
// judge judged against, so s must be a run directory.
func (s *Source) UnderKey(key string) error {
	if s.Manifest == nil {
		return badinput.Errorf("--answer-key needs run directories (their manifests name each judge's key); %s is not one", s.Path)
	}
	m := *s.Manifest
	own := OwnKey(m)
	rename := map[string]string{} // judge name -> name under key ("" = left out)
	for _, j := range m.JudgeSpecs {
		switch {
		case j.AnswerKey == "" && key == own:
			rename[j.Name] = j.Name
		case j.AnswerKey != "" && strings.HasSuffix(j.Name, "+"+key):
			rename[j.Name] = strings.TrimSuffix(j.Name, "+"+key)
		default:
			rename[j.Name] = ""
		}
	}
	to := func(name string) string {
		if n, ok := rename[name]; ok {
			return n
		}
		if key == own { // a judge the manifest does not describe judged against the run's key
			return name
		}
		return ""
	}
	keep := func(js []runlog.Judgment) []runlog.Judgment {
		var out []runlog.Judgment
		for _, j := range js {
			if n := to(j.Judge); n != "" {
				j.Judge = n
				out = append(out, j)
			}
		}
		return out
	}
	s.Judgments, s.Invalid, s.Repeats = keep(s.Judgments), keep(s.Invalid), keep(s.Repeats)
	if len(s.Judgments)+len(s.Invalid) == 0 {
		var flags []string
		for _, j := range m.JudgeSpecs {
			if spec := JudgeSpecOf(m, j.Name); j.AnswerKey == "" && spec != "" {
				flags = append(flags, "--judge-spec "+shellQuote(spec))
			}
		}
		if len(flags) == 0 {
			flags = []string{"--judge-spec SPEC"} // no judge of the run can be built again
		}
		return badinput.Errorf("run %s has no verdicts under the %s answer key; add them (the answers are reused): membench judge --run %s --answer-key %s %s", s.Name, key, s.Path, key, strings.Join(flags, " "))
	}
	// The manifest describes the judges by the names they now have, and
	// the key they judged against by its label, so that the runs compare
	// as judged under one key.
	if len(m.JudgeSpecs) > 0 {
		var specs []membench.JudgeInfo
		var names []string
		for _, j := range m.JudgeSpecs {
			if n := to(j.Name); n != "" {
				j.Name, j.AnswerKey = n, ""
				specs = append(specs, j)
				names = append(names, n)
			}
		}
		m.JudgeSpecs, m.Judges = specs, names
	}
	m.AnswerKey = nil
	if key != "published" {
		m.AnswerKey = &runlog.AnswerKeyInfo{Key: key}
	}
	s.Manifest = &m
	return nil
}
