package summary

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/runlog"
)

// Compute reads a run directory (runlog.Load, the one reader analysis.Load
// uses too) and computes its summary.
func Compute(dir string) (*runlog.Summary, error) {
	r, err := runlog.Load(dir)
	if err != nil {
		return nil, err
	}
	return FromLines(r.Manifest, r.Lines), nil
}

// FromLines computes a run's summary from its manifest and every line of
// its files (runlog.ReadLines): the last line per key is scored, and work
// an earlier attempt did counts as redone.
func FromLines(m runlog.Manifest, l runlog.Lines) *runlog.Summary {
	answers, judgments, retr, builds, costs := l.Answers, l.Judgments, l.Retrievals, l.Builds, l.Costs
	s := &runlog.Summary{RunID: m.RunID, System: m.Config.System, Dataset: m.Dataset, Offline: m.Offline, Synthetic: m.Synthetic, OfflineParts: m.OfflineList(),
		Embedder: m.Embedder, EmbedderNote: m.EmbedderNote, Judges: m.Judges, Stages: map[string]runlog.Cost{}}
	s.Replay = m.Replay
	s.PaperPrompts = m.PaperPrompts
	s.CacheDamaged = m.CacheDamaged
	s.JudgeModels = JudgeModels(m)
	for _, j := range m.Judges {
		if m.JudgeSet().IsMetric(j) {
			s.Metrics = append(s.Metrics, j)
		}
	}
	ans := map[string]runlog.AnswerRecord{}
	for _, a := range answers {
		ans[a.QuestionID] = a
	}
	s.Questions = len(ans)
	// Last verdict per (question, judge) wins; invalid ones (no verdict in
	// the model's reply) are counted, not scored.
	valid, invalid := runlog.Verdicts(judgments)
	invalidOf := map[string][]string{} // question -> judges that gave no verdict
	countInvalid := func(j runlog.Judgment) {
		invalidOf[j.QuestionID] = append(invalidOf[j.QuestionID], j.Judge)
		mapOf(&s.Invalid)[j.Judge]++
		if _, ok := s.FirstInvalid[j.Judge]; !ok {
			mapOf(&s.FirstInvalid)[j.Judge] = clip.To(j.Raw, 200)
		}
	}
	for _, j := range invalid {
		if _, ok := ans[j.QuestionID]; ok {
			countInvalid(j)
		}
	}
	verdict := map[string]map[string]float64{}
	for _, j := range valid {
		if _, ok := ans[j.QuestionID]; !ok {
			continue
		}
		if j.CountedWrong {
			// Scored as WRONG (--invalid-as wrong), still counted.
			s.InvalidAsWrong = true
			countInvalid(j)
		}
		if verdict[j.QuestionID] == nil {
			verdict[j.QuestionID] = map[string]float64{}
		}
		verdict[j.QuestionID][j.Judge] = j.Score
	}
	s.Groups, s.Overall = groupScores(ans, verdict, invalidOf, m)
	addRepeatStats(s, judgments, ans)
	limit := m.MaxBuildFailures
	if limit <= 0 {
		limit = membench.DefaultMaxBuildFailures
	}
	s.ContextTokens, s.EvidenceRecall = retrievalStats(retr, ans)
	// A conversation rebuilt after a failed build has a newer line.
	last := runlog.LastBy(builds, func(b runlog.BuildRecord) string { return b.ConversationID })
	for _, b := range last {
		s.BuildRequests += b.Stats.Requests
		s.BuildFailed += b.Stats.Failed
		if s.FirstFailure == "" && b.Stats.FirstFailure != "" {
			s.FirstFailure = clip.To(b.Stats.FirstFailure, 200)
		}
		s.Build.Add(runlog.Cost{Calls: b.Calls, InputTokens: b.InputTokens, OutputTokens: b.OutputTokens, Seconds: b.Seconds})
		if b.EmptyMemory != "" {
			s.EmptyMemory = append(s.EmptyMemory, b.ConversationID+": "+b.EmptyMemory)
		}
	}
	if w, ok := buildWallSeconds(last); ok {
		s.Build.Seconds = w
	} else {
		s.BuildSecondsSummed = len(last) > 1 // one conversation: its Ingest time is the wall time
	}
	s.FailedOverLimit = membench.BuildDegraded(s.BuildFailed, s.BuildRequests, limit)
	s.Degraded = s.FailedOverLimit || len(s.EmptyMemory) > 0
	kept, redone := runlog.EffectiveCosts(costs)
	// A judge's cost record replaced after an invalid verdict paid for
	// that verdict, not for work an interruption cut off.
	invalidOn := map[string]bool{}
	for _, j := range judgments {
		if j.Invalid || j.CountedWrong {
			invalidOn[j.QuestionID+"\x00"+j.Judge] = true
		}
	}
	for _, c := range redone {
		name, isJudge := strings.CutPrefix(c.Part, "judge:")
		reasked := isJudge && invalidOn[c.QuestionID+"\x00"+name]
		for _, t := range c.Tallies {
			addTally(&s.Redone, t)
			if reasked {
				addTally(&s.Reasked, t)
			}
		}
	}
	for _, c := range kept {
		for _, t := range c.Tallies {
			addTally(&s.Stages, t)
		}
	}
	return s
}

// addTally adds t to its stage's cost in *by (made when nil); embedding
// work is kept apart from the stage's model calls.
func addTally(by *map[string]runlog.Cost, t membench.Tally) {
	key := string(t.Stage)
	if t.Label == "embedding" {
		key += runlog.EmbeddedTexts
	}
	v := (*by)[key]
	v.AddTally(t)
	mapOf(by)[key] = v
}

