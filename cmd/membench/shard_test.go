package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// N processes, each told its part by JOB_COMPLETION_INDEX as a Kubernetes
// Indexed Job would, merged, must equal one process running everything:
// the same answers, judgments and summary (wall-clock seconds aside), with
// costs summed. LoCoMo shards by conversation, LongMemEval by question;
// both run on synthetic files (the layout is what is tested).
func TestShardsMergeToTheSingleRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shape, dataset string
		questions, n   int
	}{
		{"locomo", "locomo", 50, 2},            // 3 conversations over 2 shards
		{"longmemeval-s", "longmemeval", 7, 3}, // 7 questions over 3 shards
	}
	for _, c := range cases {
		t.Run(c.shape, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "synth.json")
			if out, code := membench(t, nil, "datasets", "synth", "--shape", c.shape, "--questions", fmt.Sprint(c.questions), "--seed", "3", "--out", data); code != 0 {
				t.Fatal(out)
			}
			args := []string{"run", "--quiet", "--dataset", c.dataset, "--data", data, "--system", "turns-cosine"}
			single := filepath.Join(dir, "single")
			if out, code := membench(t, nil, append(args, "--results", dir, "--run-id", "single")...); code != 0 {
				t.Fatal(out)
			}
			var wg sync.WaitGroup
			outs := make([]string, c.n)
			codes := make([]int, c.n)
			for i := 0; i < c.n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[i], codes[i] = membench(t, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)},
						append(args, "--results", dir, "--run-id", fmt.Sprintf("shard-%d", i), "--shard", fmt.Sprintf("auto/%d", c.n))...)
				}()
			}
			wg.Wait()
			merge := []string{"merge", "--out", filepath.Join(dir, "merged")}
			for i := 0; i < c.n; i++ {
				if codes[i] != 0 {
					t.Fatalf("shard %d: %s", i, outs[i])
				}
				m, err := runlog.LoadManifest(filepath.Join(dir, fmt.Sprintf("shard-%d", i)))
				if err != nil || m.Shard == nil || m.Shard.Index != i || m.Questions == 0 || m.Questions == c.questions {
					t.Fatalf("shard %d manifest: %+v %v", i, m.Shard, err)
				}
				merge = append(merge, "--run", filepath.Join(dir, fmt.Sprintf("shard-%d", i)))
			}
			// An incomplete set is refused with exit 2 and nothing written.
			if out, code := membench(t, nil, merge[:len(merge)-2]...); code != 2 || !strings.Contains(out, "pass every shard") {
				t.Fatalf("merge without the last shard: exit %d %s", code, out)
			}
			if out, code := membench(t, nil, merge...); code != 0 {
				t.Fatal(out)
			}
			merged := filepath.Join(dir, "merged")
			sameRecords[runlog.AnswerRecord](t, single, merged, runlog.AnswersFile, func(a runlog.AnswerRecord) string { return a.QuestionID })
			sameRecords[runlog.Judgment](t, single, merged, runlog.JudgmentsFile, func(j runlog.Judgment) string { return j.QuestionID + "/" + j.Judge })
			ts, err1 := runlogtest.Transcripts(single)
			tm, err2 := runlogtest.Transcripts(merged)
			if err1 != nil || err2 != nil || len(ts) != c.questions || len(tm) != len(ts) {
				t.Errorf("transcripts: %d single, %d merged (%v %v)", len(ts), len(tm), err1, err2)
			} else {
				ctx := map[string]string{}
				for _, x := range ts {
					ctx[x.QuestionID] = x.Context
				}
				for _, x := range tm {
					if ctx[x.QuestionID] != x.Context {
						t.Errorf("transcript %s: merged context differs", x.QuestionID)
					}
				}
			}
			a, b := readSummary(t, single), readSummary(t, merged)
			if a.Questions != c.questions || !reflect.DeepEqual(a, b) {
				t.Errorf("summaries differ:\nsingle %+v\nmerged %+v", a, b)
			}
			ms, _ := runlog.LoadManifest(single)
			mm, _ := runlog.LoadManifest(merged)
			if ms.ConfigHash != mm.ConfigHash || mm.Questions != ms.Questions || mm.Conversations != ms.Conversations || len(mm.MergedFrom) != c.n {
				t.Errorf("merged manifest: hash %s vs %s, %d/%d questions, %d/%d conversations, from %v", mm.ConfigHash, ms.ConfigHash, mm.Questions, ms.Questions, mm.Conversations, ms.Conversations, mm.MergedFrom)
			}
			// The merged run must pass the comparability guard against the single run.
			if mm.QuestionSetSHA256 != ms.QuestionSetSHA256 || mm.Status == nil || mm.Status.State != runlog.StateComplete {
				t.Errorf("merged manifest: question set %.12s vs single %.12s, status %+v", mm.QuestionSetSHA256, ms.QuestionSetSHA256, mm.Status)
			}
		})
	}
}

func sameRecords[T any](t *testing.T, a, b, file string, key func(T) string) {
	t.Helper()
	load := func(dir string) []T {
		xs, err := runlog.ReadJSONL[T](filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		xs = runlog.LastBy(xs, key)
		sort.Slice(xs, func(i, j int) bool { return key(xs[i]) < key(xs[j]) })
		return xs
	}
	x, y := load(a), load(b)
	if len(x) == 0 || !reflect.DeepEqual(x, y) {
		t.Errorf("%s: %d records in the single run, %d merged, or they differ", file, len(x), len(y))
	}
}

// readSummary drops what differs between any two runs: the run id and
// wall-clock seconds.
func readSummary(t *testing.T, dir string) runlog.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runlog.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	var s runlog.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s.RunID = ""
	s.Build.Seconds = 0
	for k, v := range s.Stages {
		v.Seconds = 0
		s.Stages[k] = v
	}
	return s
}
