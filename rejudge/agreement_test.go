package rejudge

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/membench/membench/analysis"
)

// Human grades from a blind session feed agreement's per-system judge–human
// table: every answer of two systems' runs is graded correct here, so a
// judge's agreement with the human on a system is the share of that
// system's answers the judge marked correct, counted from the run's own
// judgments.
func TestHumanGradesGiveAgreementPerSystem(t *testing.T) {
	root := t.TempDir()
	a, b := sampleRun(t, root, "turns-cosine"), sampleRun(t, root, "fullcontext")
	n := 0
	for _, d := range []string{a, b} {
		n += len(judgments(t, d, "lexical"))
	}
	res, err := Human([]string{a, b}, strings.NewReader(strings.Repeat("c\n", n)), io.Discard, HumanOptions{Seed: 7})
	if err != nil || res.Graded != n {
		t.Fatalf("graded %+v, %v; want %d", res, err, n)
	}
	var srcs []*analysis.Source
	for _, d := range []string{a, b} {
		s, err := analysis.LoadSource(d)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, s)
	}
	ag, err := analysis.Agreement(srcs, analysis.AgreementOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	total, correct := 0, 0
	for sys, d := range map[string]string{"turns-cosine": a, "fullcontext": b} {
		js := judgments(t, d, "lexical")
		c := 0
		for _, j := range js {
			if j.Correct {
				c++
			}
		}
		want[sys] = 100 * float64(c) / float64(len(js))
		total += len(js)
		correct += c
	}
	want[analysis.AllSystems] = 100 * float64(correct) / float64(total)
	got := map[string]float64{}
	for _, h := range ag.Human {
		if h.Judge == "lexical" {
			got[h.System] = h.Agreement
		}
	}
	for sys, w := range want {
		if math.Abs(got[sys]-w) > 1e-9 {
			t.Errorf("%s: lexical–human agreement %v, want %v (all %v)", sys, got[sys], w, ag.Human)
		}
	}
}
