package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

// Outcomes of one question's evidence (QuestionDiag.Outcome). Evidence
// counts as reaching a stage when some item of that stage lists an
// evidence turn id among its Sources.
const (
	OutcomeNoEvidence     = "no-evidence"     // the dataset gives no evidence ids
	OutcomeLostCandidates = "lost-candidates" // no evidence turn among the candidates
	OutcomeLostSelection  = "lost-selection"  // some evidence among the candidates, none among the selected items
	OutcomeLost           = "lost"            // no candidate stage, and no evidence in the context
	OutcomePartial        = "partial"         // some but not all evidence in the context
	OutcomeAllHit         = "all-hit"         // every evidence turn in the context
)

// Counts are one row of the decomposition (a group, or overall).
type Counts struct {
	Group string `json:"group"`
	// Questions with a retrieval record and an answer; NoEvidence of them
	// have no evidence ids and are left out of every rate below.
	Questions  int `json:"questions"`
	NoEvidence int `json:"no_evidence"`
	Evidence   int `json:"with_evidence"`

	// Candidate stage, over questions with evidence whose record has
	// candidates (two-stage selectors such as turns-rerank).
	WithCandidates    int `json:"with_candidates"`
	AllInCandidates   int `json:"all_in_candidates"`
	AnyInCandidates   int `json:"any_in_candidates"`
	LostAtCandidates  int `json:"lost_at_candidates"`  // none in candidates
	DroppedBySelector int `json:"dropped_by_selector"` // some in candidates, none selected

	// Rendered context, over every question with evidence.
	AllHit      int     `json:"all_hit"`
	AnyHit      int     `json:"any_hit"`
	FractionSum float64 `json:"fraction_sum"` // Σ |evidence ∩ context| / |evidence|
}

// Pct returns 100·num/den, NaN when den is 0 (printed as "-").
func Pct(num, den int) float64 {
	if den == 0 {
		return math.NaN()
	}
	return 100 * float64(num) / float64(den)
}

// MeanFraction is the mean share of evidence turns in the context (percent).
func (c Counts) MeanFraction() float64 {
	if c.Evidence == 0 {
		return math.NaN()
	}
	return 100 * c.FractionSum / float64(c.Evidence)
}

// QuestionDiag is one question's line of --per-question.
type QuestionDiag struct {
	QuestionID     string `json:"question_id"`
	ConversationID string `json:"conversation_id"`
	Group          string `json:"group"`
	Category       int    `json:"category"`
	Evidence       int    `json:"evidence"`      // distinct evidence ids
	Candidates     int    `json:"candidates"`    // candidate items (0 = no candidate stage)
	InCandidates   int    `json:"in_candidates"` // evidence ids among the candidates' sources
	InContext      int    `json:"in_context"`    // evidence ids among the selected items' sources
	Outcome        string `json:"outcome"`
	Tokens         int    `json:"tokens"`
	Abstention     bool   `json:"abstention"`
	Judge          string `json:"judge,omitempty"`
	Correct        *bool  `json:"correct,omitempty"`
}

// Diagnosis is the retrieval-loss decomposition of one run.
type Diagnosis struct {
	RunID   string `json:"run_id"`
	Dir     string `json:"dir"`
	System  string `json:"system"`
	K       int    `json:"k"`
	KSource string `json:"k_source"`
	Offline bool   `json:"offline"`
	// OfflineNote is "offline heuristics (...)" when any part of the run
	// (answers, decisions, judges) came from the offline backend; every
	// table of the diagnosis carries it.
	OfflineNote string `json:"offline_note,omitempty"`
	// SyntheticNote is set when the run's dataset came from `datasets
	// synth`; every table carries it too.
	SyntheticNote string         `json:"synthetic_note,omitempty"`
	Dataset       string         `json:"dataset"`
	Groups        []Counts       `json:"groups"`  // per group, in the dataset's order
	Overall       Counts         `json:"overall"` // every question but the abstaining ones (LoCoMo adversarial, LongMemEval _abs)
	Abstention    AbstentionRate `json:"abstention"`
	Questions     []QuestionDiag `json:"-"`       // see WritePerQuestion
	Skipped       int            `json:"skipped"` // retrievals without an answer (interrupted run)
	// Set is the question set the run answered; the study's decomposition
	// is printed beside ours only on its own set (HeldOutSet).
	Set QuestionSet `json:"question_set"`
	// PaperNotApplicable says why the study's decomposition, which it
	// gives for this kind of run, is not printed: the run answered
	// another question set. "" when printed or when the study has none.
	PaperNotApplicable string `json:"paper_not_applicable,omitempty"`
	// What the run's selection rests on, named beside the study's figures.
	DecisionModel  string `json:"decision_model,omitempty"`
	Embedder       string `json:"embedder,omitempty"`
	DecisionPrompt string `json:"decision_prompt,omitempty"`
}

