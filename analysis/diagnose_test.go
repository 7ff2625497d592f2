package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

func items(sources ...string) []membench.ItemRef {
	var out []membench.ItemRef
	for _, s := range sources {
		out = append(out, membench.ItemRef{ID: s, Sources: strings.Split(s, "+")})
	}
	return out
}

// rerankRun is a hand-made two-stage run whose decomposition is known:
//
//	q1 multi-hop  ev D1:1,D1:2  both in cands, context has D1:1 only   -> partial
//	q2 multi-hop  ev D1:3       not in cands                           -> lost-candidates
//	q3 temporal   ev D2:1       in cands, not selected                 -> lost-selection
//	q4 temporal   ev D2:2,D2:3  D2:2 in cands and context              -> partial
//	q5 temporal   no evidence                                          -> no-evidence
//	q6 adversarial ev D3:1      in cands and context                   -> all-hit
//	q7 adversarial no evidence
func rerankRun() fakeRun {
	ans := func(id string, cat int) runlog.AnswerRecord {
		return runlog.AnswerRecord{QuestionID: id, ConversationID: "c1", Category: cat}
	}
	ret := func(id string, ev []string, cands, ctx []membench.ItemRef) runlog.RetrievalRecord {
		return runlog.RetrievalRecord{QuestionID: id, ConversationID: "c1", Evidence: ev, Candidates: cands, Items: ctx, Tokens: 10}
	}
	jd := func(id, j string, ok bool) runlog.Judgment {
		s := 0.0
		if ok {
			s = 1
		}
		return runlog.Judgment{QuestionID: id, Judge: j, Correct: ok, Score: s}
	}
	return fakeRun{
		Manifest: runlog.Manifest{Config: membench.Config{System: "turns-rerank", K: 3}, Judges: []string{"f1", "llm"}, Offline: true, Dataset: "locomo"},
		Retrievals: []runlog.RetrievalRecord{
			ret("q1", []string{"D1:1"}, nil, nil), // superseded by the later line
			ret("q1", []string{"D1:1", "D1:2"}, items("D1:1", "D1:2", "D1:5"), items("D1:1+D9:9")),
			ret("q2", []string{"D1:3"}, items("D1:9"), items("D1:9")),
			ret("q3", []string{"D2:1"}, items("D2:1", "D2:7"), items("D2:7")),
			ret("q4", []string{"D2:2", "D2:3", "D2:2"}, items("D2:2", "D2:8"), items("D2:2")),
			ret("q5", nil, items("D2:8"), items("D2:8")),
			ret("q6", []string{"D3:1"}, items("D3:1"), items("D3:1")),
			ret("q7", nil, items("D3:2"), items("D3:2")),
			ret("q8", []string{"D4:1"}, items("D4:1"), items("D4:1")), // no answer yet
		},
		Answers: []runlog.AnswerRecord{ans("q1", 1), ans("q2", 1), ans("q3", 2), ans("q4", 2), ans("q5", 2), ans("q6", 5), ans("q7", 5)},
		Judgments: []runlog.Judgment{
			jd("q6", "llm", true), jd("q7", "llm", false), jd("q6", "f1", true), jd("q7", "f1", true),
			jd("q1", "llm", true), jd("q1", "f1", false),
		},
	}
}

