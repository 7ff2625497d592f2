package harness_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets/datasettest"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// A dataset the harness knows nothing about, registered by a package of
// its own (datasettest: its init and one import), runs end to end offline:
// the summary has its groups in its spec's order, leaves its abstaining
// group out of overall, and the run folder says so without any registry.
func TestRegisteredDatasetRunsEndToEnd(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.Dataset, cfg.Data = datasettest.Name, filepath.Join("..", "datasets", "datasettest", "testdata", "tiny.json")
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		n        int
		abstains bool
	}{{"recall", 2, false}, {"inference", 1, false}, {"refusal", 1, true}} // the spec's order, not the alphabet's
	if len(sum.Groups) != len(want) {
		t.Fatalf("groups %+v", sum.Groups)
	}
	for i, w := range want {
		if g := sum.Groups[i]; g.Name != w.name || g.N != w.n || g.Abstains != w.abstains || len(g.Scores) == 0 {
			t.Errorf("group %d: %+v, want %+v", i, g, w)
		}
	}
	if sum.Overall.N != 3 || sum.Questions != 4 || sum.Dataset != datasettest.Name {
		t.Errorf("overall %+v over %d questions of %s, want 3 of 4 (refusal left out)", sum.Overall, sum.Questions, sum.Dataset)
	}
	var b strings.Builder
	if err := summary.Print(&b, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "overall (without refusal)") || !strings.Contains(b.String(), "inference") {
		t.Errorf("table:\n%s", b.String())
	}

	dir := harnesstest.Dir(t, cfg)
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.DatasetGroups) != len(datasettest.Groups) {
		t.Fatalf("manifest groups %+v", m.DatasetGroups)
	}
	// The manifest describes its judges itself: each one's class and the
	// primary judge, so no reader asks this binary's judge registry.
	if m.Primary != "lexical" || len(m.JudgeSpecs) != len(m.Judges) {
		t.Errorf("manifest primary_judge %q, judge_specs %+v; want lexical and one spec per judge", m.Primary, m.JudgeSpecs)
	}
	for _, in := range m.JudgeSpecs {
		if want := map[bool]string{true: membench.JudgeMetric, false: membench.JudgeVerdict}[in.Name != "lexical"]; in.Class != want {
			t.Errorf("judge %s: class %q, want %q", in.Name, in.Class, want)
		}
	}
	for i, g := range datasettest.Groups {
		if m.DatasetGroups[i] != (runlog.DatasetGroup{Name: g.Name, Abstains: g.Abstains}) {
			t.Errorf("manifest group %d: %+v, spec %+v", i, m.DatasetGroups[i], g)
		}
	}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil || len(answers) != 4 {
		t.Fatalf("answers %d: %v", len(answers), err)
	}
	for _, a := range answers {
		if a.Group == "" || a.Abstains() != (a.Group == "refusal") || a.Category != 0 {
			t.Errorf("answer record %s: group %q, abstains %v, category %d", a.QuestionID, a.Group, a.Abstains(), a.Category)
		}
	}
	// Read back from the folder alone, the run summarises the same.
	again, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range again.Groups {
		if again.Groups[i].Name != sum.Groups[i].Name || again.Groups[i].N != sum.Groups[i].N || again.Groups[i].Abstains != sum.Groups[i].Abstains {
			t.Errorf("re-read group %d: %+v, run %+v", i, again.Groups[i], sum.Groups[i])
		}
	}
}