// AbstentionRate is the share of abstaining questions (LoCoMo
// adversarial, LongMemEval "_abs") that the judge scored correct: the
// answer declined.
type AbstentionRate struct {
	Run     string  `json:"run"`
	System  string  `json:"system"`
	K       int     `json:"k"`
	Judge   string  `json:"judge"`
	N       int     `json:"n"` // abstention questions with a verdict of Judge
	Correct int     `json:"correct"`
	Rate    float64 `json:"rate"`  // percent; 0 when N = 0
	Lo      float64 `json:"ci_lo"` // Wilson 95%, percent
	Hi      float64 `json:"ci_hi"`
	// Offline is the run's offline-heuristics note ("" when none).
	Offline   string `json:"offline,omitempty"`
	Synthetic bool   `json:"synthetic,omitempty"`
	// PaperNotApplicable says why the study's rate for this system at
	// k=3 is not printed beside this run's: another question set than
	// the study's split (PrimarySet).
	PaperNotApplicable string `json:"paper_not_applicable,omitempty"`
}

// HasPaper reports whether the study gives this row's rate and the row
// is on the study's split.
func (a AbstentionRate) HasPaper() bool {
	_, ok := PaperAbstentionK3[a.System]
	return ok && a.K == 3 && a.PaperNotApplicable == ""
}

// Diagnose decomposes where each question's evidence was lost. judgeName
// picks the verdicts for the abstention rate ("" = DefaultJudge).
func Diagnose(r *runlog.Run, judgeName string) (*Diagnosis, error) {
	if judgeName == "" {
		judgeName = r.Manifest.PrimaryJudge()
	}
	d := &Diagnosis{RunID: r.ID(), Dir: r.Dir, System: r.Manifest.Config.System, Offline: r.Manifest.Offline, OfflineNote: runOfflineNote(r.Manifest), SyntheticNote: SyntheticNote(r.Manifest), Dataset: r.Manifest.Dataset}
	d.K, d.KSource, _ = ResolveK(r.Manifest)
	d.Set = questionSetOf(r)
	if id, ok := r.Manifest.Models["decide"]; ok {
		d.DecisionModel = id.Backend + ":" + id.Model
	}
	d.Embedder = r.Manifest.Embedder
	if h := strings.Fields(r.Manifest.Prompts[decisionPrompt]); len(h) > 0 {
		d.DecisionPrompt = decisionPrompt + " sha256:" + h[0][:min(12, len(h[0]))]
		if rest := strings.TrimSpace(strings.TrimPrefix(r.Manifest.Prompts[decisionPrompt], h[0])); rest != "" {
			d.DecisionPrompt += " " + rest
		}
	}
	ans := map[string]runlog.AnswerRecord{}
	for _, a := range r.Answers {
		ans[a.QuestionID] = a
	}
	verdict := map[string]bool{}
	for _, j := range r.Judgments {
		if j.Judge == judgeName {
			verdict[j.QuestionID] = j.Correct
		}
	}
	groups := map[string]*Counts{}
	d.Overall.Group = "overall"
	for _, rec := range r.Retrievals {
		a, ok := ans[rec.QuestionID]
		if !ok {
			d.Skipped++
			continue
		}
		q := classify(rec)
		q.Group, q.Category, q.Abstention = a.Group, a.Category, a.Abstains()
		if c, ok := verdict[a.QuestionID]; ok {
			q.Judge, q.Correct = judgeName, &c
		}
		d.Questions = append(d.Questions, q)
		g := groups[q.Group]
		if g == nil {
			g = &Counts{Group: q.Group}
			groups[q.Group] = g
		}
		g.add(q)
		if !a.Abstains() { // as the summary's overall and evidence recall
			d.Overall.add(q)
		}
	}
	for _, g := range groups {
		d.Groups = append(d.Groups, *g)
	}
	sort.Slice(d.Groups, func(i, j int) bool { return r.Manifest.GroupLess(d.Groups[i].Group, d.Groups[j].Group) })
	if d.studyKind() {
		d.PaperNotApplicable = HeldOutSet.Mismatch(d.Set)
	}
	var err error
	d.Abstention, err = Abstention(r, judgeName)
	return d, err
}

