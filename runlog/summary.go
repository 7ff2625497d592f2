package runlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Summary is a run's headline numbers, recomputed from its artifacts (so a
// resumed run summarises every attempt).
type Summary struct {
	RunID          string       `json:"run_id"`
	System         string       `json:"system"`
	Dataset        string       `json:"dataset"`
	Offline        bool         `json:"offline"`
	Synthetic      bool         `json:"synthetic,omitempty"` // the dataset came from `membench datasets synth`
	Replay         *ReplayInfo  `json:"replay,omitempty"`
	OfflineParts   []string     `json:"offline_parts,omitempty"` // roles and judges on the offline backend
	Embedder       string       `json:"embedder"`
	EmbedderNote   string       `json:"embedder_note,omitempty"`
	Judges         []string     `json:"judges"`
	JudgeModels    []JudgeModel `json:"judge_models,omitempty"`  // model judges' models
	Metrics        []string     `json:"metric_judges,omitempty"` // judges whose column is a mean score, not an accuracy
	Questions      int          `json:"questions"`
	Groups         []Group      `json:"groups"`  // per group of the dataset, in its order
	Overall        Group        `json:"overall"` // without the abstaining groups (LoCoMo adversarial, LongMemEval _abs), as the papers score it
	ContextTokens  TokenStats   `json:"context_tokens"`
	EvidenceRecall float64      `json:"evidence_recall"` // mean share of evidence turns in the context, over questions with evidence, abstention questions excluded (runlog.CountsForRecall)
	Build          Cost         `json:"build"`
	// BuildRequests and BuildFailed count the memory build's logical
	// requests and those whose reply stayed unusable (nothing was kept);
	// Degraded is set when the failed share is above the run's limit:
	// the memory is not what the system would build, so neither are the
	// scores.
	BuildRequests int    `json:"build_requests,omitempty"`
	BuildFailed   int    `json:"build_failed,omitempty"`
	FirstFailure  string `json:"build_first_failure,omitempty"`
	// EmptyMemory lists "conversation: reason" for builds whose memory
	// came out empty (BuildRecord.EmptyMemory); any makes the run Degraded.
	EmptyMemory []string `json:"empty_memory,omitempty"`
	// FailedOverLimit: the failed share is above the limit (one cause of
	// Degraded, the other being EmptyMemory).
	FailedOverLimit bool            `json:"build_failed_over_limit,omitempty"`
	Degraded        bool            `json:"degraded,omitempty"`
	Stages          map[string]Cost `json:"stages"` // all model use by stage
	// Redone is, by stage like Stages, the model use of work no result
	// rests on: cut off by an interruption, or done again on resume (a
	// memory rebuilt). Stages leaves it out, so a resumed run reports the
	// costs of one clean pass; Stages + Redone is every call made.
	Redone map[string]Cost `json:"redone,omitempty"`
	// Reasked is the part of Redone that judged again a verdict a judge
	// had given none on (rerun re-asks them), by stage like Redone.
	Reasked map[string]Cost `json:"reasked,omitempty"`
	// Invalid counts, per judge, verdicts whose model reply held no verdict
	// even after re-asking; they are left out of that judge's scores.
	Invalid map[string]int `json:"invalid,omitempty"`
	// FirstInvalid quotes one such reply per judge.
	FirstInvalid map[string]string `json:"first_invalid,omitempty"`
	// CacheDamaged is the manifest's count of damaged cache entries.
	CacheDamaged *CacheDamage `json:"cache_damaged,omitempty"`
	// Dollars prices Stages and Redone (set by the run; nil when unpriced).
	Dollars *Dollars `json:"dollars,omitempty"`
}

// Group is one row of the score table.
type Group struct {
	Name     string             `json:"name"`
	Abstains bool               `json:"abstains,omitempty"` // left out of Overall
	N        int                `json:"n"`
	Scores   map[string]float64 `json:"scores"`           // judge -> mean score × 100
	Judged   map[string]int     `json:"judged,omitempty"` // judge -> questions it judged, when fewer than N
	// Repeats: judge -> its repeated judging's spread and majority vote,
	// for judges that judged each question several times.
	Repeats map[string]RepeatStats `json:"repeats,omitempty"`
}

