package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/scoring"
)

const (
	shippedLoCoMo = "../../../../shared/datasets/locomo10.json"
	shippedKey    = "../../../../shared/datasets/locomo-audit/errors.json"
)

// Every scored LoCoMo question answered with its published gold, judged
// by exact match and again under the audited key: the report puts both
// keys side by side, prints the published key's ceilings from the key
// file, and splits off the image-dependent questions.
func TestReportUnderBothKeys(t *testing.T) {
	for _, p := range []string{shippedLoCoMo, shippedKey} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shipped data absent (%v); it lives in ../shared/datasets", err)
		}
	}
	home := t.TempDir()
	t.Setenv("MEMBENCH_HOME", home)
	e, _ := datasets.File(answerkey.Entry)
	if _, err := datasets.AddLocal(e, datasets.DefaultDir(home), shippedKey, 0); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("locomo", shippedLoCoMo, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var preds []string
	for _, q := range ds.Questions() {
		if !q.Abstains() {
			b, _ := json.Marshal(map[string]string{"question_id": q.ID, "prediction": q.Gold})
			preds = append(preds, string(b))
		}
	}
	pf := filepath.Join(dir, "gold.jsonl")
	if err := os.WriteFile(pf, []byte(strings.Join(preds, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs", "gold")
	if _, _, err := scoring.Run(context.Background(), scoring.Config{Config: membench.Config{Dataset: "locomo", Data: shippedLoCoMo, Judges: []string{"em"}, NoCache: true, Host: membench.Host{Home: home}}, Predictions: pf, Out: out}); err != nil {
		t.Fatal(err)
	}
	_, err = run("--run", out, "--answer-key", "published,audited", "--judge", "em")
	if err == nil || !strings.Contains(err.Error(), "membench judge --run "+out+" --answer-key audited --judge-spec ") {
		t.Fatalf("no keyed verdicts yet: %v, want the judge command to run", err)
	}
	// The spec it prints is the one to pass.
	_, spec, _ := strings.Cut(err.Error(), "--judge-spec ")
	if _, _, err := rejudge.Run(context.Background(), out, []string{spec}, rejudge.Options{AnswerKey: "audited", Home: home, NoCache: true, Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := run("--run", out, "--answer-key", "published,audited", "--judge", "em", "--by-image", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"gold,published,1540,",
		"multi-hop 90.07% (28 of 282 wrong)", "temporal 91.90% (26 of 321 wrong)", "open-domain 90.62% (9 of 96 wrong)",
		"single-hop 95.72% (36 of 841 wrong)", "overall 93.57% (99 of 1540 wrong)",
		"run,n,all,n,without image-dependent,n,image-dependent only\ngold,1540,", // by image
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	// Exact match gives the gold itself 100 (open-domain golds are cut
	// at ";" first). Under the audited key, 1527 scored; the published
	// golds the key replaces (86) no longer match, unless equal after
	// em's normalisation.
	for _, l := range strings.Split(got, "\n") {
		if f := strings.Split(l, ","); strings.HasPrefix(l, "gold,published,") && (f[6] != "100.00" || f[7] != "100.00" || f[9] != "100.00") {
			t.Errorf("published row %q: the gold itself should score 100 on multi-hop, temporal, single-hop", l)
		}
		if strings.HasPrefix(l, "gold,audited,") {
			f := strings.Split(l, ",")
			if f[2] != "1527" || f[3] >= "99" {
				t.Errorf("audited row %q: want n=1527 and below 100", l)
			}
		}
	}
	ex, err := run("--run", out, "--answer-key", "published", "--judge", "em", "--exclude-image-questions", "--format", "csv")
	if err != nil || !strings.Contains(ex, "gold,published,1503,") {
		t.Errorf("--exclude-image-questions: %v\n%s", err, ex)
	}
}
