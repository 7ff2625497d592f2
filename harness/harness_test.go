package harness_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"

	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/summary"
	_ "github.com/membench/membench/systems/all"
)

func TestOfflineRunOnSampleWritesEveryArtifact(t *testing.T) {
	for _, system := range []string{"turns-cosine", "fullcontext"} {
		t.Run(system, func(t *testing.T) {
			cfg := harnesstest.Config(t, system)
			sum, err := harness.Run(context.Background(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			dir := harnesstest.Dir(t, cfg)
			for _, f := range []string{runlog.ManifestFile, runlog.BuildFile, runlog.RetrievalsFile, runlog.AnswersFile, runlog.JudgmentsFile, runlog.CostsFile, runlog.SummaryJSON, runlog.SummaryMD} {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s missing or empty: %v", f, err)
				}
			}
			answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(answers) != sum.Questions || len(answers) < 15 {
				t.Fatalf("answers %d, summary questions %d, want every sample question (>= 15)", len(answers), sum.Questions)
			}
			js, err := runlogtest.Judgments(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(answers) * len(plan.DefaultJudges("offline")); len(js) != want {
				t.Fatalf("judgments %d, want questions × judges = %d", len(js), want)
			}
			for _, j := range js {
				if j.QuestionID == "" || j.System != system || j.Judge == "" {
					t.Fatalf("judgment lacks its keys: %+v", j)
				}
			}
			builds, err := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(dir, runlog.BuildFile))
			if err != nil || len(builds) != 1 {
				t.Fatalf("build.jsonl: %v, %d lines", err, len(builds))
			}
			embedded := 0
			for _, st := range builds[0].Stages {
				if st.Label == "embedding" {
					embedded += st.Calls
				}
			}
			if system == "turns-cosine" && embedded != builds[0].Turns {
				t.Errorf("turns-cosine build embedded %d texts, want one per turn (%d)", embedded, builds[0].Turns)
			}
			if len(sum.Groups) < 5 {
				t.Errorf("want a row per category (5), got %d", len(sum.Groups))
			}
			var b strings.Builder
			summary.Print(&b, sum)
			if !strings.Contains(b.String(), "OFFLINE") || !strings.Contains(b.String(), "build:") {
				t.Errorf("the table must say it is offline and give the cost line:\n%s", b.String())
			}
		})
	}
}

func TestChangedConfigRefusesToMixIntoARun(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.RunID = "fixed"
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	cfg.K = 3
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "different configuration") {
		t.Fatalf("want a refusal naming the different configuration, got %v", err)
	}
}

func TestBadInputIsNamed(t *testing.T) {
	cfg := harnesstest.Config(t, "no-such-system")
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "turns-cosine") {
		t.Fatalf("unknown system error should list known systems, got %v", err)
	}
	cfg = harnesstest.Config(t, "turns-cosine")
	cfg.Judges = []string{"nonsense-judge"}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err == nil {
		t.Fatal("unknown judge accepted")
	}
	cfg = harnesstest.Config(t, "turns-cosine")
	cfg.Model = "openai:gpt-4o-mini"
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing key should name OPENAI_API_KEY, got %v", err)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The answer records carry the question's abstention flag (LongMemEval
// "_abs" here), so readers never re-derive it from the id.
func TestAnswersCarryTheAbstentionFlag(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.Dataset, cfg.Data = "longmemeval", "../datasets/testdata/longmemeval_mini.json"
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(harnesstest.Dir(t, cfg), runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, a := range answers {
		if want := strings.HasSuffix(a.QuestionID, "_abs"); a.Abstention != want || a.Abstains() != want {
			t.Errorf("%s: abstention %v, want %v", a.QuestionID, a.Abstention, want)
		}
		if a.Abstention {
			flagged++
		}
	}
	if flagged == 0 {
		t.Fatal("no abstention question in the mini LongMemEval file")
	}
	found := false
	for _, g := range sum.Groups {
		if g.Name == "abstention" {
			found = g.N == flagged
		}
	}
	if !found || sum.Overall.N != len(answers)-flagged {
		t.Errorf("summary groups %+v, overall n %d: want an abstention group of %d scored apart", sum.Groups, sum.Overall.N, flagged)
	}
}