// Cost sums model usage.
type Cost struct {
	Calls        int     `json:"calls"`
	CachedCalls  int     `json:"cached_calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Seconds      float64 `json:"seconds"`
	// CachedInputTokens: of InputTokens, those the provider's prompt
	// cache served (Tally.CachedInputTokens).
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
}

func (c *Cost) add(t Tally) {
	c.Calls += t.Calls
	c.CachedCalls += t.CachedCalls
	c.InputTokens += t.InputTokens
	c.OutputTokens += t.OutputTokens
	c.CachedInputTokens += t.CachedInputTokens
	c.Seconds += t.Seconds
}

// Summarize reads a run directory's artifacts and computes its summary.
func Summarize(dir string) (*Summary, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	recs, err := readRecords(dir)
	if err != nil {
		return nil, err
	}
	return summarize(dir, m, recs)
}

// Known are records a caller holds and knows to be exactly a run file's
// lines (read from it and nothing appended or cut since, or kept as they
// were written: Appender.Keep), so that file need not be read again. Has
// names the files they stand for; the others are read.
type Known struct {
	Answers    []AnswerRecord
	Judgments  []Judgment
	Retrievals []RetrievalRecord
	Builds     []BuildRecord
	Costs      []CostRecord
	Has        map[string]bool // by file name (AnswersFile, ...)
}

// SummarizeWithStatus is Summarize and StatusOf(dir, status) from one
// read of the records; known (nil: none) stands for its files.
func SummarizeWithStatus(dir string, status Manifest, known *Known) (*Summary, Status, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, Status{}, err
	}
	recs, err := readRecordsKnown(dir, known)
	if err != nil {
		return nil, Status{}, err
	}
	s, err := summarize(dir, m, recs)
	if err != nil {
		return nil, Status{}, err
	}
	return s, recs.status(status), nil
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, fmt.Errorf("%s: %w (is this a run directory?)", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}

// records are a run's lines as written (every attempt's), before LastBy.
type records struct {
	answers   []AnswerRecord
	judgments []Judgment
	retr      []RetrievalRecord
	builds    []BuildRecord
	costs     []CostRecord
}

// readRecords reads the five files at once (they are independent); the
// first error in file order is returned, as when they were read in turn.
func readRecords(dir string) (records, error) { return readRecordsKnown(dir, nil) }

func readRecordsKnown(dir string, known *Known) (records, error) {
	var r records
	var errs [5]error
	var wg sync.WaitGroup
	read := func(i int, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	var k Known
	if known != nil {
		k = *known
	}
	heldOr(read, 0, dir, AnswersFile, k, k.Answers, &r.answers)
	heldOr(read, 1, dir, JudgmentsFile, k, k.Judgments, &r.judgments)
	heldOr(read, 2, dir, RetrievalsFile, k, k.Retrievals, &r.retr)
	heldOr(read, 3, dir, BuildFile, k, k.Builds, &r.builds)
	heldOr(read, 4, dir, CostsFile, k, k.Costs, &r.costs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return records{}, err
		}
	}
	return r, nil
}

// heldOr sets *dst to held when k stands for file, and otherwise reads the
// file (as the i-th of read's jobs).
func heldOr[T any](read func(int, func() error), i int, dir, file string, k Known, held []T, dst *[]T) {
	if k.Has[file] {
		*dst = held
		return
	}
	read(i, func() (err error) { *dst, err = ReadJSONL[T](filepath.Join(dir, file)); return })
}

// status is StatusOf's computation on records already read.
func (r records) status(m Manifest) Status {
	ans := LastBy(r.answers, func(x AnswerRecord) string { return x.QuestionID })
	js := LastBy(r.judgments, func(x Judgment) string { return x.QuestionID + "\x00" + x.Judge })
	return computeStatus(m, ans, js)
}

// summarize computes the summary from records already read (Load reads
// each file once for both the run and its summary).
func summarize(dir string, m Manifest, recs records) (*Summary, error) {
	answers, judgments, retr, builds, costs := recs.answers, recs.judgments, recs.retr, recs.builds, recs.costs
	s := &Summary{RunID: m.RunID, System: m.Config.System, Dataset: m.Dataset, Offline: m.Offline, Synthetic: m.Synthetic, OfflineParts: m.OfflineList(),
		Embedder: m.Embedder, EmbedderNote: m.EmbedderNote, Judges: m.Judges, Stages: map[string]Cost{}}
	s.Replay = m.Replay
	s.CacheDamaged = m.CacheDamaged
	s.JudgeModels = m.JudgeModels()
	for _, j := range m.Judges {
		if m.IsMetric(j) {
			s.Metrics = append(s.Metrics, j)
		}
	}
	ans := map[string]AnswerRecord{}
	for _, a := range answers {
		ans[a.QuestionID] = a
	}
	s.Questions = len(ans)
	// Last verdict per (question, judge) wins; invalid ones (no verdict in
	// the model's reply) are counted, not scored.
	valid, invalid := Verdicts(judgments)
	for _, j := range invalid {
		if _, ok := ans[j.QuestionID]; !ok {
			continue
		}
		if s.Invalid == nil {
			s.Invalid = map[string]int{}
		}
		s.Invalid[j.Judge]++
		if s.FirstInvalid == nil {
			s.FirstInvalid = map[string]string{}
		}
		if _, ok := s.FirstInvalid[j.Judge]; !ok {
			s.FirstInvalid[j.Judge] = clip(j.Raw, 200)
		}
	}
	verdict := map[string]map[string]float64{}
	for _, j := range valid {
		if _, ok := ans[j.QuestionID]; !ok {
			continue
		}
		if verdict[j.QuestionID] == nil {
			verdict[j.QuestionID] = map[string]float64{}
		}
		verdict[j.QuestionID][j.Judge] = j.Score
	}
	s.Groups, s.Overall = groupScores(ans, verdict, m)
	addRepeatStats(s, judgments, ans)
	limit := m.MaxBuildFailures
	if limit <= 0 {
		limit = DefaultMaxBuildFailures
	}
	s.ContextTokens, s.EvidenceRecall = retrievalStats(retr, ans)
	// A conversation rebuilt after a failed build has a newer line.
	for _, b := range LastBy(builds, func(b BuildRecord) string { return b.ConversationID }) {
		s.BuildRequests += b.Stats.Requests
		s.BuildFailed += b.Stats.Failed
		if s.FirstFailure == "" && b.Stats.FirstFailure != "" {
			s.FirstFailure = clip(b.Stats.FirstFailure, 200)
		}
		s.Build.Calls += b.Calls
		s.Build.InputTokens += b.InputTokens
		s.Build.OutputTokens += b.OutputTokens
		s.Build.Seconds += b.Seconds
		if b.EmptyMemory != "" {
			s.EmptyMemory = append(s.EmptyMemory, b.ConversationID+": "+b.EmptyMemory)
		}
	}
	s.FailedOverLimit = BuildDegraded(s.BuildFailed, s.BuildRequests, limit)
	s.Degraded = s.FailedOverLimit || len(s.EmptyMemory) > 0
	kept, redone := EffectiveCosts(costs)
	// A judge's cost record replaced after an invalid verdict paid for
	// that verdict, not for work an interruption cut off.
	invalidOn := map[string]bool{}
	for _, j := range judgments {
		if j.Invalid {
			invalidOn[j.QuestionID+"\x00"+j.Judge] = true
		}
	}
	for _, c := range redone {
		name, isJudge := strings.CutPrefix(c.Part, "judge:")
		reasked := isJudge && invalidOn[c.QuestionID+"\x00"+name]
		for _, t := range c.Tallies {
			key := string(t.Stage)
			if t.Label == "embedding" {
				key += ":embedding"
			}
			if s.Redone == nil {
				s.Redone = map[string]Cost{}
			}
			v := s.Redone[key]
			v.add(t)
			s.Redone[key] = v
			if reasked {
				if s.Reasked == nil {
					s.Reasked = map[string]Cost{}
				}
				r := s.Reasked[key]
				r.add(t)
				s.Reasked[key] = r
			}
		}
	}
	for _, c := range kept {
		for _, t := range c.Tallies {
			key := string(t.Stage)
			if t.Label == "embedding" {
				key += ":embedding"
			}
			v := s.Stages[key]
			v.add(t)
			s.Stages[key] = v
		}
	}
	return s, nil
}

// groupScores scores each group and the overall row (abstaining
// questions left out), the groups in the order of the run's dataset.
func groupScores(ans map[string]AnswerRecord, verdict map[string]map[string]float64, m Manifest) ([]Group, Group) {
	judges := m.Judges
	type acc struct {
		g   Group
		sum map[string]float64
		n   map[string]int
	}
	groups := map[string]*acc{}
	overall := &acc{g: Group{Name: "overall"}, sum: map[string]float64{}, n: map[string]int{}}
	add := func(a *acc, v map[string]float64) {
		a.g.N++
		for j, x := range v {
			a.sum[j] += x
			a.n[j]++
		}
	}
	// Sum in question-id order so the same artifacts give the same bits.
	for _, qid := range sortedKeys(ans) {
		a := ans[qid]
		g := groups[a.Group]
		if g == nil {
			g = &acc{g: Group{Name: a.Group}, sum: map[string]float64{}, n: map[string]int{}}
			groups[a.Group] = g
		}
		g.g.Abstains = g.g.Abstains || a.Abstains()
		add(g, verdict[a.QuestionID])
		if !a.Abstains() {
			add(overall, verdict[a.QuestionID])
		}
	}
	finish := func(a *acc) Group {
		a.g.Scores = map[string]float64{}
		for _, j := range judges {
			if a.n[j] > 0 {
				a.g.Scores[j] = 100 * a.sum[j] / float64(a.n[j])
				if a.n[j] < a.g.N {
					// A partial judge (e.g. human grading in progress)
					// must not read as if it covered every question.
					if a.g.Judged == nil {
						a.g.Judged = map[string]int{}
					}
					a.g.Judged[j] = a.n[j]
				}
			}
		}
		return a.g
	}
	var out []Group
	for _, g := range groups {
		out = append(out, finish(g))
	}
	sort.Slice(out, func(i, j int) bool { return m.GroupLess(out[i].Name, out[j].Name) })
	return out, finish(overall)
}

func retrievalStats(retr []RetrievalRecord, ans map[string]AnswerRecord) (TokenStats, float64) {
	last := map[string]RetrievalRecord{}
	for _, r := range retr {
		last[r.QuestionID] = r
	}
	var ts TokenStats
	var recallSum float64
	recallN := 0
	for _, qid := range sortedKeys(last) {
		r := last[qid]
		if _, ok := ans[qid]; !ok {
			continue
		}
		if ts.N == 0 || r.Tokens < ts.Min {
			ts.Min = r.Tokens
		}
		if r.Tokens > ts.Max {
			ts.Max = r.Tokens
		}
		ts.Mean += float64(r.Tokens)
		ts.N++
		if c := CountEvidence(r); CountsForRecall(ans[qid], c) {
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

// sortedKeys orders map keys so the same artifacts give the same output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// clip shortens s to n bytes (on a rune boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (c *Cost) merge(o Cost) {
	c.Calls += o.Calls
	c.CachedCalls += o.CachedCalls
	c.InputTokens += o.InputTokens
	c.OutputTokens += o.OutputTokens
	c.CachedInputTokens += o.CachedInputTokens
	c.Seconds += o.Seconds
}

// RedoneCalls sums the LLM calls of Redone (embeddings left out).
func (s *Summary) RedoneCalls() Cost { return llmCalls(s.Redone) }

// ReaskedCalls sums the LLM calls of Reasked.
func (s *Summary) ReaskedCalls() Cost { return llmCalls(s.Reasked) }

func llmCalls(by map[string]Cost) Cost {
	var c Cost
	for k, v := range by {
		if !strings.HasSuffix(k, ":embedding") {
			c.merge(v)
		}
	}
	return c
}
