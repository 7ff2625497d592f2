package prereg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
)

// offlineRun runs system at budget k on the embedded sample, offline, into
// root/runs, and returns the run directory.
func offlineRun(t *testing.T, root, system string, k int) string {
	t.Helper()
	cfg := membench.Config{System: system, K: k, Judges: []string{"lexical"}, ResultsDir: filepath.Join(root, "runs"),
		CacheDir: filepath.Join(root, "cache"), Quiet: true, Host: membench.Host{Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "runs", sum.RunID)
}

// meanTokens reads a run's retrievals.jsonl: the mean rendered tokens.
func meanTokens(t *testing.T, dir string) float64 {
	t.Helper()
	recs, err := runlog.ReadJSONL[runlog.RetrievalRecord](filepath.Join(dir, runlog.RetrievalsFile))
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v (%d records)", dir, err, len(recs))
	}
	s := 0.0
	for _, r := range recs {
		s += float64(r.Tokens)
	}
	return s / float64(len(recs))
}

// lockedPlan writes root/NAME.yaml and locks it into runs (the lock is
// named after the plan's file, so every plan of a test gets its own name).
func lockedPlan(t *testing.T, root, name, runs, src string) string {
	t.Helper()
	p := filepath.Join(root, name+".yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(p, runs, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return p
}

// The plan registers the k* procedure; `prereg test` computes one k* per
// test, against that test's own comparator (H1: extraction; S1: cosine;
// S4: the listwise reranker), tests the candidate's run at each, counts the
// whole registered family for Holm (slots S5, S6 enter as not run, p = 1),
// flags a degenerate non-inferiority test, and refuses when a registered
// k was not run.
func TestRegisteredKStarSlotsAndHolm(t *testing.T) {
	if testing.Short() {
		t.Skip("short: runs the pipeline eight times")
	}
	root := t.TempDir()
	ref := offlineRun(t, root, "extract-rerank", 3)
	cands := map[int]string{}
	for _, k := range []int{1, 2, 3, 4} {
		cands[k] = offlineRun(t, root, "turns-rerank", k)
	}
	cos := offlineRun(t, root, "turns-cosine", 3)
	llm := offlineRun(t, root, "turns-llm", 3)
	// k* by hand: the candidate k whose mean rendered tokens is closest to
	// the comparator's (ties to the smaller k).
	kstarFor := func(comparator string) int {
		want, best := 0, math.Inf(1)
		m := meanTokens(t, comparator)
		for _, k := range []int{1, 2, 3, 4} {
			if d := math.Abs(meanTokens(t, cands[k]) - m); d < best {
				want, best = k, d
			}
		}
		return want
	}
	wantH1, wantS1, wantS4 := kstarFor(ref), kstarFor(cos), kstarFor(llm)
	if wantH1 == wantS1 {
		t.Fatalf("the sample gives extraction and cosine the same k* (%d): the test cannot tell per-test matching from one k*", wantH1)
	}
	runs := filepath.Join(root, "runs")
	rel := func(dir string) string { r, _ := filepath.Rel(runs, dir); return r }
	plan := `title: registered
judge: lexical
split: sample
alpha: 0.05
exclude_category: [5]
kstar: {candidate: turns-rerank, ks: "1..4"}
systems:
  turns-rerank: "{kstar}"
  engram: ` + rel(ref) + `
  turns-cosine: sample-turns-cosine-*
  turns-llm: sample-turns-llm-*
  same-as-rerank: ` + rel(cands[wantH1]) + `
hypotheses:
  - {id: H1, kind: noninferiority, family: primary, a: turns-rerank, b: engram, margin: -5}
  - {id: S1, kind: mcnemar, family: secondary, a: turns-rerank, b: turns-cosine}
  - {id: S4, kind: noninferiority, family: secondary, a: turns-rerank, b: turns-llm, margin: -5, distinct_models: {a: decide, b: build}}
  - {id: S5, family: secondary, note: "the paper names S5 but does not say what it tests"}
  - {id: S6, family: secondary, note: "the paper names S6 but does not say what it tests"}
`
	p := lockedPlan(t, root, "plan", runs, plan)
	rep, err := testPlan(p, runs)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Outcome{}
	for _, o := range rep.Outcomes {
		by[o.ID] = o
	}
	for id, want := range map[string]struct {
		k   int
		ref string
	}{"H1": {wantH1, ref}, "S1": {wantS1, cos}, "S4": {wantS4, llm}} {
		ks := by[id].KStar
		if ks == nil || ks.K != want.k || ks.Run != cands[want.k] || ks.ReferenceRun != want.ref || ks.ReferenceK != 3 || by[id].RunA != cands[want.k] {
			t.Fatalf("%s: k* %+v, run A %s; want k*=%d (%s) against %s", id, ks, by[id].RunA, want.k, cands[want.k], want.ref)
		}
		if math.Abs(ks.ReferenceMean-meanTokens(t, want.ref)) > 1e-9 || math.Abs(ks.Mean-meanTokens(t, cands[want.k])) > 1e-9 || ks.Offline == "" {
			t.Errorf("%s: token means %v / %v, offline note %q", id, ks.Mean, ks.ReferenceMean, ks.Offline)
		}
	}
	// Holm in the secondary family counts the registered four: S1, S4 and
	// the slots S5, S6 as p = 1.
	s1, s4 := by["S1"], by["S4"]
	if s1.HolmM != 4 || s4.HolmM != 4 || by["H1"].HolmM != 1 || by["S5"].HolmM != 4 {
		t.Errorf("Holm m: S1 %d S4 %d S5 %d H1 %d, want 4, 4, 4, 1", s1.HolmM, s4.HolmM, by["S5"].HolmM, by["H1"].HolmM)
	}
	pOr1 := func(p *float64) float64 {
		if p == nil {
			return 1
		}
		return *p
	}
	first := s1
	if pOr1(s4.P) < pOr1(s1.P) {
		first = s4
	}
	if lo := pOr1(first.P); first.P != nil && math.Abs(*first.HolmP-math.Min(1, 4*lo)) > 1e-12 {
		t.Errorf("Holm: %s adjusted p %v, want min(1, 4·%v)", first.ID, *first.HolmP, lo)
	}
	for _, id := range []string{"S5", "S6"} {
		if o := by[id]; !o.Slot || o.P != nil || !strings.Contains(o.Decision, "not run, p = 1") {
			t.Errorf("%s: %+v, want a slot not run, p = 1", id, o)
		}
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.HasPrefix(w, "S4: ") && strings.Contains(w, "both the offline backend")
	}
	if !warned {
		t.Errorf("S4 on offline runs should warn that the model distinction is not tested: %v", rep.Warnings)
	}
	var out strings.Builder
	if err := rep.Table().Terminal(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprintf("H1: k* = %d", wantH1), fmt.Sprintf("S1: k* = %d", wantS1), fmt.Sprintf("k*=%d (", wantS1), "secondary m = 4, of which 2 not run (p = 1)", "S5 (slot, not run)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatal(err)
	}

	// A run against itself: every paired difference is zero.
	root3 := filepath.Join(root, "self")
	os.MkdirAll(root3, 0o755)
	self := strings.Replace(plan, "  - {id: H1, kind: noninferiority, family: primary, a: turns-rerank, b: engram, margin: -5}",
		"  - {id: H1, kind: noninferiority, family: primary, a: turns-rerank, b: same-as-rerank, margin: -5}", 1)
	rep3, err := testPlan(lockedPlan(t, root3, "self", runs, self), runs)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep3.Outcomes[0]; d.KStar == nil || d.KStar.K != wantH1 || !d.Degenerate || !strings.HasPrefix(d.Decision, "degenerate: every paired difference is +0.00") || d.P != nil || d.Reject {
		t.Errorf("H1 of a run against itself: %+v, want a degenerate decision", d)
	}

	// A registered k without a run: refused with the command to run it.
	root2 := filepath.Join(root, "wide")
	os.MkdirAll(root2, 0o755)
	wide := strings.Replace(plan, `ks: "1..4"`, `ks: "1..5"`, 1)
	p2 := lockedPlan(t, root2, "wide", runs, wide)
	_, err = testPlan(p2, runs)
	if err == nil || !strings.Contains(err.Error(), "H1 (vs engram") || !strings.Contains(err.Error(), "k = [5]") || !strings.Contains(err.Error(), "membench run --system turns-rerank --k 5") {
		t.Errorf("missing k: %v", err)
	}
	// S4 with the same real model as decision model and listwise reranker
	// is refused: edit both manifests to claim one openai model.
	for _, dir := range []string{by["S4"].RunA, by["S4"].RunB} {
		mp := filepath.Join(dir, runlog.ManifestFile)
		var m map[string]any
		b, _ := os.ReadFile(mp)
		json.Unmarshal(b, &m)
		models := m["models"].(map[string]any)
		same := map[string]any{"backend": "openai", "model": "gpt-4o-mini"}
		models["decide"], models["build"] = same, same
		b, _ = json.Marshal(m)
		os.WriteFile(mp, b, 0o644)
	}
	if _, err := testPlanMixed(p, runs, true); err == nil || !strings.Contains(err.Error(), "S4") || !strings.Contains(err.Error(), "registers them distinct") {
		t.Errorf("S4 with one model for both roles: %v, want a refusal", err)
	}

}

func TestRegisteredPlanValidation(t *testing.T) {
	base := `title: t
judge: llm
systems: {a: x, b: y}
`
	for name, src := range map[string]string{
		"kstar run without procedure": base + "hypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n" + "",
		"only slots":                  base + "hypotheses:\n  - {id: S5, family: secondary, note: undefined}\n",
		"slot without note":           base + "hypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n  - {id: S5, family: secondary}\n",
		"bad role":                    base + "hypotheses:\n  - {id: S4, kind: noninferiority, family: secondary, a: a, b: b, distinct_models: {a: decider, b: build}}\n",
		"kstar with one reference":    base + "kstar: {reference: b, candidate: turns-rerank, ks: 1..4}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n",
		"kstar on both sides":         "title: t\njudge: llm\nsystems: {a: \"{kstar}\", b: \"{kstar}\"}\nkstar: {candidate: c, ks: 1..4}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n",
	} {
		if name == "kstar run without procedure" {
			src = strings.Replace(src, "a: x", `a: "{kstar}"`, 1)
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "p.yaml")
		os.WriteFile(p, []byte(src), 0o644)
		if _, _, err := Load(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Runs that started before the lock are refused (the plan could have been
// written after seeing them); --exploratory tests them with every line of
// the table and the JSON labelled exploratory.
func TestRunsBeforeTheLockAreRefused(t *testing.T) {
	root := t.TempDir()
	a := offlineRun(t, root, "turns-cosine", 3)
	b := offlineRun(t, root, "turns-cosine", 5)
	runs := filepath.Join(root, "runs")
	rel := func(dir string) string { r, _ := filepath.Rel(runs, dir); return r }
	src := "title: late\njudge: lexical\nsystems: {a: " + rel(a) + ", b: " + rel(b) + "}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n"
	p := filepath.Join(root, "late.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(p, runs, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err := testPlan(p, runs)
	var bl *BeforeLockError
	if !errors.As(err, &bl) || len(bl.Runs) != 2 || !strings.Contains(err.Error(), "--exploratory") || !strings.Contains(err.Error(), filepath.Base(a)) {
		t.Fatalf("runs before the lock: %v, want a refusal naming both runs", err)
	}
	rep, err := TestWith(p, runs, TestOptions{Exploratory: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Exploratory || len(rep.BeforeLock) != 2 || !rep.Outcomes[0].Exploratory {
		t.Errorf("report %+v, want exploratory", rep)
	}
	var out strings.Builder
	if err := rep.Table().Terminal(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.IndexFunc(line, unicode.IsLetter) < 0 || strings.Contains(line, "family") {
			continue // rules and the header
		}
		if !strings.Contains(strings.ToUpper(line), "EXPLORATORY") {
			t.Errorf("line without the exploratory label: %q\n%s", line, out.String())
		}
	}
	b2, _ := json.Marshal(rep)
	if !strings.Contains(string(b2), `"exploratory":true`) {
		t.Errorf("JSON lacks exploratory: %s", b2)
	}
}
