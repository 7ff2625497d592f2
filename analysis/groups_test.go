package analysis_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// Runs are grouped by dataset file, question set, primary judge and
// answer key, groups with the most runs first; within a group the labels
// say only what differs (not the dataset or judge they share).
func TestGroupsPartitionComparableRuns(t *testing.T) {
	mk := func(dataset, sha string, questions int, qset, judge, system string, k int) runlog.Manifest {
		m := runlogtest.OfflineManifest()
		m.Dataset, m.DatasetSHA256, m.Questions, m.QuestionSetSHA256 = dataset, sha, questions, qset
		m.Judges, m.Primary = []string{judge, "f1"}, judge
		m.Config.System, m.Config.K = system, k
		return m
	}
	ms := []runlog.Manifest{
		mk("locomo", "aaaa1111", 199, "q1", "lexical", "turns-cosine", 3),   // 0: locomo conv-26
		mk("sample", "bbbb2222", 19, "s1", "lexical", "turns-cosine", 3),    // 1: sample
		mk("sample", "bbbb2222", 19, "s1", "lexical", "turns-cosine", 5),    // 2: sample
		mk("sample", "bbbb2222", 19, "s1", "lexical", "fullcontext", 0),     // 3: sample
		mk("locomo", "aaaa1111", 199, "q1", "lexical", "fullcontext", 0),    // 4: locomo conv-26
		mk("sample", "bbbb2222", 19, "s1", "f1", "turns-cosine", 3),         // 5: another primary judge
		mk("locomo", "aaaa1111", 199, "q2", "lexical", "turns-cosine", 3),   // 6: as many questions, another set
		mk("locomo", "cccc3333", 199, "q1", "lexical", "turns-cosine", 3),   // 7: another LoCoMo file
		mk("locomo", "aaaa1111", 199, "q1", "lexical", "turns-cosine", 10),  // 8: locomo conv-26
		mk("sample", "bbbb2222", 19, "s1", "lexical", "turns-cosine", 10),   // 9: sample
		mk("locomo", "aaaa1111", 199, "q1", "lexical", "turns-cosine", 100), // 10: audited key, below
	}
	ms[10].AnswerKey = &runlog.AnswerKeyInfo{Key: "audited"}
	ids := make([]string, len(ms))
	for i := range ids {
		ids[i] = fmt.Sprintf("run-%02d", i)
	}
	gs := analysis.Groups(ms, ids)
	type got struct {
		name   string
		runs   []int
		labels []string
	}
	var have []got
	for _, g := range gs {
		have = append(have, got{g.Name + ": " + g.Size(), g.Runs, g.Labels})
	}
	want := []got{
		{"sample bbbb2222 · 19 questions · judge lexical: 4 runs", []int{1, 2, 3, 9}, []string{"turns-cosine k=3", "turns-cosine k=5", "fullcontext", "turns-cosine k=10"}},
		{"locomo aaaa1111 · 199 questions (set q1) · judge lexical · answer key published: 3 runs", []int{0, 4, 8}, []string{"turns-cosine k=3", "fullcontext", "turns-cosine k=10"}},
		{"locomo aaaa1111 · 199 questions (set q1) · judge lexical · answer key audited: 1 run", []int{10}, []string{"turns-cosine k=100"}},
		{"locomo aaaa1111 · 199 questions (set q2) · judge lexical · answer key published: 1 run", []int{6}, []string{"turns-cosine k=3"}},
		{"locomo cccc3333 · 199 questions · judge lexical: 1 run", []int{7}, []string{"turns-cosine k=3"}},
		{"sample bbbb2222 · 19 questions · judge f1: 1 run", []int{5}, []string{"turns-cosine k=3"}},
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("groups:\n%+v\nwant\n%+v", have, want)
	}
}

// Refusing many runs names each differing value once, after the first
// run that has it and how many more share it, and the differences past
// the second by their field: one short line, not a list of every run.
func TestMixedErrorIsShort(t *testing.T) {
	var sides []analysis.Side
	for i := 0; i < 40; i++ {
		m := runlogtest.OfflineManifest()
		m.Config.System = "turns-cosine"
		m.SystemOptions = map[string]string{"k": fmt.Sprint(i%8 + 1), "order": "time"}
		switch i % 3 {
		case 1:
			m.Dataset, m.DatasetSHA256, m.QuestionSetSHA256 = "sample", "bbbb", "ssss"
		case 2:
			m.Dataset, m.DatasetSHA256, m.QuestionSetSHA256 = "longmemeval", "cccc", "llll"
		}
		if i == 9 {
			m.SystemOptions["order"] = "score"
		}
		if i == 39 {
			m.Embedder = "tfidf-hash-512"
		}
		sides = append(sides, analysis.Side{Label: fmt.Sprintf("run-%02d", i), Manifest: &m})
	}
	_, err := analysis.CheckComparable(sides, false, "lexical")
	var me *analysis.MixedError
	if !errors.As(err, &me) {
		t.Fatalf("want a refusal, got %v", err)
	}
	msg := err.Error()
	t.Logf("%d characters: %s", len(msg), msg)
	for _, want := range []string{
		"dataset differs (run-00 and 13 more: locomo sha256:aaaa; run-01 and 12 more: sample sha256:bbbb; run-02 and 12 more: longmemeval sha256:cccc)",
		"question set differs (run-00 and 13 more:",
		"also embedder, turns-cosine options;",
		"--allow-mixed",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	if len(msg) > 600 || strings.Contains(msg, "run-20") {
		t.Errorf("message of %d characters lists runs one by one", len(msg))
	}
	// The options difference alone: the option most runs share, and the
	// run that strays from it.
	opts := differences([]analysis.Side{sides[0], sides[3], sides[9]})
	me = &analysis.MixedError{Diffs: opts}
	if len(opts) != 1 || !strings.Contains(me.Brief(), "turns-cosine runs differ in k and order") || !strings.Contains(me.Brief(), "run-00 and 1 more: order=time; run-09: order=score") {
		t.Errorf("options difference: %q", me.Brief())
	}
}
