package analysis

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/stats"
)

// PaperStudy names the paper these reference numbers come from, by title.
const PaperStudy = `the raw-turn selection study ("Under a tight context budget, raw-turn selection replaces LLM-extracted memory")`

// Reference numbers of the raw-turn selection study (PaperStudy): its loss
// decomposition over 9 held-out LoCoMo conversations, 1,388 questions,
// turns-rerank with n=30 candidates.
var (
	PaperAllInCandidates   = 76.9
	PaperAnyInCandidates   = 88.5
	PaperDroppedBySelector = 10.4 // of questions with some evidence in the candidates
	PaperLostAtCandidates  = 11.5 // of all questions
	PaperLostAtSelection   = 9.2  // of all questions
	PaperTemporalDropped   = 22.7 // temporal questions, of those with some evidence in the candidates
	// Correct abstention on adversarial questions at k=3 (LoCoMo).
	PaperAbstentionK3 = map[string]float64{"turns-cosine": 63.6, "turns-rerank": 54.1, "turns-llm": 48.8}
)

func wilson(successes, n int) (lo, hi float64, err error) {
	lo, hi, err = stats.Wilson(successes, n, 0.95)
	return 100 * lo, 100 * hi, err
}

func pct(v float64) string { return report.F(v, 1) }

// Definitions printed under the tables and written in the docs.
var diagnoseDefinitions = []string{
	"evidence reaches a stage when an item of that stage lists an evidence turn id among its sources; questions without evidence ids are counted apart and left out of every rate",
	"lost at candidate stage = no evidence turn among the candidates; lost at selection = some evidence among the candidates but none among the selected items",
	"dropped by selector = lost at selection / questions with at least one evidence turn among the candidates; the two 'lost' columns are shares of all questions with candidates",
	"overall leaves out the questions whose right answer is to decline (LoCoMo adversarial, LongMemEval _abs)",
}

// CandidateTable is the candidate-stage decomposition (nil when no record
// of the run has candidates).
func (d *Diagnosis) CandidateTable() *report.Table {
	if d.Overall.WithCandidates == 0 && !slices.ContainsFunc(d.Groups, func(g Counts) bool { return g.WithCandidates > 0 }) {
		return nil
	}
	t := &report.Table{
		Title:  fmt.Sprintf("candidate stage vs selection: %s (%s)", d.System, d.RunID),
		Header: []string{"group", "n", "all in cands %", ">=1 in cands %", "lost at cands %", "lost at selection %", "dropped by selector %"},
	}
	for _, c := range d.rows() {
		t.Add(c.Group, c.WithCandidates, pct(Pct(c.AllInCandidates, c.WithCandidates)), pct(Pct(c.AnyInCandidates, c.WithCandidates)),
			pct(Pct(c.LostAtCandidates, c.WithCandidates)), pct(Pct(c.DroppedBySelector, c.WithCandidates)), pct(Pct(c.DroppedBySelector, c.AnyInCandidates)))
	}
	t.Notes = append(d.offlineNotes(), diagnoseDefinitions...)
	return t
}

// rows are a table's rows: every group, then overall.
func (d *Diagnosis) rows() []Counts { return append(slices.Clone(d.Groups), d.Overall) }

// offlineNotes is the run's offline-heuristics line, for every table.
func (d *Diagnosis) offlineNotes() []string {
	var out []string
	if d.SyntheticNote != "" {
		out = append(out, d.SyntheticNote)
	}
	if d.OfflineNote != "" {
		out = append(out, d.OfflineNote)
	}
	return out
}

// RecallTable is the evidence recall of the rendered context, per group.
func (d *Diagnosis) RecallTable() *report.Table {
	t := &report.Table{
		Title:  fmt.Sprintf("evidence recall of the rendered context: %s at k=%s (%s)", d.System, kLabel(d.K), d.RunID),
		Header: []string{"group", "questions", "no evidence ids", "with evidence", "all evidence hit %", ">=1 hit %", "mean fraction %"},
	}
	for _, c := range d.rows() {
		t.Add(c.Group, c.Questions, c.NoEvidence, c.Evidence, pct(Pct(c.AllHit, c.Evidence)), pct(Pct(c.AnyHit, c.Evidence)), pct(c.MeanFraction()))
	}
	t.Notes = append(t.Notes, d.offlineNotes()...)
	if d.Skipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d retrievals have no answer yet (interrupted run) and are left out", d.Skipped))
	}
	return t
}

