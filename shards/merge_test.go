package shards_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/shards"
)

// Shards that are not the parts of one command are refused before
// anything is written.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	shard := func(t *testing.T, i, n int, mod func(*runlog.Manifest)) string {
		d := t.TempDir()
		m := runlog.Manifest{RunID: filepath.Base(d), Config: membench.Config{System: "turns-cosine", Dataset: "locomo", Shard: "x"},
			DatasetSHA256: "abc", Embedder: "hashed", Judges: []string{"f1"},
			Shard: &runlog.ShardInfo{Index: i, Count: n, SetQuestions: 4, SetSHA256: "set"}}
		if mod != nil {
			mod(&m)
		}
		if err := runlog.WriteJSON(filepath.Join(d, runlog.ManifestFile), m); err != nil {
			t.Fatal(err)
		}
		return d
	}
	// A shard whose question i was answered, and judged by f1 when judged.
	answered := func(t *testing.T, i int, judged bool) string {
		d := shard(t, i, 2, func(m *runlog.Manifest) { m.Questions = 1 })
		qid := fmt.Sprintf("q%d", i)
		recs := map[string]any{runlog.AnswersFile: runlog.AnswerRecord{QuestionID: qid}}
		if judged {
			recs[runlog.JudgmentsFile] = runlog.Judgment{QuestionID: qid, Judge: "f1"}
		}
		for name, rec := range recs {
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, name), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	cases := []struct {
		name string
		dirs func(t *testing.T) []string
		want string
	}{
		{"unjudged", func(t *testing.T) []string { return []string{answered(t, 0, true), answered(t, 1, false)} }, "question q1 has no f1 judgment"},
		{"config", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, nil), shard(t, 1, 2, func(m *runlog.Manifest) { m.Config.K = 3 })}
		}, "different configuration"},
		{"same index", func(t *testing.T) []string { return []string{shard(t, 0, 2, nil), shard(t, 0, 2, nil)} }, "both shard 0/2"},
		{"dataset", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, nil), shard(t, 1, 2, func(m *runlog.Manifest) { m.DatasetSHA256 = "def" })}
		}, "different dataset file"},
		{"not a shard", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, func(m *runlog.Manifest) { m.Shard = nil })}
		}, "not a shard run"},
		{"unfinished", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, func(m *runlog.Manifest) { m.Questions = 2 }), shard(t, 1, 2, func(m *runlog.Manifest) { m.Questions = 2 })}
		}, "answered 0 of its 2"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "merged")
		_, err := shards.Merge(c.dirs(t), out, "")
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a bad-shards error mentioning %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: refused merge created %s", c.name, out)
		}
	}
}

// The merged run's damaged cache entries are the shards' summed, in the
// manifest and in the summary (each shard counted only its own reads).
func TestMergeSumsDamagedCacheEntries(t *testing.T) {
	damage := []*runlog.CacheDamage{{LLM: 2, Embeddings: 1}, nil, {Embeddings: 3, Tokens: 4}}
	var dirs []string
	for i, d := range damage {
		dir := t.TempDir()
		qid := fmt.Sprintf("q%d", i)
		m := runlog.Manifest{RunID: filepath.Base(dir), Config: membench.Config{System: "turns-cosine", Dataset: "longmemeval", Shard: fmt.Sprintf("%d/3", i)},
			DatasetSHA256: "abc", Embedder: "hashed", Judges: []string{"f1"}, Questions: 1, Conversations: 1,
			Shard: &runlog.ShardInfo{Index: i, Count: 3, SetQuestions: 3, SetConversations: 3, SetSHA256: "set"}, CacheDamaged: d}
		if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m); err != nil {
			t.Fatal(err)
		}
		lines := map[string]any{
			runlog.AnswersFile:   runlog.AnswerRecord{QuestionID: qid, ConversationID: qid, System: "turns-cosine", Question: "?", Gold: "a", Prediction: "a"},
			runlog.JudgmentsFile: runlog.Judgment{QuestionID: qid, System: "turns-cosine", Judge: "f1", Correct: true, Score: 1},
		}
		for name, rec := range lines {
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	out := filepath.Join(t.TempDir(), "merged")
	sum, err := shards.Merge(dirs, out, "")
	if err != nil {
		t.Fatal(err)
	}
	want := runlog.CacheDamage{LLM: 2, Embeddings: 4, Tokens: 4}
	m, err := runlog.LoadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.CacheDamaged == nil || *m.CacheDamaged != want {
		t.Errorf("merged manifest cache_damaged = %+v, want %+v", m.CacheDamaged, want)
	}
	if sum.CacheDamaged == nil || *sum.CacheDamaged != want {
		t.Errorf("merged summary cache_damaged = %+v, want %+v", sum.CacheDamaged, want)
	}
	var onDisk runlog.Summary
	b, err := os.ReadFile(filepath.Join(out, runlog.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	if onDisk.CacheDamaged == nil || *onDisk.CacheDamaged != want {
		t.Errorf("summary.json cache_damaged = %+v, want %+v", onDisk.CacheDamaged, want)
	}
	// The merged run is priced like a run (offline here: $0, not unknown).
	if d := onDisk.Dollars; d == nil || d.Total.USD == nil || *d.Total.USD != 0 || !d.Total.Offline {
		t.Errorf("summary.json dollars = %+v, want $0 offline", d)
	}
}
