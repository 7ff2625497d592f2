package answerkey_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/audit"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
)

const fcDir = "../../../shared/datasets/locomo-audit/fc-baseline"

// The three full-context runs of the audit data under both keys, from
// their recorded verdicts (three gpt-4o-mini judgments per answer). Under
// the published key the mean over the judgment runs must be the file's
// own mean_accuracy. Under the audited key a recorded verdict stands for
// every question whose gold the key keeps; the ambiguous ones are left
// out; a question whose answer the key replaces was judged against the
// wrong gold, so its verdict under the key is unknown and the accuracy is
// given as the range from all of them wrong to all of them right.
func TestFCBaselineUnderBothKeys(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fcDir, "*.json"))
	if len(files) == 0 {
		t.Skip("fc-baseline files absent (../shared/datasets/locomo-audit/fc-baseline)")
	}
	k, err := answerkey.Read("../../../shared/datasets/locomo-audit/errors.json")
	if err != nil {
		t.Skip("shipped key absent")
	}
	ds, err := datasets.Load("locomo", "../../../shared/datasets/locomo10.json", datasets.LoadOptions{})
	if err != nil {
		t.Skip("shipped LoCoMo absent")
	}
	cs, err := k.Match(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Metadata struct {
				Mean float64 `json:"mean_accuracy"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		w, err := audit.ParseWrong(b, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Resolve(ds); err != nil {
			t.Fatal(err)
		}
		var pubMean, loMean, hiMean, keptMean float64
		var n, changed int
		for _, run := range w.Runs {
			acc, known, replacedAcc := 0, 0, 0
			n, changed = 0, 0
			for _, a := range w.Answers {
				ok := a.Recorded[run]
				if ok {
					acc++
				}
				c, flagged := cs[a.Question.ID]
				switch {
				case flagged && c.Excluded:
					continue
				case flagged && c.ChangesAnswer():
					changed++
					if ok {
						replacedAcc++
					}
				case ok:
					known++
				}
				n++
			}
			pubMean += float64(acc) / float64(len(w.Answers))
			loMean += float64(known) / float64(n)
			hiMean += float64(known+changed) / float64(n)
			keptMean += float64(replacedAcc) / float64(changed)
		}
		r := float64(len(w.Runs))
		pubMean, loMean, hiMean, keptMean = pubMean/r, loMean/r, hiMean/r, keptMean/r
		if math.Abs(pubMean-meta.Metadata.Mean) > 1e-12 {
			t.Errorf("%s: published-key mean %.6f, file says %.6f", filepath.Base(f), pubMean, meta.Metadata.Mean)
		}
		if len(w.Answers) != 1540 || n != 1527 || changed != 86 {
			t.Errorf("%s: %d answers, %d under the audited key, %d replaced; want 1540, 1527, 86", filepath.Base(f), len(w.Answers), n, changed)
		}
		t.Logf("%s: published key %.2f%% (n=1540); audited key %.2f%%–%.2f%% (n=%d; %d replaced golds unjudged; the judge had accepted %.1f%% of those answers against the published wrong gold)",
			filepath.Base(f), 100*pubMean, 100*loMean, 100*hiMean, n, changed, 100*keptMean)
	}
}
