package summary_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
	"github.com/membench/membench/summary"
)

// The committed bundle was recorded by a membench whose answer records had
// no group and whose manifest listed no dataset groups; its summary.json
// is what that binary computed. Read with this one, the run gives the
// same rows in the same order, the same scores and the same overall.
func TestOldRunReadsTheSame(t *testing.T) {
	dir := untar(t, filepath.Join("..", "testdata", "bundles", "sample-turns-rerank.tar.gz"))
	raw, err := os.ReadFile(filepath.Join(dir, runlog.AnswersFile))
	if err != nil || strings.Contains(string(raw), `"group"`) {
		t.Fatalf("the fixture should be an old-format run: %v", err)
	}
	var old struct {
		Groups []struct {
			Name     string
			Category int
			N        int
			Scores   map[string]float64
		}
		Overall runlog.Group
	}
	b, err := os.ReadFile(filepath.Join("..", "testdata", "bundles", "sample-turns-rerank.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	s, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups) != len(old.Groups) || len(old.Groups) != 5 {
		t.Fatalf("groups %+v, old %+v", s.Groups, old.Groups)
	}
	for i, g := range s.Groups {
		o := old.Groups[i]
		if g.Name != o.Name || g.N != o.N || !sameScores(g.Scores, o.Scores) || g.Abstains != (o.Category == 5) {
			t.Errorf("group %d: %+v, old binary %+v", i, g, o)
		}
	}
	if s.Overall.N != old.Overall.N || !sameScores(s.Overall.Scores, old.Overall.Scores) {
		t.Errorf("overall %+v, old binary %+v", s.Overall, old.Overall)
	}
	var md strings.Builder
	if err := summary.Table(s).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "overall (without adversarial)") {
		t.Errorf("table:\n%s", md.String())
	}
}

// A run of a dataset this binary has never heard of is summarised from its
// manifest and records alone: the manifest's group order, its abstaining
// group left out of overall.
func TestSummaryOfUnknownDataset(t *testing.T) {
	if _, err := datasets.Lookup("mystery"); err == nil {
		t.Fatal("the test needs a dataset name nobody registers")
	}
	r := runlogtest.Run{Manifest: runlog.Manifest{Schema: runlog.ManifestSchema, RunID: "mystery-run", Dataset: "mystery", Judges: []string{"j"},
		DatasetGroups: []runlog.DatasetGroup{{Name: "zeta"}, {Name: "alpha"}, {Name: "refuse", Abstains: true}}}}
	for i, g := range []string{"alpha", "zeta", "refuse", "alpha", "extra"} {
		id := string(rune('a' + i))
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, Group: g, Abstention: g == "refuse"})
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "j", Correct: i%2 == 0, Score: float64((i + 1) % 2)})
	}
	dir := r.Write(t, t.TempDir())
	s, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range s.Groups {
		names = append(names, g.Name)
	}
	if strings.Join(names, ",") != "zeta,alpha,refuse,extra" || !s.Groups[2].Abstains {
		t.Errorf("groups %+v", s.Groups)
	}
	// a, d (alpha: 1, 0), b (zeta: 0), e (extra: 1); c (refuse) left out.
	if s.Overall.N != 4 || s.Overall.Scores["j"] != 50 || s.Groups[1].Scores["j"] != 50 || s.Groups[2].N != 1 {
		t.Errorf("overall %+v, groups %+v", s.Overall, s.Groups)
	}
	var md strings.Builder
	if err := summary.Table(s).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "overall (without refuse)") {
		t.Errorf("table:\n%s", md.String())
	}
}

func sameScores(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// untar unpacks a .tar.gz of plain files into a fresh directory.
func untar(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
