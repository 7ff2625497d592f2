// Package judging is the one judging loop: run, score, judge and grade all
// build their judges here and log verdicts through Sample, so a judge
// behaves the same whichever command calls it.
package judging

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/names"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// Builder makes judges from --judge-spec values. Model judges use the default
// judge model unless their spec names another; a paid judge model gets the
// LLM cache even when every other role is offline.
type Builder struct {
	// DefaultModel is the run's judge model, metered by meter when non-nil.
	DefaultModel func(meter *llm.Meter) llm.Model
	// DefaultSpec builds the default judge model from a model spec when
	// DefaultModel is nil (re-judging a finished run).
	DefaultSpec string
	PromptFile  string // --judge-prompt
	CacheDir    string
	NoCache     bool
	// Cache is shared with the run's other roles; nil opens one on demand.
	Cache *llm.Cache
	// Deps, when set, adjusts how a judge's own model is wired (the run's
	// reply tape, recording or replaying).
	Deps func(llm.BuildDeps) llm.BuildDeps

	mu     sync.Mutex
	opened *llm.Cache // the cache this builder opened itself
	log    io.Writer  // for notes about the cache it opens
}

// Log sends notes about a cache file the builder opens (a damaged one set
// aside) to w.
func (b *Builder) Log(w io.Writer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = w
	if b.opened != nil {
		b.opened.Log(w)
	}
}

// Judges builds judges from specs, rejecting two with one name.
func (b *Builder) Judges(specs []string, meter *llm.Meter) ([]judge.Judge, error) {
	var def llm.Model
	switch {
	case b.DefaultModel != nil:
		def = b.DefaultModel(meter)
	case b.DefaultSpec != "":
		m, err := b.model(b.DefaultSpec, meter)
		if err != nil {
			return nil, fmt.Errorf("judge model %q: %w", b.DefaultSpec, err)
		}
		def = m
	}
	var out []judge.Judge
	seen := map[string]bool{}
	for _, s := range specs {
		j, err := judge.Parse(s, judge.Deps{
			DefaultModel: def,
			PromptFile:   b.PromptFile,
			NewModel:     func(spec string) (llm.Model, error) { return b.model(spec, meter) },
		})
		if err != nil {
			return nil, err
		}
		// The name becomes table rows, file names and --judge values.
		if err := names.Check("--judge-spec: judge name", j.Name()); err != nil {
			return nil, err
		}
		if seen[j.Name()] {
			return nil, fmt.Errorf("--judge-spec %q: a judge named %s is already configured; give it another name (name=...)", s, j.Name())
		}
		seen[j.Name()] = true
		out = append(out, j)
	}
	return out, nil
}

func (b *Builder) model(spec string, meter *llm.Meter) (llm.Model, error) {
	ps, err := llm.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	ps.NoCache = ps.NoCache || b.NoCache
	b.mu.Lock()
	defer b.mu.Unlock()
	if ps.Backend != "offline" && !ps.NoCache && b.Cache == nil {
		// This judge's calls cost money, so they are cached even when
		// every other role is offline.
		c, err := llm.NewCache(filepath.Join(b.CacheDir, "llm.sqlite"))
		if err != nil {
			return nil, fmt.Errorf("llm cache: %w", err)
		}
		if b.log != nil {
			c.Log(b.log)
		}
		b.Cache, b.opened = c, c
	}
	deps := llm.BuildDeps{Cache: b.Cache, Role: "judge"}
	if b.Deps != nil {
		deps = b.Deps(deps)
	}
	m, err := llm.Build(ps, deps)
	if err != nil {
		return nil, err
	}
	if meter != nil {
		m = llm.WithMeter(m, meter, "judge")
	}
	return m, nil
}

// Damaged counts damaged entries in a cache the builder opened itself.
func (b *Builder) Damaged() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opened == nil {
		return 0
	}
	return b.opened.Damaged()
}

