package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// runState is what a finished run must agree on with an uninterrupted
// one: answers, verdicts, memory dump, build lines and the summary's
// scores, calls and tokens (seconds differ between any two runs).
type runState struct {
	Answers   map[string]string
	Verdicts  map[string]string
	Memory    []string
	Builds    map[string]string
	Scores    string
	Costs     map[string]string
	Questions int
}

func loadState(t *testing.T, dir string) runState {
	t.Helper()
	r, err := analysis.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = r
	st := runState{Answers: map[string]string{}, Verdicts: map[string]string{}, Builds: map[string]string{}, Costs: map[string]string{}}
	for _, a := range jsonLines[runlog.AnswerRecord](t, filepath.Join(dir, runlog.AnswersFile)) {
		st.Answers[a.QuestionID] = a.Prediction
	}
	for _, j := range jsonLines[runlog.Judgment](t, filepath.Join(dir, runlog.JudgmentsFile)) {
		st.Verdicts[j.QuestionID+" "+j.Judge] = fmt.Sprintf("%v %.9f", j.Correct, j.Score)
	}
	for _, b := range jsonLines[runlog.BuildRecord](t, filepath.Join(dir, runlog.BuildFile)) {
		st.Builds[b.ConversationID] = fmt.Sprintf("calls %d in %d out %d requests %d", b.Calls, b.InputTokens, b.OutputTokens, b.Stats.Requests)
	}
	mem, _ := os.ReadFile(filepath.Join(dir, runlog.MemoryFile))
	st.Memory = strings.Split(strings.TrimSpace(string(mem)), "\n")
	sort.Strings(st.Memory)
	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Questions = sum.Questions
	st.Scores = fmt.Sprintf("%+v %+v", sum.Overall, sum.Groups)
	st.Costs["build"] = fmt.Sprintf("calls %d in %d out %d", sum.Build.Calls, sum.Build.InputTokens, sum.Build.OutputTokens)
	for k, c := range sum.Stages {
		st.Costs[k] = fmt.Sprintf("calls %d cached %d in %d out %d", c.Calls, c.CachedCalls, c.InputTokens, c.OutputTokens)
	}
	return st
}

// diff names the fields two states differ in.
func (a runState) diff(b runState) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}