// groupScores scores each group and the overall row (abstaining
// questions left out), the groups in the order of the run's dataset.
func groupScores(ans map[string]runlog.AnswerRecord, verdict map[string]map[string]float64, invalidOf map[string][]string, m runlog.Manifest) ([]runlog.Group, runlog.Group) {
	judges := m.Judges
	type acc struct {
		g   runlog.Group
		sum map[string]float64
		n   map[string]int
	}
	groups := map[string]*acc{}
	overall := &acc{g: runlog.Group{Name: "overall"}, sum: map[string]float64{}, n: map[string]int{}}
	add := func(a *acc, v map[string]float64, invalid []string) {
		a.g.N++
		for j, x := range v {
			a.sum[j] += x
			a.n[j]++
		}
		for _, j := range invalid {
			mapOf(&a.g.Invalid)[j]++
		}
	}
	// Sum in question-id order so the same artifacts give the same bits.
	for _, qid := range slices.Sorted(maps.Keys(ans)) {
		a := ans[qid]
		g := groups[a.Group]
		if g == nil {
			g = &acc{g: runlog.Group{Name: a.Group}, sum: map[string]float64{}, n: map[string]int{}}
			groups[a.Group] = g
		}
		g.g.Abstains = g.g.Abstains || a.Abstains()
		add(g, verdict[a.QuestionID], invalidOf[a.QuestionID])
		if !a.Abstains() {
			add(overall, verdict[a.QuestionID], invalidOf[a.QuestionID])
		}
	}
	finish := func(a *acc) runlog.Group {
		a.g.Scores = map[string]float64{}
		for _, j := range judges {
			if a.n[j] > 0 {
				a.g.Scores[j] = 100 * a.sum[j] / float64(a.n[j])
				if a.n[j] < a.g.N {
					// A partial judge (e.g. human grading in progress)
					// must not read as if it covered every question.
					mapOf(&a.g.Judged)[j] = a.n[j]
				}
			}
		}
		return a.g
	}
	var out []runlog.Group
	for _, g := range groups {
		out = append(out, finish(g))
	}
	sort.Slice(out, func(i, j int) bool { return m.GroupLess(out[i].Name, out[j].Name) })
	return out, finish(overall)
}

func retrievalStats(retr []runlog.RetrievalRecord, ans map[string]runlog.AnswerRecord) (runlog.TokenStats, float64) {
	last := map[string]runlog.RetrievalRecord{}
	for _, r := range retr {
		last[r.QuestionID] = r
	}
	var ts runlog.TokenStats
	var recallSum float64
	recallN := 0
	for _, qid := range slices.Sorted(maps.Keys(last)) {
		r := last[qid]
		if _, ok := ans[qid]; !ok {
			continue
		}
		if ts.N == 0 {
			ts.Min = r.Tokens
		}
		ts.Min, ts.Max = min(ts.Min, r.Tokens), max(ts.Max, r.Tokens)
		ts.Mean += float64(r.Tokens)
		ts.N++
		if c := membench.CountEvidence(r.Evidence, r.Candidates, r.Items, r.EvidenceHit); membench.CountsForRecall(ans[qid].Abstains(), c) {
			recallSum += float64(c.InContext) / float64(c.Evidence)
			recallN++
		}
	}
	if ts.N > 0 {
		ts.Mean /= float64(ts.N)
	}
	rec := 0.0
	if recallN > 0 {
		rec = recallSum / float64(recallN)
	}
	return ts, rec
}

// mapOf returns *m, making it first when nil: the summary's maps stay nil
// (left out of summary.json) until they get an entry.
func mapOf[K comparable, V any](m *map[K]V) map[K]V {
	if *m == nil {
		*m = map[K]V{}
	}
	return *m
}

// addRepeatStats fills each group's and the overall row's Repeats from
// the judges' repeated verdicts.
func addRepeatStats(s *runlog.Summary, judgments []runlog.Judgment, ans map[string]runlog.AnswerRecord) {
	rep := RepeatVerdicts(judgments)
	if len(rep) == 0 {
		return
	}
	judges := map[string]bool{}
	for _, j := range rep {
		judges[j.Judge] = true
	}
	fill := func(g *runlog.Group, in func(qid string) bool) {
		for j := range judges {
			if st, ok := repeatStatsOf(rep, j, in); ok {
				mapOf(&g.Repeats)[j] = st
			}
		}
	}
	for i := range s.Groups {
		name := s.Groups[i].Name
		fill(&s.Groups[i], func(q string) bool { a, ok := ans[q]; return ok && a.Group == name })
	}
	fill(&s.Overall, func(q string) bool { a, ok := ans[q]; return ok && !a.Abstains() })
}

// JudgeModels lists the run's model judges with their models, in the
// manifest's order; judges without a model (metrics, lexical) are left out.
func JudgeModels(m runlog.Manifest) []runlog.JudgeModel {
	ans, hasAns := m.Models["answer"]
	var out []runlog.JudgeModel
	for _, j := range m.JudgeSpecs {
		if j.Model == nil || j.Model.Backend == "" {
			continue
		}
		out = append(out, runlog.JudgeModel{Judge: j.Name, Model: membench.ModelName(*j.Model), IsAnswerModel: hasAns && j.Model.Backend != "offline" && *j.Model == ans})
	}
	return out
}
