package prereg

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
)

// offlineRun runs system at budget k on the embedded sample, offline, into
// root/runs, and returns the run directory.
func offlineRun(t *testing.T, root, system string, k int) string {
	t.Helper()
	cfg := runlog.Config{System: system, K: k, Judges: []string{"lexical"}, ResultsDir: filepath.Join(root, "runs"),
		CacheDir: filepath.Join(root, "cache"), Quiet: true, Host: runlog.Host{Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	r, err := harness.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.Dir()
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

// The plan registers the k* procedure and its reference; `prereg test`
// computes k* from the runs (token matching to the reference run),
// tests the candidate's run at k*, counts only the tests in the plan for
// Holm (slots S5, S6 are named, not tested), flags a degenerate
// non-inferiority test, and refuses when a registered k was not run.
func TestRegisteredKStarSlotsAndHolm(t *testing.T) {
	if testing.Short() {
		t.Skip("short: runs the pipeline six times")
	}
	root := t.TempDir()
	ref := offlineRun(t, root, "extract-rerank", 3)
	cands := map[int]string{}
	for _, k := range []int{1, 2, 3, 4} {
		cands[k] = offlineRun(t, root, "turns-rerank", k)
	}
	offlineRun(t, root, "turns-cosine", 3)
	offlineRun(t, root, "turns-llm", 3)
	// k* by hand: the candidate k whose mean rendered tokens is closest to
	// the reference's (ties to the smaller k).
	want, best := 0, math.Inf(1)
	refMean := meanTokens(t, ref)
	for _, k := range []int{1, 2, 3, 4} {
		if d := math.Abs(meanTokens(t, cands[k]) - refMean); d < best {
			want, best = k, d
		}
	}
	runs := filepath.Join(root, "runs")
	rel := func(dir string) string { r, _ := filepath.Rel(runs, dir); return r }
	plan := `title: registered
judge: lexical
split: sample
alpha: 0.05
exclude_category: [5]
kstar: {reference: engram, candidate: turns-rerank, ks: "1..4"}
systems:
  turns-rerank: "{kstar}"
  engram: ` + rel(ref) + `
  turns-cosine: sample-turns-cosine-*
  turns-llm: sample-turns-llm-*
  same-as-rerank: "{kstar}"
hypotheses:
  - {id: H1, kind: noninferiority, family: primary, a: turns-rerank, b: engram, margin: -5}
  - {id: S1, kind: mcnemar, family: secondary, a: turns-rerank, b: turns-cosine}
  - {id: S4, kind: noninferiority, family: secondary, a: turns-rerank, b: turns-llm, margin: -5, distinct_models: {a: decide, b: build}}
  - {id: S5, family: secondary, note: "the paper names S5 but does not say what it tests"}
  - {id: S6, family: secondary, note: "the paper names S6 but does not say what it tests"}
`
	p := lockedPlan(t, root, "plan", runs, plan)
	rep, err := Test(p, runs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.KStar == nil || rep.KStar.K != want || rep.KStar.Run != cands[want] || rep.KStar.ReferenceRun != ref || rep.KStar.ReferenceK != 3 {
		t.Fatalf("k* %+v, want k*=%d (%s)", rep.KStar, want, cands[want])
	}
	if math.Abs(rep.KStar.ReferenceMean-refMean) > 1e-9 || rep.KStar.Offline == "" {
		t.Errorf("reference mean %v, want %v; offline note %q", rep.KStar.ReferenceMean, refMean, rep.KStar.Offline)
	}
	by := map[string]Outcome{}
	for _, o := range rep.Outcomes {
		by[o.ID] = o
	}
	if by["H1"].RunA != cands[want] {
		t.Errorf("H1 tested %s, want the k* run %s", by["H1"].RunA, cands[want])
	}
	// Holm in the secondary family counts S1 and S4 only: m = 2, and the
	// smaller p is doubled.
	s1, s4 := by["S1"], by["S4"]
	if s1.HolmM != 2 || s4.HolmM != 2 || by["H1"].HolmM != 1 {
		t.Errorf("Holm m: S1 %d S4 %d H1 %d, want 2, 2, 1", s1.HolmM, s4.HolmM, by["H1"].HolmM)
	}
	// A test without a p (S4 may be degenerate on the offline sample)
	// enters Holm as p = 1.
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
	if lo := pOr1(first.P); first.P != nil && math.Abs(*first.HolmP-math.Min(1, 2*lo)) > 1e-12 {
		t.Errorf("Holm: %s adjusted p %v, want min(1, 2·%v)", first.ID, *first.HolmP, lo)
	}
	for _, id := range []string{"S5", "S6"} {
		if o := by[id]; !o.Slot || o.P != nil || o.HolmM != 0 || !strings.Contains(o.Decision, "not tested") {
			t.Errorf("%s: %+v, want an untested slot", id, o)
		}
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.HasPrefix(w, "S4: ") && strings.Contains(w, "both the offline backend")
	}
	if !warned {
		t.Errorf("S4 on offline runs should warn that the model distinction is not tested: %v", rep.Warnings)
	}
	tbl := rep.Table()
	notes := strings.Join(tbl.Notes, "\n")
	for _, s := range []string{"k* = ", "secondary 2", "S5 (slot)"} {
		if !strings.Contains(notes, s) {
			t.Errorf("table notes lack %q:\n%s", s, notes)
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
	rep3, err := Test(lockedPlan(t, root3, "self", runs, self), runs)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep3.Outcomes[0]; !d.Degenerate || !strings.HasPrefix(d.Decision, "degenerate: every paired difference is +0.00") || d.P != nil || d.Reject {
		t.Errorf("H1 of a run against itself: %+v, want a degenerate decision", d)
	}

	// A registered k without a run: refused with the command to run it.
	root2 := filepath.Join(root, "wide")
	os.MkdirAll(root2, 0o755)
	wide := strings.Replace(plan, `ks: "1..4"`, `ks: "1..5"`, 1)
	p2 := lockedPlan(t, root2, "wide", runs, wide)
	_, err = Test(p2, runs)
	if err == nil || !strings.Contains(err.Error(), "missing k = [5]") || !strings.Contains(err.Error(), "membench run --system turns-rerank --k 5") {
		t.Errorf("missing k: %v", err)
	}
	// S4 with the same real model as decision model and listwise reranker
	// is refused: edit both manifests to claim one openai model.
	for _, dir := range []string{rep.KStar.Run, by["S4"].RunB} {
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
	if _, err := TestRuns(p, runs, true); err == nil || !strings.Contains(err.Error(), "S4") || !strings.Contains(err.Error(), "registers them distinct") {
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
		"kstar reference unknown":     base + "kstar: {reference: zz, candidate: turns-rerank, ks: 1..4}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n",
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