func kLabel(k int) string {
	if k == 0 {
		return "-"
	}
	return strconv.Itoa(k)
}

// decisionPrompt is the manifest's name of the decision model's prompt
// (turns-rerank's relevance question).
const decisionPrompt = "relevance"

// What the study's selection rests on, named beside its figures
// (papers.md B; configs/seed_study.yaml).
const (
	PaperDecisionModel  = "the study's own decision model (Jev), fixed choices read as a probability"
	PaperEmbedder       = "text-embedding-3-small"
	PaperDecisionPrompt = `the study's own ("does this turn help answer the question?")`
)

// studyKind reports whether the study gives a loss decomposition for this
// kind of run: turns-rerank, with a candidate stage.
func (d *Diagnosis) studyKind() bool {
	return d.System == "turns-rerank" && d.Overall.WithCandidates > 0
}

// HasPaperFigures reports whether the study's decomposition is printed
// beside this run's: a turns-rerank run (a candidate stage) on the
// study's own question set (HeldOutSet). Other systems get no paper
// column at all; a turns-rerank run on another set gets a line saying the
// column does not apply (PaperNotApplicable).
func (d *Diagnosis) HasPaperFigures() bool {
	return d.studyKind() && HeldOutSet.Mismatch(d.Set) == ""
}

// PaperTable puts our decomposition next to the raw-turn selection
// study's numbers, with the decision model, embedder and decision prompt
// each side used; nil unless HasPaperFigures.
func (d *Diagnosis) PaperTable() *report.Table {
	if !d.HasPaperFigures() {
		return nil
	}
	t := &report.Table{Title: "ours vs the raw-turn selection study (turns-rerank, n=30, 9 held-out LoCoMo conversations, 1,388 questions)",
		Header: []string{"measure", "ours", "paper"}}
	o := d.Overall
	var temporal Counts
	for _, g := range d.Groups {
		if g.Group == "temporal" { // LoCoMo's group (HasPaperFigures: a LoCoMo run)
			temporal = g
		}
	}
	t.Add("all evidence in the candidates %", pct(Pct(o.AllInCandidates, o.WithCandidates)), pct(PaperAllInCandidates))
	t.Add("at least one evidence turn in the candidates %", pct(Pct(o.AnyInCandidates, o.WithCandidates)), pct(PaperAnyInCandidates))
	t.Add("in candidates but all dropped by the selector %", pct(Pct(o.DroppedBySelector, o.AnyInCandidates)), pct(PaperDroppedBySelector))
	t.Add("lost at candidate stage (of all) %", pct(Pct(o.LostAtCandidates, o.WithCandidates)), pct(PaperLostAtCandidates))
	t.Add("lost at selection (of all) %", pct(Pct(o.DroppedBySelector, o.WithCandidates)), pct(PaperLostAtSelection))
	t.Add("temporal: in candidates but all dropped %", pct(Pct(temporal.DroppedBySelector, temporal.AnyInCandidates)), pct(PaperTemporalDropped))
	t.Add("decision model", cmp.Or(d.DecisionModel, "-"), PaperDecisionModel)
	t.Add("embedder", cmp.Or(d.Embedder, "-"), PaperEmbedder)
	t.Add("decision prompt", cmp.Or(d.DecisionPrompt, "-"), PaperDecisionPrompt)
	t.Notes = []string{fmt.Sprintf("ours: %d questions with evidence and a candidate stage (%s, %s) on %s; paper: %s", o.WithCandidates, d.System, d.RunID, d.Set, PaperStudy)}
	if d.OfflineNote != "" {
		t.Notes = append(t.Notes, "OFFLINE run, "+d.OfflineNote+": not comparable with the paper's figures")
	}
	if d.SyntheticNote != "" {
		t.Notes = append(t.Notes, d.SyntheticNote)
	}
	return t
}