// kill -9 at seeded random moments of an offline structmem run on a
// synthetic LoCoMo-shaped file (3 conversations, 60 questions), then a
// resume: each resumed run equals an uninterrupted one, costs included.
// Offline answering is fast next to building, so a moment is drawn (seed
// 10) relative to what the run has written: a random point of a random
// conversation's build, or just after a random answer line; the stage
// actually hit is read from what the killed run left on disk.
func TestKill9AtRandomMomentsThenResumeEqualsUninterrupted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary a dozen times")
	}
	work := t.TempDir()
	data := filepath.Join(work, "synthetic-locomo.json")
	if out, code := membench(t, nil, "datasets", "synth", "--shape", "locomo", "--questions", "60", "--seed", "3", "--out", data); code != 0 {
		t.Fatal(out)
	}
	home := filepath.Join(work, "home") // one cache, as an operator's machine has
	args := func(results string) []string {
		return []string{"run", "--quiet", "--results", results, "--dataset", "locomo", "--data", data, "--system", "structmem", "--concurrency", "1"}
	}
	env := []string{"MEMBENCH_HOME=" + home}
	onlyDir := func(results string) string {
		runs, _ := filepath.Glob(filepath.Join(results, "*"))
		if len(runs) != 1 {
			t.Fatalf("run dirs under %s: %v", results, runs)
		}
		return runs[0]
	}
	ref := filepath.Join(work, "reference")
	t0 := time.Now()
	if out, code := membench(t, env, args(ref)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, out)
	}
	wall := time.Since(t0)
	want := loadState(t, onlyDir(ref))
	if want.Questions != 60 || len(want.Builds) != 3 {
		t.Fatalf("reference run: %d questions, %d builds", want.Questions, len(want.Builds))
	}
	questionsOf := map[string]int{}
	for _, a := range jsonLines[runlog.AnswerRecord](t, filepath.Join(onlyDir(ref), runlog.AnswersFile)) {
		questionsOf[a.ConversationID]++
	}

	rng := rand.New(rand.NewPCG(10, 0))
	lines := func(results, name string) int {
		m, _ := filepath.Glob(filepath.Join(results, "*", name))
		if len(m) != 1 {
			return 0
		}
		b, _ := os.ReadFile(m[0])
		return bytes.Count(b, []byte("\n"))
	}
	// partialLines counts the cost lines builds write while they run.
	partialLines := func(results string) int {
		m, _ := filepath.Glob(filepath.Join(results, "*", runlog.CostsFile))
		if len(m) != 1 {
			return 0
		}
		b, _ := os.ReadFile(m[0])
		return bytes.Count(b, []byte(`"partial":true`))
	}
	const trials = 6
	stages := map[string]int{}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-5s  %-34s  %-32s  %-10s  %-5s  %s\n", "trial", "kill when (seeded draw)", "stage killed (on disk)", "resumed ok", "equal", "redone calls")
	for i := 0; i < trials; i++ {
		results := filepath.Join(work, fmt.Sprintf("trial-%d", i))
		cmd := exec.Command(bin, args(results)...)
		cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		// Even trials aim at a build: after conversation j's answers, the
		// next build is under way once it writes a partial cost line
		// (about every 50 ms); the kill waits for a random 1 to 3 of them,
		// so it lands inside the build however fast the machine is. Odd
		// trials aim at answering (just after the n-th answer line). What
		// was hit is read from disk.
		var when string
		var ready func() bool
		var jitter time.Duration
		if i%2 == 0 {
			j := 1 + rng.IntN(2) // after a conversation's answers the next build starts at once
			k := 1 + rng.IntN(3)
			when = fmt.Sprintf("%d builds done + %d partial lines", j, k)
			base := -1
			ready = func() bool {
				if base < 0 {
					if lines(results, runlog.BuildFile) < j || lines(results, runlog.AnswersFile) < 20*j {
						return false
					}
					base = partialLines(results)
				}
				return partialLines(results) >= base+k
			}
		} else {
			n := 1 + rng.IntN(59)
			jitter = time.Duration(rng.Float64() * float64(5*time.Millisecond))
			when = fmt.Sprintf("%d answers + %v", n, jitter.Round(time.Microsecond))
			ready = func() bool { return lines(results, runlog.AnswersFile) >= n }
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var werr error
		wait := true
	poll:
		for deadline := time.Now().Add(2 * time.Minute); !ready() && time.Now().Before(deadline); {
			select {
			case werr = <-exited: // finished before the moment came
				wait = false
				break poll
			case <-time.After(2 * time.Millisecond):
			}
		}
		if wait {
			time.Sleep(jitter)
			cmd.Process.Kill() // SIGKILL: no deferred write runs
			werr = <-exited
		}
		stage := "finished"
		if werr != nil {
			stage = "start"
			if runs, _ := filepath.Glob(filepath.Join(results, "*")); len(runs) == 1 {
				builds := jsonLines[runlog.BuildRecord](t, filepath.Join(runs[0], runlog.BuildFile))
				answered := len(jsonLines[runlog.AnswerRecord](t, filepath.Join(runs[0], runlog.AnswersFile)))
				ofBuilt := 0
				for _, b := range builds {
					ofBuilt += questionsOf[b.ConversationID]
				}
				stage = "build"
				if answered < ofBuilt || (len(builds) == 3 && answered == 60) {
					stage = "answer"
				}
				stage = fmt.Sprintf("%s (%d/3 built, %d answered)", stage, len(builds), answered)
			}
		}
		stages[strings.Fields(stage)[0]]++
		rout, code := membench(t, env, args(results)...)
		ok := code == 0
		equal, redone := "no", "-"
		if ok {
			dir := onlyDir(results)
			if d := loadState(t, dir).diff(want); len(d) == 0 {
				equal = "yes"
			} else {
				t.Errorf("trial %d (killed in %s): resumed run differs from the uninterrupted one in %v", i, stage, d)
			}
			if sum, err := summary.Compute(dir); err == nil {
				redone = fmt.Sprint(sum.RedoneCalls().Calls)
			}
		} else {
			t.Errorf("trial %d: resume exited %d\n%s", i, code, rout)
		}
		fmt.Fprintf(&table, "%-5d  %-34s  %-32s  %-10v  %-5s  %s\n", i+1, when, stage, ok, equal, redone)
	}
	t.Logf("kill -9 trials (offline structmem, synthetic LoCoMo shape, 3 conversations x 20 questions, --concurrency 1; uninterrupted run %.1f s):%s", wall.Seconds(), table.String())
	if stages["build"] == 0 || stages["answer"] == 0 {
		t.Errorf("the kills did not land in both stages: %v", stages)
	}
}
