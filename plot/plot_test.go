package plot

import (
	"context"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/runlog"

	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/harness"
	_ "github.com/membench/membench/systems/all"
)

func sampleRun(t *testing.T, root string, cfg membench.Config) string {
	t.Helper()
	cfg.ResultsDir, cfg.CacheDir, cfg.Quiet = filepath.Join(root, "runs"), filepath.Join(root, "cache"), true
	cfg.Judges = []string{"lexical", "f1"}
	cfg.Host = membench.Host{Embedder: "hashed"} // independent of the installed model
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return harnesstest.Dir(t, cfg)
}

func checkFiles(t *testing.T, paths []string) {
	t.Helper()
	if len(paths) != 3 {
		t.Fatalf("want png, svg and pdf, got %v", paths)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v (size %d)", p, err, st.Size())
		}
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", paths[0], err)
	}
	if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 200 {
		t.Fatalf("png too small: %v", b)
	}
}

func TestFiguresFromSampleRuns(t *testing.T) {
	root := t.TempDir()
	var kRuns, seedRuns []string
	for _, k := range []int{1, 5} {
		kRuns = append(kRuns, sampleRun(t, root, membench.Config{System: "turns-cosine", K: k}))
	}
	for _, s := range []string{"0", "5"} {
		seedRuns = append(seedRuns, sampleRun(t, root, membench.Config{System: "structmem", Options: membench.Options{"seeds": s}}))
	}

	c, err := KChart(kRuns, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 || c.Series[0].X[0] != 1 || c.Series[0].X[1] != 5 {
		t.Fatalf("k series: %+v", c.Series)
	}
	paths, err := c.Save(filepath.Join(root, "fig", "k"))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, paths)

	c, err = SeedsChart(seedRuns, "f1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Series[0].X[0] != 0 || c.Series[0].X[1] != 5 {
		t.Fatalf("seeds series: %+v", c.Series)
	}
	paths, err = c.Save(filepath.Join(root, "fig", "seeds"))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, paths)
	// turns-cosine has no seeds option: plotting it against seeds is an error.
	if _, err := SeedsChart(kRuns, ""); err == nil {
		t.Fatal("seeds chart of turns-cosine runs should fail")
	}

	c, err = BuildTokensChart([]string{seedRuns[1], kRuns[0]})
	if err != nil {
		t.Fatal(err)
	}
	sm := c.Series[0]
	b, _ := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(seedRuns[1], runlog.BuildFile))
	if last := sm.Y[len(sm.Y)-1]; last <= 0 || int(sm.X[len(sm.X)-1]) != b[0].Turns {
		t.Fatalf("structmem curve ends at (%v, %v), want x = %d turns and y > 0", sm.X[len(sm.X)-1], last, b[0].Turns)
	}
	for i := 1; i < len(sm.Y); i++ {
		if sm.Y[i] < sm.Y[i-1] {
			t.Fatalf("cumulative tokens decrease at %d", i)
		}
	}
	paths, err = c.Save(filepath.Join(root, "fig", "build"))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, paths)
}

func TestConvOrder(t *testing.T) {
	have := map[string]runlog.BuildRecord{"conv-10": {}, "conv-9": {}, "conv-26": {}, "x": {}}
	got := convOrder([]string{"conv-26"}, have)
	want := []string{"conv-26", "conv-9", "conv-10", "x"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
}

// Without llm in every run, the fallback judge must be one every run has;
// else the runs lacking it would be drawn at 0%.
func TestPickJudgeFallbackCommonToAll(t *testing.T) {
	run := func(dir string, scores map[string]float64, judges ...string) *runInfo {
		return &runInfo{dir: dir, summary: &runlog.Summary{Judges: judges, Overall: runlog.Group{Scores: scores}}}
	}
	a := run("a", map[string]float64{"bleu1": 30, "f1": 40}, "bleu1", "f1")
	b := run("b", map[string]float64{"f1": 50}, "f1")
	if j, err := PickJudge([]*runInfo{a, b}, ""); err != nil || j != "f1" {
		t.Fatalf("PickJudge = %q, %v; want f1 (the judge both runs have)", j, err)
	}
	c := run("c", map[string]float64{"em": 10}, "em")
	if j, err := PickJudge([]*runInfo{a, c}, ""); err == nil {
		t.Fatalf("PickJudge = %q with no judge shared by all runs; want an error", j)
	}
}

// A run's budget and seeds come from its manifest's resolved options, so
// a system this binary does not register is still placed; only a manifest
// without them asks the registry.
func TestPlotOptionsFromTheManifest(t *testing.T) {
	future := runlog.Manifest{Config: membench.Config{System: "system-from-the-future"}, SystemOptions: membench.Options{"entries": "12", "seeds": "4"}}
	if k, ok := BudgetK(future); !ok || k != 12 {
		t.Errorf("BudgetK = %d, %v; want 12 from system_options", k, ok)
	}
	if s, ok := Seeds(future); !ok || s != 4 {
		t.Errorf("Seeds = %d, %v; want 4 from system_options", s, ok)
	}
	future.Config.Options = membench.Options{"seeds": "2"}
	if s, _ := Seeds(future); s != 2 {
		t.Errorf("Seeds = %d; the run's own --opt wins", s)
	}
	if _, ok := BudgetK(runlog.Manifest{Config: membench.Config{System: "system-from-the-future"}}); ok {
		t.Error("an unregistered system without system_options was given a budget")
	}
}
