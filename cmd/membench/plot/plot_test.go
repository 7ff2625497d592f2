package plot

import (
	"context"
	"github.com/membench/membench/runlog/runlogtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
)

// writeRun: a turns-cosine run at budget k where right of 4 answers are correct.
func writeRun(t *testing.T, dir string, k, right int) {
	t.Helper()
	runlogtest.New("turns-cosine", k, "llm").Scored(4, right, 4).Write(t, dir)
}

func TestPlotWithOptions(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "runs", "k1"), 1, 1)
	writeRun(t, filepath.Join(root, "runs", "k3"), 3, 3)
	var out strings.Builder
	o := &Options{Figure: "k", Runs: []string{filepath.Join(root, "runs")}, OutPath: filepath.Join(root, "fig"), Title: "mine", Out: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "2 runs → ") {
		t.Errorf("output %q", out.String())
	}
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		if st, err := os.Stat(o.OutPath + ext); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", ext, err)
		}
	}
	svg, _ := os.ReadFile(o.OutPath + ".svg")
	if !strings.Contains(string(svg), "mine") {
		t.Error("the title option did not reach the chart")
	}
	for _, bad := range []*Options{{Figure: "k"}, {Figure: "pie", Runs: o.Runs}, {Figure: "k", Runs: []string{filepath.Join(root, "none-*")}}} {
		bad.Out = &out
		if err := Run(context.Background(), bad); clierr.Code(err) != 2 {
			t.Errorf("%+v: err %v, want exit 2", bad, err)
		}
	}
}