// classify computes one question's evidence counts and outcome.
func classify(rec runlog.RetrievalRecord) QuestionDiag {
	q := QuestionDiag{QuestionID: rec.QuestionID, ConversationID: rec.ConversationID, Candidates: len(rec.Candidates), Tokens: rec.Tokens}
	c := membench.CountEvidence(rec.Evidence, rec.Candidates, rec.Items, rec.EvidenceHit)
	q.Evidence, q.InCandidates, q.InContext = c.Evidence, c.InCandidates, c.InContext
	if q.Evidence == 0 {
		q.Outcome = OutcomeNoEvidence
		return q
	}
	switch {
	case q.Candidates > 0 && q.InCandidates == 0:
		q.Outcome = OutcomeLostCandidates
	case q.Candidates > 0 && q.InContext == 0:
		q.Outcome = OutcomeLostSelection
	case q.InContext == 0:
		q.Outcome = OutcomeLost
	case q.InContext < q.Evidence:
		q.Outcome = OutcomePartial
	default:
		q.Outcome = OutcomeAllHit
	}
	return q
}

func (c *Counts) add(q QuestionDiag) {
	c.Questions++
	if q.Evidence == 0 {
		c.NoEvidence++
		return
	}
	c.Evidence++
	if q.Candidates > 0 {
		c.WithCandidates++
		if q.InCandidates == q.Evidence {
			c.AllInCandidates++
		}
		if q.InCandidates > 0 {
			c.AnyInCandidates++
			if q.InContext == 0 {
				c.DroppedBySelector++
			}
		} else {
			c.LostAtCandidates++
		}
	}
	if q.InContext == q.Evidence {
		c.AllHit++
	}
	if q.InContext > 0 {
		c.AnyHit++
	}
	c.FractionSum += float64(q.InContext) / float64(q.Evidence)
}

// Abstention computes the correct-abstention rate of one run with judge
// judgeName ("" = DefaultJudge). With a lexical metric judge (f1, bleu1,
// em) an abstaining question's verdict is correct exactly when the answer
// declines, as LoCoMo's own scoring does.
func Abstention(r *runlog.Run, judgeName string) (AbstentionRate, error) {
	if judgeName == "" {
		judgeName = r.Manifest.PrimaryJudge()
	}
	k, _, _ := ResolveK(r.Manifest)
	out := AbstentionRate{Run: r.ID(), System: r.Manifest.Config.System, K: k, Judge: judgeName, Offline: runOfflineNote(r.Manifest), Synthetic: r.Manifest.Synthetic}
	if _, ok := PaperAbstentionK3[out.System]; ok && k == 3 {
		out.PaperNotApplicable = PrimarySet.Mismatch(questionSetOf(r))
	}
	abst := map[string]bool{}
	for _, a := range r.Answers {
		if a.Abstains() {
			abst[a.QuestionID] = true
		}
	}
	for _, j := range r.Judgments {
		if j.Judge == judgeName && abst[j.QuestionID] {
			out.N++
			if j.Correct {
				out.Correct++
			}
		}
	}
	if out.N > 0 {
		lo, hi, err := wilson(out.Correct, out.N)
		if err != nil {
			return out, err
		}
		out.Rate, out.Lo, out.Hi = Pct(out.Correct, out.N), lo, hi
	}
	return out, nil
}

// HasJudge reports whether the run's manifest lists judge name.
func HasJudge(m runlog.Manifest, name string) bool { return slices.Contains(m.Judges, name) }

// CheckJudge errors when a run has no judge of that name.
func CheckJudge(r *runlog.Run, name string) error {
	if name == "" || HasJudge(r.Manifest, name) {
		return nil
	}
	return fmt.Errorf("--judge %s: run %s has no such judge (it has %v)", name, r.Dir, r.Manifest.Judges)
}
