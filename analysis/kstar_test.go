package analysis

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/systems"
)

func init() {
	// A system whose default k resolves config.k = 0.
	systems.Register(systems.Spec{Name: "kstar-test-default4", Defaults: membench.Options{"k": "4"}})
}

func tokRun(system string, k int, mean float64) fakeRun {
	return fakeRun{Manifest: runlog.Manifest{
		Config:         membench.Config{System: system, K: k, Dataset: "locomo", Conversations: []string{"conv-44"}},
		RenderedTokens: &runlog.TokenStats{N: 10, Mean: mean, Min: 1, Max: 999},
	}}
}

func TestKStarTieGoesToSmallerK(t *testing.T) {
	root := t.TempDir()
	tokRun("ref", 3, 300).write(t, filepath.Join(root, "ref-3"))
	tokRun("ref", 5, 100).write(t, filepath.Join(root, "ref-5")) // other k of the reference: ignored
	tokRun("cand", 2, 250).write(t, filepath.Join(root, "cand-2"))
	tokRun("cand", 4, 350).write(t, filepath.Join(root, "nested", "cand-4")) // same gap as k=2
	tokRun("cand", 6, 520).write(t, filepath.Join(root, "cand-6"))
	tokRun("cand", 9, 301).write(t, filepath.Join(root, "cand-9")) // closest, but outside --k
	other := tokRun("cand", 5, 300)
	other.Manifest.Config.Dataset = "longmemeval" // another question set: skipped
	other.write(t, filepath.Join(root, "cand-5-lme"))

	runs, err := ScanTokens(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 7 {
		t.Fatalf("scanned %d runs, want 7", len(runs))
	}
	ks, _ := ParseKRange("1..6")
	res, err := KStar(runs, KStarQuery{Reference: "ref", ReferenceK: 3, Candidate: "cand", Ks: ks, ResultsDir: "out"})
	if err != nil {
		t.Fatal(err)
	}
	if res.KStar != 2 || res.KStarMean != 250 {
		t.Errorf("k* = %d (mean %v), want 2 (tie 250 vs 350 around 300 goes to the smaller k)", res.KStar, res.KStarMean)
	}
	if !reflect.DeepEqual(res.Missing, []int{1, 3, 5}) {
		t.Errorf("missing %v, want [1 3 5] (k=5 exists only on another dataset)", res.Missing)
	}
	var gotK []int
	for _, r := range res.Rows {
		gotK = append(gotK, r.K)
		if r.K == 6 && r.Diff != 220 {
			t.Errorf("k=6 |diff| = %v, want 220", r.Diff)
		}
	}
	if !reflect.DeepEqual(gotK, []int{2, 4, 6}) {
		t.Errorf("rows for k %v, want [2 4 6]", gotK)
	}
	if len(res.Commands) != 3 || !strings.HasPrefix(res.Commands[0], "membench run --system cand --k 1 --dataset locomo --conversations conv-44") ||
		!strings.HasSuffix(res.Commands[0], "--results out") {
		t.Errorf("commands: %q", res.Commands)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "cand-5-lme") {
		t.Errorf("the run on another dataset should be named in the notes: %s", notes)
	}

	// Shift the reference so k=4 is strictly closest.
	for i := range runs {
		if runs[i].System == "ref" && runs[i].K == 3 {
			runs[i].Tokens.Mean = 330
		}
	}
	res, err = KStar(runs, KStarQuery{Reference: "ref", ReferenceK: 3, Candidate: "cand", Ks: ks})
	if err != nil || res.KStar != 4 {
		t.Errorf("k* = %d, %v; want 4 for reference mean 330", res.KStar, err)
	}
}

func TestKStarResolvesDefaultKAndFallsBackToRetrievals(t *testing.T) {
	root := t.TempDir()
	tokRun("ref", 3, 100).write(t, filepath.Join(root, "ref"))
	// k=0 resolves to the registered default 4; no rendered_tokens in the
	// manifest, so the mean comes from retrievals.jsonl (last line per question wins).
	d := tokRun("kstar-test-default4", 0, 0)
	d.Manifest.RenderedTokens = nil
	d.Retrievals = []runlog.RetrievalRecord{{QuestionID: "q1", Tokens: 500}, {QuestionID: "q1", Tokens: 80}, {QuestionID: "q2", Tokens: 120}}
	d.write(t, filepath.Join(root, "def"))
	// --opt k=7 counts as k=7.
	o := tokRun("kstar-test-default4", 0, 400)
	o.Manifest.Config.Options = membench.Options{"k": "7"}
	o.Manifest.Finished = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	o.write(t, filepath.Join(root, "opt7"))
	// An unregistered system with k=0 cannot be resolved.
	tokRun("not-registered", 0, 100).write(t, filepath.Join(root, "unknown"))

	runs, err := ScanTokens(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := KStar(runs, KStarQuery{Reference: "ref", ReferenceK: 3, Candidate: "kstar-test-default4", Ks: []int{4, 7}})
	if err != nil {
		t.Fatal(err)
	}
	if res.KStar != 4 || res.KStarMean != 100 || len(res.Rows) != 2 {
		t.Fatalf("k* %d mean %v rows %+v; want k*=4 with mean (80+120)/2=100", res.KStar, res.KStarMean, res.Rows)
	}
	if res.Rows[1].K != 7 || res.Rows[1].Mean != 400 {
		t.Errorf("row 2 = %+v, want k=7 from --opt k=7", res.Rows[1])
	}
	var u RunTokens
	for _, r := range runs {
		if r.System == "not-registered" {
			u = r
		}
	}
	if u.KOK || !strings.Contains(u.KSource, "not registered") {
		t.Errorf("unregistered system: ok=%v source=%q", u.KOK, u.KSource)
	}
	if _, err := KStar(runs, KStarQuery{Reference: "ref", ReferenceK: 5, Candidate: "x", Ks: []int{1}}); err == nil || !strings.Contains(err.Error(), "membench run --system ref --k 5") {
		t.Errorf("missing reference: err %v, want the command to produce it", err)
	}
}

func TestParseKRange(t *testing.T) {
	for in, want := range map[string][]int{"1..4": {1, 2, 3, 4}, "3-5": {3, 4, 5}, "7,3,3": {3, 7}, "2": {2}, "1..2,5": {1, 2, 5}} {
		got, err := ParseKRange(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseKRange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0..3", "5..2", "a", "1..x"} {
		if _, err := ParseKRange(bad); err == nil {
			t.Errorf("ParseKRange(%q): want an error", bad)
		}
	}
	if s := intList([]int{1, 2, 3, 5, 7, 8}); s != "1-3,5,7-8" {
		t.Errorf("intList = %q", s)
	}
}

func TestKStarMissingReferenceNamesResultsDir(t *testing.T) {
	_, err := KStar(nil, KStarQuery{Reference: "flat", ReferenceK: 3, Candidate: "c", Ks: []int{1}, ResultsDir: "myruns"})
	if err == nil || !strings.HasSuffix(err.Error(), "--results myruns") {
		t.Fatalf("want the suggested command to write into --results myruns, got %v", err)
	}
}

// One question set spelled two ways (--data relative and absolute) is one
// question set: the manifests' question-set hashes decide.
func TestKStarMatchesOnQuestionSetHash(t *testing.T) {
	root := t.TempDir()
	ref := tokRun("ref", 3, 300)
	ref.Manifest.Config.Data = "data/locomo10.json"
	ref.Manifest.QuestionSetSHA256 = "abc"
	ref.write(t, filepath.Join(root, "ref"))
	c := tokRun("cand", 2, 290)
	c.Manifest.Config.Data = "/home/u/data/locomo10.json"
	c.Manifest.QuestionSetSHA256 = "abc"
	c.write(t, filepath.Join(root, "c2"))
	other := tokRun("cand", 4, 300)
	other.Manifest.QuestionSetSHA256 = "def"
	other.write(t, filepath.Join(root, "c4"))
	runs, err := ScanTokens(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := KStar(runs, KStarQuery{Reference: "ref", ReferenceK: 3, Candidate: "cand", Ks: []int{2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if res.KStar != 2 || !reflect.DeepEqual(res.Missing, []int{4}) {
		t.Errorf("k* %d missing %v; want 2 (same hash, other spelling) and 4 missing (other question set)", res.KStar, res.Missing)
	}
}
