package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
)

const (
	shippedLoCoMo = "../../shared/datasets/locomo10.json"
	shippedKey    = "../../shared/datasets/locomo-audit/errors.json"
)

// keyHome is a MEMBENCH_HOME with the audited key registered, as
// `membench datasets add locomo-audit` does.
func keyHome(t *testing.T) string {
	t.Helper()
	for _, p := range []string{shippedLoCoMo, shippedKey} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shipped data absent (%v); it lives in ../shared/datasets", err)
		}
	}
	home := t.TempDir()
	e, _ := datasets.File(answerkey.Entry)
	if _, err := datasets.AddLocal(e, datasets.DefaultDir(home), shippedKey, 0); err != nil {
		t.Fatal(err)
	}
	return home
}

// A fixed set of answers, each the published gold of conv-26's qa 0-5
// and 43, judged by exact match. By hand: under the published key all 7
// are right. The audit flags qa1 and qa4 as wrong citations (gold kept),
// replaces the gold of qa2 (hallucination) and qa5 (temporal error), and
// calls qa43 ambiguous (left out): under the audited key 4 of 6 are
// right. Scoring under the key and judging the published scoring again
// under it (answers reused) both give that.
func TestAuditedKeyHandCount(t *testing.T) {
	home := keyHome(t)
	dir := t.TempDir()
	preds := filepath.Join(dir, "preds.jsonl")
	gold := map[int]string{0: "7 May 2023", 1: "2022", 2: "Psychology, counseling certification", 3: "Adoption agencies", 4: "Transgender woman", 5: "The sunday before 25 May 2023", 43: "abstract art"}
	var lines []string
	for j, g := range gold {
		b, _ := json.Marshal(map[string]string{"question_id": "conv-26:" + itoa(j), "prediction": g})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	score := func(out, key string) *runlog.Run {
		t.Helper()
		_, _, err := scoring.Run(context.Background(), scoring.Config{Config: membench.Config{Dataset: "locomo", Data: shippedLoCoMo, Judges: []string{"em"}, AnswerKey: key, NoCache: true, Host: membench.Host{Home: home}}, Predictions: preds, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		r, err := runlog.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	overall := func(r *runlog.Run, judge string) (float64, int) {
		t.Helper()
		gs, err := analysis.ScoresOf(r, judge, nil)
		if err != nil {
			t.Fatal(err)
		}
		return gs.Overall.Score, gs.Overall.N
	}
	pub := score(filepath.Join(dir, "published"), "published")
	if s, n := overall(pub, "em"); s != 100 || n != 7 {
		t.Fatalf("published key: %.2f%% of %d, want 100%% of 7", s, n)
	}
	aud := score(filepath.Join(dir, "audited"), "audited")
	if s, n := overall(aud, "em"); n != 6 || s < 66.66 || s > 66.67 {
		t.Errorf("audited key: %.2f%% of %d, want 4 of 6", s, n)
	}
	if k := aud.Manifest.AnswerKey; k == nil || k.AnswerChanged != 2 || k.EvidenceChanged != 2 || k.Excluded != 1 || !strings.HasPrefix(k.Key, "audited sha256:") {
		t.Errorf("manifest answer key %+v", k)
	}
	if aud.Manifest.QuestionSetSHA256 == pub.Manifest.QuestionSetSHA256 {
		t.Error("the audited question set hashes like the published one")
	}
	if d := analysis.DifferencesVarying(analysis.SidesOf([]*runlog.Run{pub, aud}), nil); !strings.Contains(diffFields(d), "answer key") {
		t.Errorf("the guard does not tell the keys apart: %v", d)
	}

	// Judging the published scoring again under the audited key.
	counts, _, err := rejudge.Run(context.Background(), pub.Dir, []string{"em"}, rejudge.Options{AnswerKey: "audited", Home: home, NoCache: true, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if counts[0].Judge != "em+audited" || counts[0].Added != 6 {
		t.Errorf("rejudge counts %+v, want 6 verdicts of em+audited", counts)
	}
	pub, err = runlog.Load(pub.Dir)
	if err != nil {
		t.Fatal(err)
	}
	name, err := analysis.KeyedJudgeOf(pub, "em", "audited")
	if err != nil {
		t.Fatal(err)
	}
	if s, n := overall(pub, name); n != 6 || s < 66.66 || s > 66.67 {
		t.Errorf("rejudged under the audited key: %.2f%% of %d, want 4 of 6", s, n)
	}
	if st := pub.Status(); st.State != runlog.StateComplete {
		t.Errorf("a key's partial cover made the run %s", st)
	}
	if _, err := analysis.KeyedJudgeOf(pub, "f1", "audited"); err == nil || !strings.Contains(err.Error(), "--answer-key audited") {
		t.Errorf("a judge without keyed verdicts: %v", err)
	}
}

// The abstain system declines every question: all of category 5 right,
// none of categories 1-4 by the offline judge (metrics near 0).
func TestAbstainSystemFloor(t *testing.T) {
	if _, err := os.Stat(shippedLoCoMo); err != nil {
		t.Skipf("shipped LoCoMo absent (%v)", err)
	}
	cfg := membench.Config{System: "abstain", Dataset: "locomo", Data: shippedLoCoMo, Conversations: []string{"conv-26", "conv-30"}, Judges: []string{"lexical", "f1"},
		ResultsDir: t.TempDir(), Quiet: true, NoTranscripts: true, Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range sum.Groups {
		lex, f1 := g.Scores["lexical"], g.Scores["f1"]
		switch {
		case g.Name == "adversarial":
			if !g.Abstains || lex != 100 || f1 != 100 || g.N == 0 {
				t.Errorf("adversarial: %+v, want 100 under both", g)
			}
		case lex != 0 || f1 > 5:
			t.Errorf("%s: lexical %.2f, f1 %.2f; declining should earn about nothing", g.Name, lex, f1)
		}
	}
	if sum.Overall.Scores["lexical"] != 0 {
		t.Errorf("overall %v: the declining group was folded in", sum.Overall.Scores)
	}
}

func diffFields(ds []analysis.Difference) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Field)
	}
	return strings.Join(out, ",")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// A key on another dataset, an uninstalled audited key and a missing key
// file are refused before any run folder exists, as bad input.
func TestAnswerKeyRefusals(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		cfg  membench.Config
		want string
	}{
		{membench.Config{System: "abstain", Dataset: "sample", AnswerKey: "audited"}, "not installed"},
		{membench.Config{System: "abstain", Dataset: "sample", AnswerKey: filepath.Join(home, "nokey.json")}, "nokey.json"},
		{membench.Config{System: "abstain", Dataset: "sample", ExcludeImageQuestions: true}, "--dataset locomo"},
	} {
		c.cfg.ResultsDir, c.cfg.Host = filepath.Join(home, "results"), membench.Host{Home: home, Embedder: "hashed"}
		_, err := plan.Resolve(c.cfg, plan.Env{})
		if err == nil || !badinputIs(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want a bad-input error with %q", c.cfg, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "results")); err == nil {
		t.Error("a refused run left a results folder")
	}
	// The same key file, given by two paths, is one run id.
	if _, err := os.Stat(shippedKey); err != nil {
		t.Skip("shipped key absent")
	}
	abs, _ := filepath.Abs(shippedKey)
	ids := map[string]bool{}
	for _, p := range []string{shippedKey, abs} {
		cfg, err := plan.Resolve(membench.Config{System: "abstain", Dataset: "locomo", Data: shippedLoCoMo, AnswerKey: p, Conversations: []string{"conv-26"},
			Host: membench.Host{Home: home, Embedder: "hashed"}}, plan.Env{})
		if err != nil {
			t.Fatal(err)
		}
		ids[cfg.ID] = true
	}
	if len(ids) != 1 {
		t.Errorf("one key file under two paths gave run ids %v", ids)
	}
}

func badinputIs(err error) bool { return badinput.Is(err) }
