package peers

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
)

func run(args ...string) (string, error) { return testutil.Execute(NewCmd(), args...) }

// The command imports a shipped fc-baseline file into a run directory
// every reader takes, and prints each published figure beside the one its
// records give: all equal.
func TestImportFCBaseline(t *testing.T) {
	file := testutil.Shared(t, "datasets", "locomo-audit", "fc-baseline", "gpt-4o-mini-memos.json")
	data := testutil.Shared(t, "datasets", "locomo10.json")
	out := filepath.Join(t.TempDir(), "fc-memos")
	got, err := run("import", file, "--out", out, "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res []Imported
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res) != 1 {
		t.Fatalf("json %v: %s", err, got)
	}
	r := res[0]
	if r.System != "gpt-4o-mini-memos" || r.Match.Matched != 1540 || len(r.Figures) < 8 || r.Repeats == nil || r.Repeats.Repeats != 3 {
		t.Fatalf("import %+v", r)
	}
	for _, f := range r.Figures {
		if !f.Has || math.Abs(f.Ours-f.Published) > 1e-9 {
			t.Errorf("%s: published %v, records give %v", f.Name, f.Published, f.Ours)
		}
	}
	loaded, err := analysis.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Judgments) != 1540 || loaded.Manifest.JudgeSpecs[0].Repeats != 3 || loaded.Manifest.JudgeSpecs[0].Model.Model != "gpt-4o-mini" {
		t.Errorf("run: %d verdicts, judge %+v", len(loaded.Judgments), loaded.Manifest.JudgeSpecs)
	}
	for _, f := range []string{runlog.SummaryMD, "predictions.jsonl", "peer.json", runlog.CostsFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// score re-judges the imported answers with our offline judges.
	rescored := filepath.Join(t.TempDir(), "rescored")
	sum, _, err := scoring.Run(context.Background(), scoring.Config{Config: membench.Config{Dataset: "locomo", Data: data, Judges: []string{"f1", "lexical"}, NoCache: true, Host: membench.Host{Home: t.TempDir()}}, Predictions: filepath.Join(out, "predictions.jsonl"), Out: rescored})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Overall.N != 1540 || len(sum.Overall.Scores) != 2 {
		t.Errorf("rescored overall %+v, want f1 and lexical over 1540 questions", sum.Overall)
	}
	t.Logf("rescored: f1 %.2f, lexical %.2f (peer-llm %.2f)", sum.Overall.Scores["f1"], sum.Overall.Scores["lexical"], loaded.Summary.Overall.Scores["peer-llm"])
}

// Bad input is refused with exit 2 and a line naming the fix.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.json")
	os.WriteFile(plain, []byte(`{"answers": []}`), 0o644)
	data := testutil.Shared(t, "datasets", "locomo10.json")
	cases := map[string][]string{
		"--out":    {"import", plain, "--data", data},
		"--format": {"import", plain, "--out", filepath.Join(dir, "o"), "--data", data},
		"--only":   {"import", dir, "--only", "nobody", "--out", filepath.Join(dir, "o"), "--data", data},
		"absent":   {"import", filepath.Join(dir, "absent.json"), "--out", filepath.Join(dir, "o"), "--data", data},
	}
	for want, args := range cases {
		_, err := run(args...)
		if clierr.Code(err) != 2 || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want exit 2 naming %s", args, err, want)
		}
	}
}
