package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/runlog"
)

// A LongMemEval-shaped run: its abstention group gets a column of its
// own, out of overall, whatever the dataset calls it.
func TestKeyTableDecliningColumn(t *testing.T) {
	fr := fakeRun{Manifest: runlog.Manifest{Dataset: "longmemeval", Config: membench.Config{System: "abstain"}, Judges: []string{"llm"},
		JudgeSpecs:    []membench.JudgeInfo{{Name: "llm", Kind: "llm", Class: membench.JudgeVerdict}},
		DatasetGroups: []runlog.DatasetGroup{{Name: "temporal-reasoning"}, {Name: "abstention", Abstains: true}}}}
	for i, g := range []string{"temporal-reasoning", "temporal-reasoning", "abstention", "abstention"} {
		id := string(rune('a' + i))
		fr.Answers = append(fr.Answers, runlog.AnswerRecord{QuestionID: id, Group: g, Abstention: g == "abstention"})
		s := 0.0
		if g == "abstention" {
			s = 1
		}
		fr.Judgments = append(fr.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: s == 1, Score: s})
	}
	r, err := Load(fr.write(t, filepath.Join(t.TempDir(), "run")))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := KeyTable([]*runlog.Run{r}, "llm", nil, nil, "", Wide)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(tb.Header, "|")
	if !strings.HasSuffix(head, "temporal-reasoning|abstention (declines)") || len(tb.Rows) != 1 {
		t.Fatalf("header %s, rows %v", head, tb.Rows)
	}
	row := tb.Rows[0]
	// n, overall: the two answered questions that do not abstain, both wrong.
	if row[1] != "2" || row[2] != "0.00" || row[len(row)-1] != "100.00" {
		t.Errorf("row %v: want n 2, overall 0, abstention 100", row)
	}
	// Skipping a question leaves it out of every column.
	gs, err := ScoresOf(r, "llm", map[string]bool{"c": true})
	if err != nil || gs.N["abstention"] != 1 || gs.Skipped != 1 {
		t.Errorf("skip: %+v %v", gs, err)
	}
	if _, err := KeyTable([]*runlog.Run{r}, "llm", []string{"audited"}, nil, "", Wide); err == nil || !strings.Contains(err.Error(), "--answer-key audited") {
		t.Errorf("a key without verdicts: %v", err)
	}
}

// UnderKey gives a judge the verdicts it gave under one key, by its own
// name, and describes them in the manifest as judged under that key.
func TestSourceUnderKey(t *testing.T) {
	src := func() *Source {
		m := runlog.Manifest{Dataset: "locomo", Judges: []string{"lexical", "lexical+audited"},
			JudgeSpecs: []membench.JudgeInfo{{Name: "lexical", Kind: "lexical"}, {Name: "lexical+audited", Kind: "lexical", AnswerKey: "audited sha256:cccc"}}}
		return &Source{Path: "run", Name: "run", Manifest: &m, Judgments: []runlog.Judgment{
			{QuestionID: "a", Judge: "lexical", Score: 1, Correct: true},
			{QuestionID: "a", Judge: "lexical+audited", Score: 0},
		}}
	}
	s := src()
	if err := s.UnderKey("audited"); err != nil {
		t.Fatal(err)
	}
	if len(s.Judgments) != 1 || s.Judgments[0].Judge != "lexical" || s.Judgments[0].Correct {
		t.Errorf("under audited: %+v, want the keyed verdict (wrong) as lexical", s.Judgments)
	}
	if datasets.KeyID(s.Manifest.Dataset, s.Manifest.AppliedKey()) != "audited" || len(s.Manifest.JudgeSpecs) != 1 || s.Manifest.JudgeSpecs[0].Name != "lexical" || s.Manifest.JudgeSpecs[0].AnswerKey != "" {
		t.Errorf("manifest under audited: key %q, judges %+v", datasets.KeyID(s.Manifest.Dataset, s.Manifest.AppliedKey()), s.Manifest.JudgeSpecs)
	}
	s = src()
	if err := s.UnderKey("published"); err != nil || len(s.Judgments) != 1 || !s.Judgments[0].Correct || datasets.KeyID(s.Manifest.Dataset, s.Manifest.AppliedKey()) != "published" {
		t.Errorf("under the run's own key: %v, %+v, key %q", err, s.Judgments, datasets.KeyID(s.Manifest.Dataset, s.Manifest.AppliedKey()))
	}
	if err := src().UnderKey("other"); err == nil || !strings.Contains(err.Error(), "membench judge --run run --answer-key other") {
		t.Errorf("a key with no verdicts: %v, want the membench judge command that adds them", err)
	}
	if err := (&Source{Path: "loose.jsonl"}).UnderKey("audited"); err == nil || !strings.Contains(err.Error(), "needs run directories") {
		t.Errorf("a judgments file without a run: %v", err)
	}
}

// A run without a judge's verdicts under a key is refused with the judge
// command to paste: the spec the run was given for the judge, or one
// written from the manifest for a judge added later, never a placeholder.
func TestKeyedJudgeOfPrintsTheJudgesSpec(t *testing.T) {
	gpt := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini", BaseURL: "http://localhost:8000/v1"}
	m := runlog.Manifest{RunID: "r", Dataset: "locomo", Config: membench.Config{Judges: []string{"lexical", "f1,threshold=0.3,name=loose", "judge4o=openai:gpt-4o"}},
		Models: map[string]membench.ModelID{"judge": {Backend: "offline", Model: "offline-heuristic"}},
		Judges: []string{"lexical", "loose", "judge4o", "qwen", "human"},
		JudgeSpecs: []membench.JudgeInfo{{Name: "lexical", Kind: "lexical"}, {Name: "loose", Kind: "f1", Threshold: 0.3}, {Name: "judge4o", Kind: "llm"},
			{Name: "qwen", Kind: "llm", Model: &gpt, Repeats: 3}, {Name: "human", Kind: "human", AddedBy: "membench grade"}}}
	r := &runlog.Run{Dir: "results/r", Manifest: m}
	for judge, want := range map[string]string{
		"lexical": "membench judge --run results/r --answer-key audited --judge-spec lexical",
		"loose":   "--judge-spec f1,threshold=0.3,name=loose",
		"judge4o": "--judge-spec judge4o=openai:gpt-4o",
		"qwen":    "--judge-spec name=qwen,backend=openai,model=gpt-4o-mini,base-url=http://localhost:8000/v1,repeats=3",
		"human":   "membench judge cannot add them (human is not a judge --judge-spec builds); pick another judge with --judge",
		"em":      "membench judge --run results/r --answer-key audited --judge-spec em", // not in the run: its kind
	} {
		_, err := KeyedJudgeOf(r, judge, "audited")
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v\nwant it to end with %q", judge, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "SPEC") {
			t.Errorf("%s: a placeholder: %v", judge, err)
		}
	}
	// agreement: every judge the run has under its own key.
	s := &Source{Path: "results/r", Name: "r", Manifest: &m, Judgments: []runlog.Judgment{{QuestionID: "a", Judge: "lexical", Score: 1}}}
	want := "--answer-key audited --judge-spec lexical --judge-spec f1,threshold=0.3,name=loose --judge-spec judge4o=openai:gpt-4o --judge-spec name=qwen,backend=openai,model=gpt-4o-mini,base-url=http://localhost:8000/v1,repeats=3"
	if err := s.UnderKey("audited"); err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("agreement: %v\nwant it to end with %q", err, want)
	}
}
