package peers

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/summary"
)

func loadLoCoMo(t *testing.T) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.Load("locomo", testutil.Shared(t, "datasets", "locomo10.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// importScored imports a shipped scored file into a fresh run directory
// and summarises it.
func importScored(t *testing.T, ds *datasets.Dataset, path string) (*Scored, string, *runlog.Summary) {
	t.Helper()
	sc, err := ReadScored(path, ds)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := WriteRun(dir, sc.Info("peer", ds), sc.Items, sc.Report); err != nil {
		t.Fatal(err)
	}
	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sc, dir, sum
}

// The three fc-baseline runs imported from their per-question records
// give the mean, per-category, per-run, sd and majority-vote accuracies
// their metadata publishes, to float rounding; the token totals become
// the answer stage's cost; the three judgment runs are repeats whose
// Fleiss κ (agreement --raters repeat) is the one the file's verdicts give.
func TestScoredFCBaselineReproducesMetadata(t *testing.T) {
	ds := loadLoCoMo(t)
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "datasets", "locomo-audit", "fc-baseline"), "*.json"))
	if len(files) != 3 {
		t.Fatalf("fc-baseline holds %d files, want 3", len(files))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, f := range files {
		sc, dir, sum := importScored(t, ds, f)
		m := sc.Meta
		if m == nil || m.MeanAccuracy == nil || m.MajorityVote == nil {
			t.Fatalf("%s: no metadata read", f)
		}
		name := filepath.Base(f)
		if got := sum.Overall.Scores[JudgeName]; !near(got, 100**m.MeanAccuracy) {
			t.Errorf("%s: overall %.12f, metadata mean %.12f", name, got, 100**m.MeanAccuracy)
		}
		for c, ca := range m.CategoryAccuracies {
			found := false
			for _, g := range sum.Groups {
				if g.Name == locomo.CategoryName(int(c[0]-'0')) {
					found = true
					if !near(g.Scores[JudgeName], 100*ca.Mean) || g.N != ca.Total {
						t.Errorf("%s: category %s %.12f (n %d), metadata %.12f (n %d)", name, c, g.Scores[JudgeName], g.N, 100*ca.Mean, ca.Total)
					}
					st := g.Repeats[JudgeName]
					for i, r := range ca.Runs {
						if i >= len(st.Scores) || !near(st.Scores[i], 100*r) {
							t.Errorf("%s: category %s run %d: %v, metadata %v", name, c, i+1, st.Scores, ca.Runs)
						}
					}
				}
			}
			if !found {
				t.Errorf("%s: no group for category %s", name, c)
			}
		}
		st, ok := sum.Overall.Repeats[JudgeName]
		if !ok || st.Repeats != m.NumRuns {
			t.Fatalf("%s: repeats %+v, want %d runs", name, st, m.NumRuns)
		}
		if !near(st.Majority, 100**m.MajorityVote) || !near(st.SD, 100**m.StdAccuracy) || !near(st.Mean, 100**m.MeanAccuracy) {
			t.Errorf("%s: majority %.12f sd %.12f mean %.12f; metadata %.12f %.12f %.12f", name, st.Majority, st.SD, st.Mean, 100**m.MajorityVote, 100**m.StdAccuracy, 100**m.MeanAccuracy)
		}
		for i, r := range m.RunScores {
			if !near(st.Scores[i], 100*r) {
				t.Errorf("%s: run %d %.12f, metadata %.12f", name, i+1, st.Scores[i], 100*r)
			}
		}
		if c := sum.Stages["answer"]; c.InputTokens != m.PromptTokens || c.OutputTokens != m.CompletionTokens {
			t.Errorf("%s: answer tokens %d/%d, metadata %d/%d", name, c.InputTokens, c.OutputTokens, m.PromptTokens, m.CompletionTokens)
		}
		for _, fig := range sc.Published.Figures(sum) {
			if !fig.Has || !near(fig.Ours, fig.Published) {
				t.Errorf("%s: figure %s published %.6f, ours %.6f (has %v)", name, fig.Name, fig.Published, fig.Ours, fig.Has)
			}
		}
		// Fleiss κ of the three judgment runs, from the file's own verdicts.
		labels := verdictsOf(t, f)
		want, err := stats.FleissKappa(labels)
		if err != nil {
			t.Fatal(err)
		}
		src, err := analysis.LoadSource(dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := analysis.Agreement([]*analysis.Source{src}, analysis.AgreementOptions{Raters: analysis.RatersRepeat})
		if err != nil {
			t.Fatal(err)
		}
		if res.FleissKappa == nil || !near(*res.FleissKappa, want) || res.N != len(labels) || len(res.Judges) != 3 {
			t.Errorf("%s: Fleiss κ over repeats %v on %d items (%v), the file's verdicts give %v on %d", name, res.FleissKappa, res.N, res.Judges, want, len(labels))
		}
		t.Logf("%s: mean %.4f, majority %.4f, sd %.4f, Fleiss κ %.4f", name, st.Mean, st.Majority, st.SD, *res.FleissKappa)
	}
}

// verdictsOf reads the llm_judgments of a scored file straight from its
// JSON, one row per answer.
func verdictsOf(t *testing.T, path string) [][]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Details map[string][]struct {
			J map[string]bool `json:"llm_judgments"`
		} `json:"detailed_results"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out [][]bool
	for _, recs := range f.Details {
		for _, r := range recs {
			out = append(out, []bool{r.J["judgment_1"], r.J["judgment_2"], r.J["judgment_3"]})
		}
	}
	return out
}

// The ap-baseline wrong answers imported as a peer: the recorded judge's
// acceptance (its score on answers all wrong) is the file's published
// 10.61%, the mean of its three runs' counts.
func TestScoredAPBaselineRecordedRate(t *testing.T) {
	ds := loadLoCoMo(t)
	path := testutil.Shared(t, "datasets", "locomo-audit", "ap-baseline", "v1_specific_wrong.scored.json")
	sc, _, sum := importScored(t, ds, path)
	counts := make([]int, 3)
	for _, row := range verdictsOf(t, path) {
		for r, ok := range row {
			if ok {
				counts[r]++
			}
		}
	}
	want := 100 * float64(counts[0]+counts[1]+counts[2]) / 3 / 1540
	got := sum.Overall.Scores[JudgeName]
	if math.Abs(got-want) > 1e-9 || math.Abs(got-sc.Published.Overall) > 1e-9 {
		t.Errorf("accepted %.12f%%, want %.12f%% (counts %v) and the published %.12f%%", got, want, counts, sc.Published.Overall)
	}
	t.Logf("ap-baseline recorded: counts %v, rate %.4f%%", counts, got)
}

// A scored file whose verdicts, metadata or ids are wrong is refused with
// a message naming the file and what to fix.
func TestScoredBadInput(t *testing.T) {
	ds := tiny()
	dir := t.TempDir()
	cases := map[string]string{
		"meta-range.json":  `{"detailed_results": {"c": [{"question_id": "conv-a:0", "generated_answer": "x", "llm_judgments": {"judgment_1": true}}]}, "metadata": {"mean_accuracy": 79.9}}`,
		"meta-shape.json":  `{"detailed_results": {"c": []}, "metadata": {"run_scores": "high"}}`,
		"runs-differ.json": `{"detailed_results": {"c": [{"question_id": "conv-a:0", "generated_answer": "x", "llm_judgments": {"judgment_1": true, "judgment_2": true}}, {"question_id": "conv-a:1", "generated_answer": "y", "llm_judgments": {"judgment_1": false}}]}}`,
		"no-details.json":  `[{"question_id": "conv-a:0", "answer": "x"}]`,
		"bad-id.json":      `{"detailed_results": {"c": [{"question_id": "locomo_7_qa0", "generated_answer": "x"}]}}`,
	}
	for name, body := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadScored(p, ds)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v; want one line of bad input naming the file", name, err)
		}
	}
}