func TestDiagnoseCounts(t *testing.T) {
	r := mustLoad(t, rerankRun().write(t, filepath.Join(t.TempDir(), "rr")))
	d, err := Diagnose(r, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Counts{
		"multi-hop":   {Questions: 2, Evidence: 2, WithCandidates: 2, AllInCandidates: 1, AnyInCandidates: 1, LostAtCandidates: 1, AnyHit: 1, FractionSum: 0.5},
		"temporal":    {Questions: 3, NoEvidence: 1, Evidence: 2, WithCandidates: 2, AllInCandidates: 1, AnyInCandidates: 2, DroppedBySelector: 1, AnyHit: 1, FractionSum: 0.5},
		"adversarial": {Questions: 2, NoEvidence: 1, Evidence: 1, WithCandidates: 1, AllInCandidates: 1, AnyInCandidates: 1, AllHit: 1, AnyHit: 1, FractionSum: 1},
		"overall":     {Questions: 5, NoEvidence: 1, Evidence: 4, WithCandidates: 4, AllInCandidates: 2, AnyInCandidates: 3, LostAtCandidates: 1, DroppedBySelector: 1, AnyHit: 2, FractionSum: 1},
	}
	got := map[string]Counts{"overall": d.Overall}
	for _, g := range d.Groups {
		got[g.Group] = g
	}
	if len(d.Groups) != 3 || d.Groups[0].Group != "multi-hop" || d.Groups[1].Group != "temporal" {
		t.Errorf("groups %+v, want multi-hop, temporal, adversarial in category order", d.Groups)
	}
	for name, w := range want {
		g := got[name]
		g.Group = ""
		if g != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, g, w)
		}
	}
	if d.Skipped != 1 {
		t.Errorf("skipped %d, want 1 (q8 has no answer)", d.Skipped)
	}
	// Rates the tables print.
	o := d.Overall.Rates()
	if *o.AllInCandidates != 50 || *o.AnyInCandidates != 75 || *o.LostAtCandidates != 25 || *o.LostAtSelection != 25 ||
		*o.AllHit != 0 || *o.MeanFraction != 25 {
		t.Errorf("overall rates %+v", o)
	}
	if v := *o.DroppedBySelector; v < 33.33 || v > 33.34 {
		t.Errorf("dropped by selector %.3f, want 1/3", v)
	}
	// Default judge skips the f1 metric listed first: llm says q6 right, q7 wrong.
	if a := d.Abstention; a.Judge != "llm" || a.N != 2 || a.Correct != 1 || a.Rate != 50 {
		t.Errorf("abstention %+v, want llm 1/2", a)
	}
	if a, _ := Abstention(r, "f1"); a.N != 2 || a.Correct != 2 {
		t.Errorf("f1 abstention %+v, want 2/2", a)
	}

	// c1 is not the study's question set: no paper table, and a reason.
	if d.PaperTable() != nil || !strings.Contains(d.PaperNotApplicable, "this run answered locomo c1, 5 scored questions (other conversations)") {
		t.Errorf("paper table on a one-conversation run; not-applicable note %q", d.PaperNotApplicable)
	}
	onSet := *d
	onSet.Set = QuestionSet{Dataset: "locomo", AnswerKey: "published", Conversations: HeldOutSet.Conversations, Scored: 1388}
	onSet.DecisionModel, onSet.Embedder = "offline:offline-heuristic", "tfidf-hash-512"
	var paper bytes.Buffer
	if err := onSet.PaperTable().CSV(&paper); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&paper).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantPaper := map[string][2]string{
		"all evidence in the candidates %":                {"50.0", "76.9"},
		"in candidates but all dropped by the selector %": {"33.3", "10.4"},
		"temporal: in candidates but all dropped %":       {"50.0", "22.7"},
		"decision model":  {"offline:offline-heuristic", PaperDecisionModel},
		"embedder":        {"tfidf-hash-512", PaperEmbedder},
		"decision prompt": {"-", PaperDecisionPrompt},
	}
	seen := 0
	for _, row := range rows[1:] {
		if w, ok := wantPaper[row[0]]; ok {
			seen++
			if row[1] != w[0] || row[2] != w[1] {
				t.Errorf("paper table %q = %v, want ours %s paper %s", row[0], row[1:], w[0], w[1])
			}
		}
	}
	if seen != len(wantPaper) {
		t.Errorf("paper table has %d of the %d rows checked:\n%v", seen, len(wantPaper), rows)
	}

	// The paper reports the decomposition for turns-rerank on LoCoMo only:
	// elsewhere no paper table, and no abstention column of dashes.
	for _, other := range []struct{ system, dataset string }{{"turns-cosine", "locomo"}, {"turns-rerank", "sample"}} {
		o := onSet
		o.System, o.Set.Dataset = other.system, other.dataset
		if o.PaperTable() != nil {
			t.Errorf("%s on %s: paper table printed, but the paper reports no such figure", other.system, other.dataset)
		}
	}
	if h := AbstentionTable([]AbstentionRate{{Run: "x", System: "structmem", K: 3}}).Header; strings.Contains(strings.Join(h, ","), "paper") {
		t.Errorf("abstention table for structmem has a paper column: %v", h)
	}
	if h := AbstentionTable([]AbstentionRate{{Run: "x", System: "turns-cosine", K: 3}}).Header; !strings.Contains(strings.Join(h, ","), "paper") {
		t.Errorf("abstention table for turns-cosine k=3 lacks the paper column: %v", h)
	}
	off := AbstentionTable([]AbstentionRate{{Run: "x", System: "turns-cosine", K: 3, PaperNotApplicable: "elsewhere"}})
	if strings.Contains(strings.Join(off.Header, ","), "paper") || !strings.Contains(strings.Join(off.Notes, "\n"), "x: the study's rate at k=3 does not apply: elsewhere") {
		t.Errorf("abstention table of a run off the study's split: %v %v", off.Header, off.Notes)
	}
	// The study gives turns-rerank's rate at k=3, on its split only.
	if a := d.Abstention; a.HasPaper() || !strings.Contains(a.PaperNotApplicable, "this run answered locomo c1") {
		t.Errorf("turns-rerank at k=3 on c1: %+v", a)
	}

	var pq bytes.Buffer
	if err := d.WritePerQuestion(&pq); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&pq).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{}
	for _, rec := range recs[1:] {
		outcome[rec[0]] = rec[8]
	}
	wantOut := map[string]string{"q1": OutcomePartial, "q2": OutcomeLostCandidates, "q3": OutcomeLostSelection, "q4": OutcomePartial,
		"q5": OutcomeNoEvidence, "q6": OutcomeAllHit, "q7": OutcomeNoEvidence}
	if len(outcome) != len(wantOut) {
		t.Errorf("per-question has %d rows, want %d", len(outcome), len(wantOut))
	}
	for q, w := range wantOut {
		if outcome[q] != w {
			t.Errorf("%s outcome %q, want %q", q, outcome[q], w)
		}
	}
}