// AbstentionTable puts several runs' correct-abstention rates side by side,
// ordered by system then k.
func AbstentionTable(rows []AbstentionRate) *report.Table {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b AbstentionRate) int {
		return cmp.Or(strings.Compare(a.System, b.System), cmp.Compare(a.K, b.K))
	})
	withPaper := slices.ContainsFunc(rows, AbstentionRate.HasPaper)
	header := []string{"run", "system", "k", "judge", "n", "abstained correctly %", "95% CI"}
	if withPaper {
		header = append(header, "paper at k=3 %")
	}
	t := &report.Table{Title: "correct abstention on adversarial / abstention questions", Header: header}
	for _, r := range rows {
		rate, ci := "-", "-"
		if r.N > 0 {
			rate, ci = pct(r.Rate), fmt.Sprintf("[%s, %s]", pct(r.Lo), pct(r.Hi))
		}
		if r.N > 0 && r.Offline != "" {
			rate += " (offline heuristics)"
		}
		cells := []any{r.Run, r.System, kLabel(r.K), r.Judge, r.N, rate, ci}
		if withPaper {
			paper := "-"
			if r.HasPaper() {
				paper = pct(PaperAbstentionK3[r.System])
			}
			cells = append(cells, paper)
		}
		t.Add(cells...)
	}
	t.Notes = []string{
		"a verdict is correct when the judge accepts the answer; for abstention questions that means the answer declined (f1/bleu1/em score 1 exactly for a declining answer)",
	}
	for _, r := range rows {
		if r.Offline != "" {
			t.Notes = append(t.Notes, r.Run+": "+r.Offline)
		}
		if r.Synthetic {
			t.Notes = append(t.Notes, r.Run+": SYNTHETIC dataset (written by `membench datasets synth`): measures scale and plumbing, not a benchmark")
		}
	}
	if withPaper {
		t.Notes = append(t.Notes, "paper at k=3: "+PaperStudy+" on "+PrimarySet.Name+": cosine 63.6, decision-model rerank 54.1, LLM reranker 48.8")
	}
	for _, r := range rows {
		if r.PaperNotApplicable != "" {
			t.Notes = append(t.Notes, r.Run+": the study's rate at k=3 does not apply: "+r.PaperNotApplicable)
		}
	}
	return t
}

// WritePerQuestion writes one CSV line per question.
func (d *Diagnosis) WritePerQuestion(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"question_id", "conversation_id", "group", "category", "evidence", "candidates", "in_candidates", "in_context", "outcome", "tokens", "abstention", "judge", "correct"})
	for _, q := range d.Questions {
		correct := ""
		if q.Correct != nil {
			correct = strconv.FormatBool(*q.Correct)
		}
		cw.Write([]string{q.QuestionID, q.ConversationID, q.Group, strconv.Itoa(q.Category), strconv.Itoa(q.Evidence),
			strconv.Itoa(q.Candidates), strconv.Itoa(q.InCandidates), strconv.Itoa(q.InContext), q.Outcome,
			strconv.Itoa(q.Tokens), strconv.FormatBool(q.Abstention), q.Judge, correct})
	}
	cw.Flush()
	return cw.Error()
}

// Rates are a Counts row's percentages (nil when the denominator is 0).
type Rates struct {
	Group             string   `json:"group"`
	AllInCandidates   *float64 `json:"all_in_candidates_pct"`
	AnyInCandidates   *float64 `json:"any_in_candidates_pct"`
	LostAtCandidates  *float64 `json:"lost_at_candidates_pct"`
	LostAtSelection   *float64 `json:"lost_at_selection_pct"`
	DroppedBySelector *float64 `json:"dropped_by_selector_pct"`
	AllHit            *float64 `json:"all_evidence_hit_pct"`
	AnyHit            *float64 `json:"any_evidence_hit_pct"`
	MeanFraction      *float64 `json:"mean_fraction_pct"`
}

// Rates computes the percentages the tables print.
func (c Counts) Rates() Rates {
	return Rates{Group: c.Group,
		AllInCandidates:   finite(Pct(c.AllInCandidates, c.WithCandidates)),
		AnyInCandidates:   finite(Pct(c.AnyInCandidates, c.WithCandidates)),
		LostAtCandidates:  finite(Pct(c.LostAtCandidates, c.WithCandidates)),
		LostAtSelection:   finite(Pct(c.DroppedBySelector, c.WithCandidates)),
		DroppedBySelector: finite(Pct(c.DroppedBySelector, c.AnyInCandidates)),
		AllHit:            finite(Pct(c.AllHit, c.Evidence)),
		AnyHit:            finite(Pct(c.AnyHit, c.Evidence)),
		MeanFraction:      finite(c.MeanFraction()),
	}
}