// Close closes a cache the builder opened itself.
func (b *Builder) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opened != nil {
		b.opened.Close()
		b.opened = nil
	}
}

// Sample runs every judge whose name is not in have on s and writes one
// record per judge, with the run's system and the question's id. A judge
// with repeats=N judges the sample N times, one record per repeat
// (Judgment.Repeat); have holds RepeatName keys of the ones already done.
func Sample(ctx context.Context, judges []judge.Judge, s judge.Sample, system string, have map[string]bool, write func(runlog.Judgment) error) error {
	for _, j := range judges {
		for r := range judge.Repeats(j) {
			if have[RepeatName(j.Name(), r)] {
				continue
			}
			if err := Once(ctx, j, r, s, system, func(rec runlog.Judgment, _ judge.Verdict, _ float64) error { return write(rec) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// Once runs repeat r of judge j on s and hands write the record, the full
// verdict (with a model judge's request) and the judge's wall time, for
// the run's transcripts.
func Once(ctx context.Context, j judge.Judge, r int, s judge.Sample, system string, write func(j runlog.Judgment, v judge.Verdict, seconds float64) error) error {
	start := time.Now()
	s.Repeat = r
	v, err := j.Judge(ctx, s)
	if err != nil {
		if strings.HasPrefix(err.Error(), "judge "+j.Name()+",") {
			return err // a model judge's error names the judge and question already
		}
		return fmt.Errorf("judge %s: %w", j.Name(), err)
	}
	rec := runlog.Judgment{QuestionID: s.Question.ID, System: system, Judge: j.Name(), Correct: v.Correct, Score: v.Score, Reason: v.Reason, Raw: v.Raw, Invalid: v.Invalid, Repeat: r}
	return write(rec, v, time.Since(start).Seconds())
}

// RepeatName keys a judge's repeat r in a set of verdicts done: the judge's
// name for the first (so sets built before repeats existed still read),
// NAME#r for the others.
func RepeatName(name string, r int) string {
	if r == 0 {
		return name
	}
	return name + "#" + strconv.Itoa(r)
}

// Judged reads the verdicts done from a run's judgment lines: question ->
// RepeatName -> whether it holds a verdict. The last line per (question,
// judge, repeat) decides; an invalid verdict (no verdict in the model's
// reply) is false, so a resumed run or a re-judge asks again.
func Judged(js []runlog.Judgment) map[string]map[string]bool {
	done := map[string]map[string]bool{}
	for _, j := range runlog.LastBy(js, runlog.Judgment.Key) {
		if done[j.QuestionID] == nil {
			done[j.QuestionID] = map[string]bool{}
		}
		done[j.QuestionID][RepeatName(j.Judge, j.Repeat)] = !j.Invalid
	}
	return done
}

// Done reports whether have holds every repeat of j.
func Done(have map[string]bool, j judge.Judge) bool {
	for r := range judge.Repeats(j) {
		if !have[RepeatName(j.Name(), r)] {
			return false
		}
	}
	return true
}

// Names lists the judges' names in order.
func Names(js []judge.Judge) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.Name()
	}
	return out
}

// Describe lists the judges' manifest entries in order.
func Describe(js []judge.Judge) []membench.JudgeInfo {
	out := make([]membench.JudgeInfo, len(js))
	for i, j := range js {
		out[i] = judge.Describe(j)
	}
	return out
}

// TranscriptCall is a judge's work on a question as a transcript holds
// it: the logged judgment j with the model's request and reply from v.
func TranscriptCall(j runlog.Judgment, v judge.Verdict, seconds float64) runlog.JudgeCall {
	return runlog.JudgeCall{Judge: j.Judge, Correct: j.Correct, Score: j.Score, Reason: j.Reason, Repeat: j.Repeat,
		Call: runlog.Call{Messages: v.Request, Raw: v.Raw, Usage: v.Usage, Cached: v.Cached, Seconds: seconds}}
}