func TestDiagnoseWithoutCandidateStage(t *testing.T) {
	fr := fakeRun{
		Manifest: runlog.Manifest{Config: membench.Config{System: "turns-cosine", K: 5}, Judges: []string{"f1", "bleu1"}},
		Retrievals: []runlog.RetrievalRecord{
			{QuestionID: "a", Evidence: []string{"D1:1", "D1:2"}, Items: items("D1:1", "D1:2")},
			{QuestionID: "b", Evidence: []string{"D1:3"}, Items: items("D1:4")},
			{QuestionID: "c", Evidence: []string{"D1:3", "D1:4", "D1:5", "D1:6"}, Items: items("D1:4")},
		},
		Answers: []runlog.AnswerRecord{{QuestionID: "a", Category: 4}, {QuestionID: "b", Category: 4}, {QuestionID: "c", Category: 4}},
	}
	d, err := Diagnose(mustLoad(t, fr.write(t, filepath.Join(t.TempDir(), "cos"))), "")
	if err != nil {
		t.Fatal(err)
	}
	if d.CandidateTable() != nil {
		t.Error("a run without candidates should have no candidate-stage table")
	}
	o := d.Overall
	if o.WithCandidates != 0 || o.AllHit != 1 || o.AnyHit != 2 || o.FractionSum != 1.25 {
		t.Errorf("overall %+v, want all-hit 1, any-hit 2, fraction sum 1.25", o)
	}
	if d.Abstention.Judge != "f1" || d.Abstention.N != 0 {
		t.Errorf("abstention %+v: with only lexical metrics the default is f1; no abstention questions", d.Abstention)
	}
	if q := d.Questions[1]; q.Outcome != OutcomeLost {
		t.Errorf("b outcome %s, want lost", q.Outcome)
	}
}

// Abstention reads the flag the run wrote into answers.jsonl: a LongMemEval
// question flagged abstention counts whatever its id, and an "_abs"-looking
// id without the flag does not (the loaders decide, not the id).
func TestAbstentionReadsTheRecordFlag(t *testing.T) {
	jd := func(id string, ok bool) runlog.Judgment {
		j := runlog.Judgment{QuestionID: id, Judge: "llm", Correct: ok}
		if ok {
			j.Score = 1 // readers refuse a correct judgment scored 0
		}
		return j
	}
	fr := fakeRun{
		Manifest: runlog.Manifest{Config: membench.Config{System: "turns-cosine", K: 3}, Judges: []string{"llm"}, Offline: true},
		Answers: []runlog.AnswerRecord{
			{QuestionID: "q1", Type: "multi-session", Abstention: true},
			{QuestionID: "q2", Type: "multi-session", Abstention: true},
			{QuestionID: "q3_abs", Type: "multi-session"},
			{QuestionID: "conv-1:4", Category: 5}, // a LoCoMo adversarial record
		},
		Judgments: []runlog.Judgment{jd("q1", true), jd("q2", false), jd("q3_abs", true), jd("conv-1:4", true)},
	}
	r := mustLoad(t, fr.write(t, filepath.Join(t.TempDir(), "lme")))
	a, err := Abstention(r, "llm")
	if err != nil {
		t.Fatal(err)
	}
	if a.N != 3 || a.Correct != 2 {
		t.Errorf("abstention %+v, want 2 of 3 (q1, q2 and the category-5 record)", a)
	}
}

