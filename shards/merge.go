// Package shards joins the runs of one command's shards (--shard I/N)
// into one run.
package shards

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// mergeBad is a refusal caused by the shards given: bad input.
func mergeBad(format string, a ...any) error {
	return badinput.Errorf("bad shards: %s", fmt.Sprintf(format, a...))
}

// Merge assembles shard runs (--shard I/N) into one run in out. It checks
// that the shards share one configuration (apart from --shard), one
// dataset file, embedder, prompts and judges, that they are the N parts of
// one question set each exactly once, and that each shard finished (every
// question answered and judged by every judge). The merged run's records
// are the shards' records, so its answers, judgments and summary equal a
// single-machine run's; costs add up across shards. The merged summary's
// dollars price the joined costs with pricesFile over the default table
// ("": the prices file the shards' summaries name, as prices.Again says).
func Merge(dirs []string, out, pricesFile string) (*runlog.Summary, error) {
	if len(dirs) == 0 {
		return nil, mergeBad("give the shard runs with --run DIR (one per shard)")
	}
	if _, err := os.Stat(filepath.Join(out, runlog.ManifestFile)); err == nil {
		return nil, mergeBad("--out %s already holds a run; choose a new directory", out)
	}
	ms := make([]runlog.Manifest, len(dirs))
	for i, d := range dirs {
		m, err := runlog.LoadManifest(d)
		if err != nil {
			return nil, mergeBad("%v", err)
		}
		if m.Shard == nil {
			return nil, mergeBad("%s is not a shard run (its manifest has no shard); run each part with --shard I/N", d)
		}
		ms[i] = m
	}
	first := ms[0]
	n := first.Shard.Count
	if len(dirs) != n {
		return nil, mergeBad("the shards are parts of %d but %d runs were given; pass every shard once", n, len(dirs))
	}
	byIndex := slices.Repeat([]int{-1}, n)
	whole := func(m runlog.Manifest) string {
		c := m.Config
		c.Shard = ""
		return c.Hash()
	}
	for i, m := range ms {
		d := dirs[i]
		switch {
		case m.Shard.Count != n:
			return nil, mergeBad("%s is shard %d/%d but %s is a part of %d", d, m.Shard.Index, m.Shard.Count, dirs[0], n)
		case byIndex[m.Shard.Index] >= 0:
			return nil, mergeBad("%s and %s are both shard %d/%d; pass each shard once", dirs[byIndex[m.Shard.Index]], d, m.Shard.Index, n)
		case whole(m) != whole(first):
			return nil, mergeBad("%s was run with a different configuration from %s (beyond --shard); merge only shards of one command", d, dirs[0])
		case m.DatasetSHA256 != first.DatasetSHA256:
			return nil, mergeBad("%s read a different dataset file (sha256 %.12s) from %s (%.12s)", d, m.DatasetSHA256, dirs[0], first.DatasetSHA256)
		case m.Shard.SetSHA256 != first.Shard.SetSHA256 || m.Shard.SetQuestions != first.Shard.SetQuestions:
			return nil, mergeBad("%s cut a different question set from %s; merge only shards of one command", d, dirs[0])
		case m.Embedder != first.Embedder:
			return nil, mergeBad("%s embedded with %s, %s with %s", d, m.Embedder, dirs[0], first.Embedder)
		case m.Membench != first.Membench:
			return nil, mergeBad("%s was made by membench %s, %s by %s; run every shard with one build", d, m.Membench, dirs[0], first.Membench)
		case !maps.Equal(m.Prompts, first.Prompts):
			return nil, mergeBad("%s used different prompts from %s", d, dirs[0])
		case !slices.Equal(m.Judges, first.Judges):
			return nil, mergeBad("%s has judges %v, %s has %v", d, m.Judges, dirs[0], first.Judges)
		}
		byIndex[m.Shard.Index] = i
	}

	// Every shard finished, and together they cover the set exactly once.
	owner := map[string]string{}
	total := 0
	for _, i := range byIndex {
		d := dirs[i]
		ans, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(d, runlog.AnswersFile))
		if err != nil {
			return nil, err
		}
		js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(d, runlog.JudgmentsFile))
		if err != nil {
			return nil, err
		}
		judged := map[[2]string]bool{} // (question, judge)
		for _, j := range js {
			judged[[2]string{j.QuestionID, j.Judge}] = true
		}
		ans = runlog.LastBy(ans, func(a runlog.AnswerRecord) string { return a.QuestionID })
		if len(ans) != ms[i].Questions {
			return nil, mergeBad("%s answered %d of its %d questions; finish it first (rerun the same command to resume)", d, len(ans), ms[i].Questions)
		}
		for _, a := range ans {
			if o, dup := owner[a.QuestionID]; dup {
				return nil, mergeBad("question %s is in both %s and %s", a.QuestionID, o, d)
			}
			owner[a.QuestionID] = d
			for _, j := range ms[i].Judges {
				if !judged[[2]string{a.QuestionID, j}] {
					return nil, mergeBad("%s: question %s has no %s judgment; finish the shard first", d, a.QuestionID, j)
				}
			}
		}
		total += len(ans)
	}
	if total != first.Shard.SetQuestions {
		return nil, mergeBad("the shards answer %d questions but the set has %d", total, first.Shard.SetQuestions)
	}

	earlier := make([]*runlog.Dollars, len(dirs))
	for i, d := range dirs {
		earlier[i] = prices.Earlier(d)
	}
	table, err := prices.Again(pricesFile, earlier...) // a bad --prices file: refused before any work
	if err != nil {
		return nil, err
	}

	lock, err := runlog.LockDir(out)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(out, runlog.ManifestFile)); err == nil {
		return nil, mergeBad("--out %s already holds a run; choose a new directory", out)
	}
	// Transcripts are gzip members one after another, so they join by
	// concatenation too.
	for _, name := range []string{runlog.BuildFile, runlog.RetrievalsFile, runlog.AnswersFile, runlog.JudgmentsFile, runlog.CostsFile, runlog.MemoryFile, runlog.TranscriptsFile} {
		var buf bytes.Buffer
		for _, i := range byIndex {
			b, err := os.ReadFile(filepath.Join(dirs[i], name))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			buf.Write(b)
			if name != runlog.TranscriptsFile && len(b) > 0 && b[len(b)-1] != '\n' {
				buf.WriteByte('\n')
			}
		}
		if err := runlog.WriteFileAtomic(filepath.Join(out, name), buf.Bytes()); err != nil {
			return nil, err
		}
	}
	m := first
	m.Schema = runlog.ManifestSchema
	m.Config.Shard = ""
	m.ConfigHash = m.Config.Hash()
	m.RunID = filepath.Base(out)
	m.Conversations = first.Shard.SetConversations
	m.Questions = first.Shard.SetQuestions
	// The merged run is the whole set: comparable with a single-machine run.
	m.QuestionSetSHA256 = first.Shard.SetSHA256
	m.Shard = nil
	m.MergedFrom = nil
	m.CacheDamaged = nil // each shard's damaged cache entries, summed below
	for _, i := range byIndex {
		mi := ms[i]
		m.MergedFrom = append(m.MergedFrom, mi.RunID)
		m.CacheDamaged = m.CacheDamaged.Add(mi.CacheDamaged)
		if mi.Started.Before(m.Started) {
			m.Started = mi.Started
		}
		if mi.Finished.After(m.Finished) {
			m.Finished = mi.Finished
		}
		for k, v := range mi.Models {
			if m.Models == nil {
				m.Models = map[string]membench.ModelID{}
			}
			if _, ok := m.Models[k]; !ok {
				m.Models[k] = v
			}
		}
	}
	if err := runlog.WriteJSON(filepath.Join(out, runlog.ManifestFile), m); err != nil {
		return nil, err
	}
	r, err := runlog.Load(out)
	if err != nil {
		return nil, err
	}
	sum := summary.FromLines(r.Manifest, r.Lines)
	ts := sum.ContextTokens
	m.RenderedTokens = &ts
	st := r.Lines.Status(m)
	m.Status = &st
	if err := runlog.WriteJSON(filepath.Join(out, runlog.ManifestFile), m); err != nil {
		return nil, err
	}
	if d, err := prices.Dollars(out, table); err == nil {
		sum.Dollars = d
	}
	return sum, summary.Write(out, sum)
}
