package analysis_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

func TestDifferencesNameFieldAndRuns(t *testing.T) {
	a, b := runlogtest.OfflineManifest(), runlogtest.OfflineManifest()
	if d := differences([]analysis.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, "f1"); len(d) != 0 {
		t.Fatalf("identical manifests differ: %v", d)
	}
	b.Embedder = "tfidf-hash-512"
	b.JudgeSpecs[1].Threshold = 0.3
	_, err := analysis.CheckComparable([]analysis.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, false, "f1")
	var me *analysis.MixedError
	if !errors.As(err, &me) || len(me.Diffs) != 2 || me.Diffs[0].Field != "embedder" || me.Diffs[1].Field != "judge" {
		t.Fatalf("want embedder and judge differences, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "A: use-lite") || !strings.Contains(msg, "B: tfidf-hash-512") || !strings.Contains(msg, "--allow-mixed") {
		t.Errorf("message %q", msg)
	}
	mixed, err := analysis.CheckComparable([]analysis.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, true, "f1")
	if err != nil || len(mixed) != 2 || !strings.HasPrefix(analysis.MixedWarning(mixed), "WARNING (--allow-mixed)") {
		t.Errorf("allow mixed: %v %v", mixed, err)
	}
	// Runs compared under different judges on purpose: no judge facet.
	if d := differences([]analysis.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}); len(d) != 1 {
		t.Errorf("without a judge: %v", d)
	}
}

// Runs of one system may differ in the one option compared; a second
// differing option, or one outside the caller's vary list, is named.
func TestOptionDifferencesWithinOneSystem(t *testing.T) {
	mk := func(sys string, opts map[string]string) runlog.Manifest {
		m := runlogtest.OfflineManifest()
		m.Config.System = sys
		m.SystemOptions = opts
		return m
	}
	a := mk("turns-rerank", map[string]string{"k": "3", "n": "30"})
	b := mk("turns-rerank", map[string]string{"k": "20", "n": "30"})
	c := mk("turns-rerank", map[string]string{"k": "20", "n": "50"})
	d := mk("turns-cosine", map[string]string{"k": "7"})
	side := func(l string, m *runlog.Manifest) analysis.Side { return analysis.Side{Label: l, Manifest: m} }
	if diffs := differences([]analysis.Side{side("a", &a), side("b", &b), side("d", &d)}); len(diffs) != 0 {
		t.Errorf("one option differs (k): %v", diffs)
	}
	diffs := differences([]analysis.Side{side("a", &a), side("c", &c)})
	if len(diffs) != 1 || !strings.Contains(diffs[0].String(), "a: k=3,n=30") || !strings.Contains(diffs[0].String(), "c: k=20,n=50") {
		t.Errorf("two options differ: %v", diffs)
	}
	diffs = analysis.DifferencesVarying([]analysis.Side{side("b", &b), side("c", &c)}, []string{"k"})
	if len(diffs) != 1 || !strings.Contains(diffs[0].Field, "other than k") || !strings.Contains(diffs[0].String(), "n=50") {
		t.Errorf("n differs where only k may: %v", diffs)
	}
	e := a
	e.Models = map[string]membench.ModelID{"build": {Backend: "offline"}, "answer": {Backend: "offline", Model: "heuristic"}, "decide": {Backend: "openai", Model: "x"}, "judge": {Backend: "offline", Model: "heuristic"}}
	if diffs := differences([]analysis.Side{side("a", &a), side("e", &e)}); len(diffs) < 2 || diffs[0].Field != "build model" || diffs[1].Field != "decide model" {
		t.Errorf("build and decide models: %v", diffs)
	}
}

