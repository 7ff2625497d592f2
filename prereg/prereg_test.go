package prereg

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/sweep"
)

// writeJudgments writes dir/judgments.jsonl with correct[i] for q0..q(n-1),
// leaving out the ids in drop.
func writeJudgments(t *testing.T, dir, system string, correct []bool, drop map[int]bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, c := range correct {
		if drop[i] {
			continue
		}
		j := runlog.Judgment{QuestionID: fmt.Sprintf("q%02d", i), System: system, Judge: "llm", Correct: c}
		if c {
			j.Score = 1
		}
		line, _ := json.Marshal(j)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "judgments.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func upTo(n, k int) []bool {
	out := make([]bool, n)
	for i := 0; i < k; i++ {
		out[i] = true
	}
	return out
}

const plan = `title: toy
judge: llm
split: hand-made
planned_n: 20
systems:
  a: sysA
  b: sysB
  c: sysC
hypotheses:
  - {id: H1, kind: noninferiority, family: primary, a: a, b: b, margin: -5}
  - {id: S1, kind: mcnemar, family: secondary, a: a, b: b}
  - {id: S2, kind: mcnemar, family: secondary, a: c, b: b}
`

func TestLockTestRefuse(t *testing.T) {
	root := t.TempDir()
	runs := filepath.Join(root, "runs")
	// A right on q0-q13, B on q0-q7: 6 discordant pairs all for A, so the
	// exact McNemar p = 2·0.5^6 = 0.03125.
	writeJudgments(t, filepath.Join(runs, "sysA"), "A", upTo(20, 14), nil)
	writeJudgments(t, filepath.Join(runs, "sysB"), "B", upTo(20, 8), nil)
	// C: right on q0-q9 except q7. Against B: only C {q8, q9}, only B {q7},
	// so p = min(1, 2·P(X<=1 | n=3)) = 1. q19 is missing from C.
	c := upTo(20, 10)
	c[7] = false
	writeJudgments(t, filepath.Join(runs, "sysC"), "C", c, map[int]bool{19: true})
	path := filepath.Join(root, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}

	if _, err := testPlan(path, runs); err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Fatalf("unlocked plan was tested: %v", err)
	}
	l, err := Lock(path, runs, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.SHA256) != 64 {
		t.Fatalf("lock %+v", l)
	}
	rep, err := testPlan(path, runs)
	if err != nil {
		t.Fatal(err)
	}
	h1, s1, s2 := rep.Outcomes[0], rep.Outcomes[1], rep.Outcomes[2]
	if math.Abs(*s1.P-0.03125) > 1e-12 || s1.OnlyA != 6 || s1.OnlyB != 0 {
		t.Fatalf("S1: p=%v onlyA=%d onlyB=%d", *s1.P, s1.OnlyA, s1.OnlyB)
	}
	if math.Abs(*s2.P-1) > 1e-12 || s2.N != 19 {
		t.Fatalf("S2: p=%v n=%d", *s2.P, s2.N)
	}
	// Holm over {0.03125, 1}: 0.0625 and 1, so nothing is rejected at 0.05
	// although S1's raw p is below it.
	if math.Abs(*s1.HolmP-0.0625) > 1e-12 || s1.Reject || s2.Reject {
		t.Fatalf("Holm: S1 %v reject %v, S2 reject %v", *s1.HolmP, s1.Reject, s2.Reject)
	}
	// H1: differences are +100 on 6 of 20 questions: mean +30 points.
	if math.Abs(*h1.MeanDiff-30) > 1e-9 || !h1.Reject || !strings.HasPrefix(h1.Decision, "non-inferior") {
		t.Fatalf("H1: %+v", h1)
	}
	if len(s2.MissingA) != 1 || s2.MissingA[0] != "q19" {
		t.Fatalf("missing ids of S2: %v / %v", s2.MissingA, s2.MissingB)
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.Contains(w, "S2") && strings.Contains(w, "planned 20")
	}
	if !warned {
		t.Fatalf("no n-vs-planned warning: %v", rep.Warnings)
	}
	var tb strings.Builder
	if err := rep.Table().Terminal(&tb); err != nil || !strings.Contains(tb.String(), "0.0312") {
		t.Fatalf("table: %v\n%s", err, tb.String())
	}

	// Relocking the same content is fine; any edit is refused by test and lock.
	if _, err := Lock(path, runs, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(plan, "margin: -5", "margin: -10", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var ch *ChangedError
	if _, err := testPlan(path, runs); !errors.As(err, &ch) {
		t.Fatalf("changed plan was tested: %v", err)
	}
	if _, err := Lock(path, runs, time.Now()); !errors.As(err, &ch) {
		t.Fatalf("changed plan was relocked: %v", err)
	}
}

func TestPlanValidation(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"unknown system": strings.Replace(plan, "a: c, b: b", "a: d, b: b", 1),
		"bad kind":       strings.Replace(plan, "kind: mcnemar, family: secondary, a: a", "kind: ttest, family: secondary, a: a", 1),
		"unknown key":    plan + "extra: 1\n",
		"no judge":       strings.Replace(plan, "judge: llm\n", "", 1),
	} {
		p := filepath.Join(dir, "p.yaml")
		os.WriteFile(p, []byte(src), 0o644)
		if _, _, err := Load(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A plan names the groups it leaves out (exclude_group); an older plan's
// exclude_category means the same groups; no exclusion given leaves out
// the abstaining questions; both given is refused.
func TestPlanExclusion(t *testing.T) {
	dir := t.TempDir()
	load := func(extra string) (*Plan, error) {
		p := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(p, []byte(plan+extra), 0o644); err != nil {
			t.Fatal(err)
		}
		pl, _, err := Load(p)
		return pl, err
	}
	for extra, want := range map[string]string{
		"": "abstention",
		"exclude_group: [temporal, abstention]\n": "temporal,abstention",
		"exclude_group: []\n":                     "",
		"exclude_category: [5]\n":                 "abstention",
		"exclude_category: [0]\n":                 "",
		"exclude_category: [2, 5]\n":              "temporal,abstention",
	} {
		p, err := load(extra)
		if err != nil || strings.Join(p.Exclude, ",") != want {
			t.Errorf("%q: %v (%v), want %q", extra, p, err, want)
		}
	}
	if _, err := load("exclude_group: [abstention]\nexclude_category: [5]\n"); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both given: %v", err)
	}
}

// The shipped plan: H1 primary; S1-S4 and S7 secondary tests, S5 and S6
// slots; the k* procedure registered with extraction as its reference;
// S4's decision model distinct from the listwise reranker's; and every
// system path names exactly one run of the shipped sweeps.
func TestSeedStudyPlanParses(t *testing.T) {
	root := testutil.RepoRoot(t)
	p, _, err := Load(filepath.Join(root, "configs", "prereg_seed_study.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ids, slots []string
	tests := 0
	for _, h := range p.Hypotheses {
		ids = append(ids, h.ID)
		if h.Slot() {
			slots = append(slots, h.ID)
		} else if h.Family == "secondary" {
			tests++
		}
	}
	if strings.Join(ids, ",") != "H1,S1,S2,S3,S4,S5,S6,S7" || p.Hypotheses[0].Family != "primary" || *p.Hypotheses[0].Margin != -5 {
		t.Fatalf("plan: %v", ids)
	}
	if strings.Join(slots, ",") != "S5,S6" || tests != 5 {
		t.Errorf("slots %v, secondary tests %d; want S5,S6 and 5", slots, tests)
	}
	want := map[string][2]string{"S1": {"turns-rerank", "turns-cosine"}, "S2": {"turns-rerank", "jev-mem"}, "S3": {"turns-rerank", "mem0"},
		"S4": {"turns-rerank", "turns-llm"}, "S7": {"turns-rerank", "turns-cosine-lme"}}
	for _, h := range p.Hypotheses {
		if w, ok := want[h.ID]; ok && (h.A != w[0] || h.B != w[1]) {
			t.Errorf("%s: %s vs %s, want %s vs %s", h.ID, h.A, h.B, w[0], w[1])
		}
		if h.ID == "S4" && (h.Kind != NonInferiority || h.DistinctModels == nil || h.DistinctModels.A != "decide" || h.DistinctModels.B != "build") {
			t.Errorf("S4: %+v", h)
		}
	}
	if p.KStar == nil || p.KStar.Reference != "" || p.KStar.Candidate != "turns-rerank" || p.Systems["turns-rerank"] != KStarRun {
		t.Errorf("kstar %+v, turns-rerank %q", p.KStar, p.Systems["turns-rerank"])
	}
	// The sweeps' run ids (as `sweep` names them) under the plan's
	// --runs-dir results/sweeps.
	var runIDs []string
	for cfg, out := range map[string]string{"seed_study": "seed-study", "seed_study_longmemeval": "seed-study-lme"} {
		f, err := sweep.Load(filepath.Join(root, "configs", cfg+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		ps, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range ps {
			// The id is DATASET-SYSTEM-PARAMS-HASH; resolving it reads the
			// dataset file, so name the point on the embedded sample and
			// put the dataset's name back (the hash is a glob's *).
			ds := pt.Config.Dataset
			pt.Config.Dataset, pt.Config.Data, pt.Config.Conversations = "sample", "", nil
			id, err := sweep.RunID(pt)
			if err != nil {
				t.Fatal(err)
			}
			runIDs = append(runIDs, filepath.Join(out, "runs", ds+strings.TrimPrefix(id, "sample")))
		}
	}
	for name, glob := range p.Systems {
		if glob == KStarRun {
			continue
		}
		n := 0
		for _, id := range runIDs {
			if ok, _ := filepath.Match(glob, id); ok {
				n++
			}
		}
		if n != 1 {
			t.Errorf("systems.%s: %q matches %d of the sweeps' runs %v", name, glob, n, runIDs)
		}
	}
}

// A lock with no usable digest must be reported, not crash the message.
func TestDamagedLockIsAnError(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "configs", "prereg_seed_study.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(LockPath(plan, dir), []byte(`{"file":"plan.yaml"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"test": func() error { _, err := testPlan(plan, dir); return err },
		"lock": func() error { _, err := Lock(plan, dir, time.Now()); return err },
	} {
		var msg string
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked: %v", name, r)
				}
			}()
			if err := f(); err != nil {
				msg = err.Error()
			}
		}()
		if !strings.Contains(msg, "plan.yaml.lock") || !strings.Contains(msg, "sha256") || strings.Contains(msg, "PANIC") {
			t.Fatalf("%s: error %q; want one naming the damaged lock", name, msg)
		}
	}
}

// The lock goes next to the results (the runs directory), never into the
// plan's directory (configs/ in the repository); a lock written beside
// the plan by an earlier membench is still honoured.
func TestLockGoesNextToTheResults(t *testing.T) {
	root := t.TempDir()
	configs, runs := filepath.Join(root, "configs"), filepath.Join(root, "results", "study")
	os.MkdirAll(configs, 0o755)
	path := filepath.Join(configs, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, runs, time.Now()); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(configs); len(files) != 1 {
		t.Errorf("lock wrote into the plan's directory: %v", files)
	}
	if _, err := os.Stat(filepath.Join(runs, "plan.yaml.lock")); err != nil {
		t.Errorf("no lock in the runs directory: %v", err)
	}
	if _, err := Verify(path, runs, []byte(plan)); err != nil {
		t.Errorf("verify: %v", err)
	}
	// Another runs directory has no lock: not locked, naming the command
	// as prereg lock takes it (--run DIR; it has no --runs-dir).
	other := filepath.Join(root, "other")
	if _, err := Verify(path, other, []byte(plan)); err == nil || !strings.Contains(err.Error(), "--run "+other) {
		t.Errorf("verify elsewhere: %v", err)
	}
}

// Lock validates the plan and records its hash and its resolved protocol
// in LockPath(path, runsDir). An existing lock of a different content is
// not overwritten: a registration is locked once.
func Lock(path, runsDir string, now time.Time) (*LockInfo, error) {
	return LockWith(path, runsDir, now, LockOptions{})
}

// testPlan runs a locked plan on finished runs. System paths are resolved
// under runsDir unless absolute.
func testPlan(path, runsDir string) (*Report, error) { return TestWith(path, runsDir, TestOptions{}) }

// testPlanMixed is testPlan with allowMixed (TestOptions.AllowMixed).
func testPlanMixed(path, runsDir string, allowMixed bool) (*Report, error) {
	return TestWith(path, runsDir, TestOptions{AllowMixed: allowMixed})
}
