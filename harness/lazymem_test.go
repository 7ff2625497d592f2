package harness

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/synth"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
)

// synthLME writes a synthetic LongMemEval-S-shaped file of n questions.
func synthLME(t *testing.T, n int) string {
	t.Helper()
	shape, ok := synth.Lookup("longmemeval-s")
	if !ok {
		t.Fatal("no longmemeval-s synth shape")
	}
	var buf bytes.Buffer
	if err := synth.Write(&buf, shape, n, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lme-s.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The plan bounds the haystacks in memory by their size, not by
// --concurrency, sets a memory limit while the run lasts and puts the
// previous one back; resident datasets get no bound and no limit.
func TestMemoryPlanBoundsHaystacksAndRestoresTheLimit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") == "off" {
		t.Skip("GOMEMLIMIT or GOGC=off set: the plan leaves the user's setting alone")
	}
	ds, err := datasets.Load("longmemeval", synthLME(t, 5), datasets.LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	var largest int64
	for _, c := range ds.Conversations {
		largest = max(largest, c.LazyBytes())
	}
	defer func(b int64) { haystackBudget = b }(haystackBudget)
	haystackBudget = 2 * footprintPerByte * largest // room for two
	var log strings.Builder
	m := planMemory(ds.Conversations, 4, &log)
	if cap(m.slots) != 2 || !strings.Contains(log.String(), "at most 2 questions' haystacks") {
		t.Errorf("slots %d, log %q; want 2 slots and a line saying so", cap(m.slots), log.String())
	}
	if lim := debug.SetMemoryLimit(-1); lim == math.MaxInt64 || lim < 2*footprintPerByte*largest {
		t.Errorf("memory limit during the run = %d, want one above the slots' footprint", lim)
	}
	m.stop()
	if lim := debug.SetMemoryLimit(-1); lim != math.MaxInt64 {
		t.Errorf("memory limit after the run = %d, want the previous (none)", lim)
	}

	sample, err := datasets.Load("sample", "", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log.Reset()
	m = planMemory(sample.Conversations, 4, &log)
	defer m.stop()
	if m.slots != nil || log.Len() > 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("resident dataset: slots %v, log %q, limit %d; want no bound and no limit", m.slots, log.String(), debug.SetMemoryLimit(-1))
	}
}

// A run whose haystack slots are fewer than --concurrency holds no more
// haystacks than that at once and writes the same answers and judgments
// as a run with a slot per question.
func TestLongMemEvalRunWithOneHaystackSlotEqualsUnbounded(t *testing.T) {
	path := synthLME(t, 6)
	run := func(budget int64) (map[string]string, int32) {
		defer func(b int64) { haystackBudget = b }(haystackBudget)
		haystackBudget = budget
		cfg := membench.Config{System: "turns-cosine", Dataset: "longmemeval", Data: path, ResultsDir: t.TempDir(), CacheDir: t.TempDir(),
			Quiet: true, Concurrency: 4, Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		pl, err := plan.Resolve(cfg, plan.Env{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(pl, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		as, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(p.Dir, runlog.AnswersFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			got[a.QuestionID] = a.Prediction + "|" + a.ContextSHA256
		}
		js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(p.Dir, runlog.JudgmentsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			got[j.QuestionID+"/"+j.Judge] = strings.TrimSpace(strings.Join([]string{j.Reason, j.Raw}, " ")) + "|" + strings.Repeat("+", int(100*j.Score))
		}
		return got, p.mem.peak.Load()
	}
	bounded, peak := run(1) // below one item's footprint: one slot
	if peak != 1 {
		t.Errorf("one haystack slot: %d haystacks in memory at once", peak)
	}
	free, freePeak := run(512 << 20)
	if freePeak < 2 {
		t.Logf("unbounded run held at most %d haystacks at once (timing)", freePeak)
	}
	if len(bounded) != len(free) || len(free) < 6*2 {
		t.Fatalf("%d records bounded, %d unbounded", len(bounded), len(free))
	}
	for k, v := range free {
		if bounded[k] != v {
			t.Errorf("%s: bounded %q, unbounded %q", k, bounded[k], v)
		}
	}
}