// An imported peer's answer model and embedder are part of the system
// under test: peers (and a peer beside an own run) that differ only there
// are comparable, with a note; own runs must still agree on them.
func TestPeerSystemSettings(t *testing.T) {
	peer := func(model string) runlog.Manifest {
		return runlog.Manifest{Dataset: "locomo", DatasetSHA256: "aaaa", Embedder: runlog.PeerEmbedder, Peer: true,
			Models: map[string]membench.ModelID{"answer": {Backend: "openrouter", Model: model}}, Judges: []string{"peer-llm"}}
	}
	side := func(l string, m runlog.Manifest) analysis.Side { return analysis.Side{Label: l, Manifest: &m} }
	p4o, p41 := peer("gpt-4o-mini"), peer("gpt-4.1-mini")
	sides := []analysis.Side{side("p4o", p4o), side("p41", p41)}
	if d := differences(sides, "peer-llm"); len(d) != 0 {
		t.Fatalf("peers differing in answer model only: %v", d)
	}
	ps := analysis.PeerSettings(sides, "peer-llm")
	if len(ps) != 1 || ps[0].Field != "answer model" {
		t.Fatalf("peer settings %v, want the answer model", ps)
	}
	note := analysis.PeerNote(ps[0])
	for _, want := range []string{"p4o: openrouter:gpt-4o-mini", "p41: openrouter:gpt-4.1-mini", "answer model is part of an imported peer's system", "not treated as a mixed setting"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	// An import written before the peer flag is known by its embedder.
	old := peer("gpt-4.1-mini")
	old.Peer = false
	if d := differences([]analysis.Side{side("p4o", p4o), side("old", old)}, "peer-llm"); len(d) != 0 {
		t.Errorf("older import: %v", d)
	}
	// Own runs differing in answer model are still mixed, beside a peer
	// too (one that names no model, as Zep's file, so nothing else differs).
	a, b := runlogtest.OfflineManifest(), runlogtest.OfflineManifest()
	b.Models = map[string]membench.ModelID{"build": a.Models["build"], "answer": {Backend: "offline", Model: "other"}, "decide": a.Models["decide"], "judge": a.Models["judge"]}
	zep := peer("")
	zep.Models = nil
	for _, s := range [][]analysis.Side{{side("a", a), side("b", b)}, {side("a", a), side("b", b), side("zep", zep)}} {
		d := differences(s)
		if len(d) != 1 || d[0].Field != "answer model" {
			t.Errorf("own runs differing in answer model: %v", d)
		}
	}
	// An own run beside a peer: the embedder is the peer's own, but the
	// dataset file and offline vs real backends still count.
	d := differences([]analysis.Side{side("a", a), side("p4o", p4o)})
	if len(d) != 1 || d[0].Field != "backends" {
		t.Errorf("offline own run beside a real peer: %v, want only backends", d)
	}
	if ps := analysis.PeerSettings([]analysis.Side{side("a", a), side("p4o", p4o)}); len(ps) != 2 || ps[0].Field != "embedder" || ps[1].Field != "answer model" {
		t.Errorf("peer settings beside an own run: %v", ps)
	}
	other := peer("gpt-4.1-mini")
	other.DatasetSHA256 = "bbbb"
	if d := differences([]analysis.Side{side("p4o", p4o), side("other", other)}); len(d) != 1 || d[0].Field != "dataset" {
		t.Errorf("peers on different files: %v", d)
	}
}

// An option whose value follows from another (StructMem's clock from its
// granularity, manifest FollowedOptions) differs together with it: one
// difference, in a pair and in a sweep varying the option it follows.
func TestFollowedOptionIsNotASecondDifference(t *testing.T) {
	mk := func(gran, clock string, followed ...string) *runlog.Manifest {
		m := runlogtest.OfflineManifest()
		m.Config.System = "structmem"
		m.SystemOptions = map[string]string{"granularity": gran, "clock": clock, "seeds": "15"}
		m.FollowedOptions = followed
		return &m
	}
	def := mk("session", "session+1s*position")
	buf := mk("buffer512", "batch+1s*position", "clock")
	bufOwnClock := mk("buffer512", "session+1s*position")
	side := func(l string, m *runlog.Manifest) analysis.Side { return analysis.Side{Label: l, Manifest: m} }
	if diffs := differences([]analysis.Side{side("def", def), side("buf", buf)}); len(diffs) != 0 {
		t.Errorf("granularity alone differs (the clock follows it): %v", diffs)
	}
	if diffs := analysis.DifferencesVarying([]analysis.Side{side("def", def), side("buf", buf)}, []string{"granularity"}); len(diffs) != 0 {
		t.Errorf("a sweep over granularity: %v", diffs)
	}
	// The clock alone differs between buffer512 runs: that is the one
	// option compared.
	if diffs := differences([]analysis.Side{side("buf", buf), side("own", bufOwnClock)}); len(diffs) != 0 {
		t.Errorf("clock alone differs: %v", diffs)
	}
	// Seeds differing beside the granularity is a second difference; the
	// followed clock is not named.
	other := mk("buffer512", "batch+1s*position", "clock")
	other.SystemOptions["seeds"] = "0"
	diffs := differences([]analysis.Side{side("def", def), side("other", other)})
	if len(diffs) != 1 || strings.Contains(diffs[0].String(), "clock") || !strings.Contains(diffs[0].String(), "seeds=0") {
		t.Errorf("granularity and seeds differ: %v", diffs)
	}
}

// differences compares sides with no system option allowed to vary.
func differences(sides []analysis.Side, judges ...string) []analysis.Difference {
	return analysis.DifferencesVarying(sides, nil, judges...)
}
