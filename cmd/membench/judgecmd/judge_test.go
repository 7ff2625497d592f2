package judgecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/rejudge"
	_ "github.com/membench/membench/systems/all"
)

func TestJudgeWithOptions(t *testing.T) {
	dir := t.TempDir()
	cfg := membench.Config{System: "turns-cosine", Dataset: "sample", Limit: 3, Judges: []string{"f1"}, Concurrency: 1,
		ResultsDir: filepath.Join(dir, "results"), CacheDir: filepath.Join(dir, "cache"), Quiet: true,
		Host: membench.Host{Home: dir, Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	run := harnesstest.Dir(t, cfg)
	var out bytes.Buffer
	o := &Options{Run: run, Judges: []string{"lexical", "f1"}, JSON: true, Out: &out,
		Rejudge: rejudge.Options{Home: dir, NoCache: true, Concurrency: 2}}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Judges []struct {
			Judge          string
			Added, Skipped int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	got := map[string][2]int{}
	for _, c := range res.Judges {
		got[c.Judge] = [2]int{c.Added, c.Skipped}
	}
	if got["lexical"] != [2]int{3, 0} || got["f1"] != [2]int{0, 3} {
		t.Errorf("counts %v, want lexical added 3, f1 already there for 3\n%s", got, out.String())
	}
	for _, bad := range []*Options{
		{Judges: []string{"lexical"}},
		{Run: run},
		{Run: run, Judges: []string{"lexical"}, LLM: "nope"},
		{Run: filepath.Join(dir, "missing"), Judges: []string{"lexical"}},
	} {
		bad.Out = io.Discard
		if err := Run(context.Background(), bad); clierr.Code(err) != 2 {
			t.Errorf("%+v: err %v, want exit 2", bad, err)
		}
	}
}