// OverallOf leaves out the same abstention questions as the summary's
// overall, so Table 3's n and interval go with its scores.
func TestOverallOfMatchesTheSummaryWithAbstention(t *testing.T) {
	fr := fakeRun{
		Manifest: runlog.Manifest{Config: membench.Config{System: "turns-cosine", K: 3}, Judges: []string{"llm"}, Offline: true},
		Answers: []runlog.AnswerRecord{
			{QuestionID: "q1", Type: "multi-session"},
			{QuestionID: "q2", Type: "multi-session"},
			{QuestionID: "q3_abs", Type: "multi-session", Abstention: true},
		},
		Judgments: []runlog.Judgment{
			{QuestionID: "q1", Judge: "llm", Correct: true, Score: 1},
			{QuestionID: "q2", Judge: "llm", Score: 0},
			{QuestionID: "q3_abs", Judge: "llm", Correct: true, Score: 1},
		},
	}
	r := mustLoad(t, fr.write(t, filepath.Join(t.TempDir(), "lme")))
	o, err := OverallOf(r, "llm")
	if err != nil {
		t.Fatal(err)
	}
	if o.N != 2 || o.Score != 50 || o.Score != r.Summary.Overall.Scores["llm"] || r.Summary.Overall.N != 2 {
		t.Errorf("OverallOf %+v, summary overall %+v: want n 2, 50%% in both", o, r.Summary.Overall)
	}
}

// studyRun is a turns-rerank run at k=3 over the given conversations, with
// scored questions spread over them and abstaining ones after.
func studyRun(system string, convs []string, scored, abstaining int) fakeRun {
	r := fakeRun{Manifest: runlog.Manifest{Config: membench.Config{System: system, K: 3}, Judges: []string{"llm"}, Offline: true, Dataset: "locomo"}}
	add := func(i, cat int) {
		id, conv := fmt.Sprintf("q%d", i), convs[i%len(convs)]
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, ConversationID: conv, Category: cat, Abstention: cat == 5})
		r.Retrievals = append(r.Retrievals, runlog.RetrievalRecord{QuestionID: id, ConversationID: conv, Evidence: []string{"D1:1"}, Candidates: items("D1:1", "D1:2"), Items: items("D1:2")})
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: true, Score: 1})
	}
	for i := range scored {
		add(i, 1+i%4)
	}
	for i := range abstaining {
		add(scored+i, 5)
	}
	return r
}

// The study's figures stand beside a run's only on the study's own
// question set, recognised from the run's records: its conversations, all
// of their questions, the published answer key.
func TestStudySetsFromRecords(t *testing.T) {
	dir := t.TempDir()
	diag := func(name string, r fakeRun) *Diagnosis {
		t.Helper()
		d, err := Diagnose(mustLoad(t, r.write(t, filepath.Join(dir, name))), "")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	held := HeldOutSet.Conversations
	if d := diag("held", studyRun("turns-rerank", held, 1388, 399)); !d.HasPaperFigures() || d.PaperNotApplicable != "" || d.PaperTable() == nil {
		t.Errorf("the 9 held-out conversations, 1,388 questions: paper figures %v, note %q", d.HasPaperFigures(), d.PaperNotApplicable)
	}
	audited := studyRun("turns-rerank", held, 1388, 399)
	audited.Manifest.AnswerKey = &runlog.AnswerKeyInfo{Key: "audited sha256:abc"}
	conv26 := append([]string{"conv-26"}, held[1:]...)
	for name, c := range map[string]struct {
		run  fakeRun
		want string
	}{
		"limit":   {studyRun("turns-rerank", held, 1387, 399), "9 conversations, 1387 scored questions (not all of their questions)"},
		"audited": {audited, "answer key audited (another answer key"},
		"conv26":  {studyRun("turns-rerank", conv26, 1388, 399), "(other conversations)"},
		"dev":     {studyRun("turns-rerank", []string{"conv-26"}, 152, 47), "this run answered locomo conv-26, 152 scored questions (other conversations)"},
	} {
		d := diag(name, c.run)
		if d.HasPaperFigures() || d.PaperTable() != nil || !strings.Contains(d.PaperNotApplicable, c.want) || !strings.Contains(d.PaperNotApplicable, "1,388 scored questions") {
			t.Errorf("%s: paper figures %v, note %q (want it to contain %q)", name, d.HasPaperFigures(), d.PaperNotApplicable, c.want)
		}
	}
	// A system the study gives no decomposition for says nothing of it.
	if d := diag("cosine", studyRun("turns-cosine", []string{"conv-26"}, 152, 47)); d.PaperNotApplicable != "" || d.HasPaperFigures() {
		t.Errorf("turns-cosine: %q", d.PaperNotApplicable)
	}
	// Abstention at k=3: the study's split, all 209 adversarial questions.
	primary := PrimarySet.Conversations
	if a := diag("primary", studyRun("turns-cosine", primary, 778, 209)).Abstention; !a.HasPaper() || a.N != 209 {
		t.Errorf("turns-cosine on the study's split: %+v", a)
	}
	if a := diag("primary-short", studyRun("turns-cosine", primary, 778, 208)).Abstention; a.HasPaper() || !strings.Contains(a.PaperNotApplicable, "not all of their questions") {
		t.Errorf("208 of the 209 adversarial questions: %+v", a)
	}
}
