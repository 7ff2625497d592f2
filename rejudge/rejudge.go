package rejudge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/runlog"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
)

// Options override the run's own settings for the new judges.
type Options struct {
	JudgeModel  string // model spec for "llm" judges; "" = the run's judge model
	JudgePrompt string // "" = the run's
	CacheDir    string // "" = the default cache under Home
	Home        string // MEMBENCH_HOME, from the command line; "" = ~/.cache/membench
	NoCache     bool
	Concurrency int
	// Replay serves the judges' model calls from a bundle's replies (no
	// network, no key); a call it lacks is an error naming the judge, the
	// question and the request key unless ReplayFallback sends it to the
	// judge's backend (Replay.Fresh counts those).
	Replay         *llm.Tape
	ReplayFallback bool
	// Prices is a prices file laid over the default table for the
	// summary's dollars ("": the one the run's summary was priced with, as
	// prices.Again picks it).
	Prices string
	// AnswerKey judges the answers against another answer key (published,
	// audited or a file; "" = the run's own): the judges' verdicts are
	// logged as NAME+KEY (membench.KeyedJudge), the answers reused.
	AnswerKey string
}

// JudgeCount is what Run did for one judge.
type JudgeCount struct {
	Judge   string `json:"judge"`
	Added   int    `json:"added"`
	Skipped int    `json:"skipped"` // already judged
	Failed  int    `json:"failed"`  // no usable reply after retries (failures.jsonl)
}

// Run scores every answer of the run in dir with each judge spec
// (judge.Parse syntax), skipping pairs already judged, metering each
// judgment's calls into costs.jsonl just before it, and rewrites the summary. Model judges go through the
// run's LLM cache, so a rerun costs nothing; the replies of calls that
// reached a backend are recorded in replies.jsonl, so the run bundles with
// its new judges. Each new verdict goes into the run's transcripts too
// (when the run has them), with the judge's request and raw reply.
func Run(ctx context.Context, dir string, specs []string, o Options) ([]JudgeCount, *runlog.Summary, error) {
	if len(specs) == 0 {
		return nil, nil, fmt.Errorf("--judge: name at least one judge to add (e.g. --judge lexical)")
	}
	lock, err := lockRun(dir)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	r, err := openRun(dir)
	if err != nil {
		return nil, nil, err
	}
	// The new calls are priced with the run's earlier ones; a bad prices
	// file is refused before any call.
	table, err := prices.Again(o.Prices, prices.Earlier(dir))
	if err != nil {
		return nil, nil, err
	}
	cfg := r.manifest.Config
	cfg.JudgeModel, cfg.JudgePrompt = cmp.Or(o.JudgeModel, cfg.JudgeModel), cmp.Or(o.JudgePrompt, cfg.JudgePrompt)
	cfg.CacheDir, cfg.NoCache, cfg.Concurrency = o.CacheDir, o.NoCache, o.Concurrency
	cfg.Host = membench.Host{Home: o.Home}
	cfg = cfg.WithDefaults()
	cfg.CacheDir = cmp.Or(cfg.CacheDir, cfg.Host.CacheDir())
	defSpec := cmp.Or(cfg.JudgeModel, cfg.Model)
	// Judging needs no embedder and no other role's model.
	rec, recOut, err := bundle.OpenRecorder(dir)
	if err != nil {
		return nil, nil, err
	}
	defer recOut.Close()
	b := &judging.Builder{DefaultSpec: defSpec, PromptFile: cfg.JudgePrompt, CacheDir: cfg.CacheDir, NoCache: cfg.NoCache,
		Deps: func(d llm.BuildDeps) llm.BuildDeps {
			d.Tape = rec
			if o.Replay != nil {
				d.Replay, d.ReplayFallback = o.Replay, o.ReplayFallback
			}
			return d
		}}
	defer b.Close()
	var uk *underKey
	if o.AnswerKey != "" {
		if uk, err = openKey(o.AnswerKey, o.Home, r.manifest, r.answers); err != nil {
			return nil, nil, err
		}
	}
	judges, err := b.Judges(specs, nil) // validates names before any work
	if err != nil {
		return nil, nil, err
	}
	for _, in := range judging.Describe(judges) {
		if err := r.manifest.JudgeSet().NameReuse(in); err != nil {
			return nil, nil, err
		}
	}
	judges = uk.wrap(judges)
	counts := make([]JudgeCount, len(judges))
	for i, j := range judges {
		counts[i].Judge = j.Name()
	}
	out, err := runlog.OpenAppender(filepath.Join(dir, runlog.JudgmentsFile))
	if err != nil {
		return nil, nil, err
	}
	defer out.Close()
	costs, err := runlog.OpenAppender(filepath.Join(dir, runlog.CostsFile))
	if err != nil {
		return nil, nil, err
	}
	defer costs.Close()
	tx, err := openTranscripts(dir)
	if err != nil {
		return nil, nil, err
	}
	if tx != nil {
		defer tx.Close()
	}

	byConv := map[string][]runlog.AnswerRecord{}
	var convs []string
	for _, a := range r.answers {
		if byConv[a.ConversationID] == nil {
			convs = append(convs, a.ConversationID)
		}
		byConv[a.ConversationID] = append(byConv[a.ConversationID], a)
	}
	added := make([]atomic.Int64, len(judges))
	fails := &failureLog{dir: dir}
	defer fails.close()
	todo := map[string]bool{} // questions this pass sets out to judge
	for _, conv := range convs {
		meter := llm.NewMeter()
		mjudges, err := b.Judges(specs, meter)
		if err != nil {
			return nil, nil, err
		}
		mjudges = uk.wrap(mjudges)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cfg.Concurrency)
		for _, a := range byConv[conv] {
			q, keep := uk.question(a)
			if !keep {
				continue // left out by the answer key
			}
			for i, j := range mjudges {
				if judging.Done(r.judged[a.QuestionID], j) {
					counts[i].Skipped++
					continue
				}
				todo[a.QuestionID] = true
				g.Go(func() error {
					// The judgment's calls are written just before it, as a
					// run writes them: a kill -9 loses none a verdict rests on.
					// Each repeat (repeats=N) meters and writes its own.
					var err error
					for rep := range judge.Repeats(j) {
						name := judging.RepeatName(j.Name(), rep)
						if r.judged[a.QuestionID][name] {
							continue
						}
						pm := llm.NewMeter()
						err = judging.Once(llm.WithCallMeter(gctx, pm), j, rep, judge.Sample{Question: q, Prediction: a.Prediction}, a.System, func(jm runlog.Judgment, v judge.Verdict, secs float64) error {
							if t := pm.Snapshot(); len(t) > 0 {
								c := runlog.CostRecord{ConversationID: a.ConversationID, System: r.manifest.Config.System, QuestionID: a.QuestionID,
									Part: "judge:" + name, At: time.Now().UTC(), Tallies: t}
								if err := costs.Write(c); err != nil {
									return err
								}
							}
							if err := out.Write(jm); err != nil {
								return err
							}
							if tx == nil {
								return nil
							}
							return tx.Write(runlog.JudgePart(a.QuestionID, a.ConversationID, a.System, judging.TranscriptCall(jm, v, secs)))
						})
						if err != nil {
							break
						}
					}
					if err != nil && gctx.Err() == nil && errors.Is(err, llm.ErrBadReply) {
						// The retry layer already retried this reply: the
						// pass goes on without the pair, and a rerun asks
						// again (the pair has no judgment).
						return fails.add(runlog.Failure{QuestionID: a.QuestionID, ConversationID: a.ConversationID, System: a.System,
							Stage: "judge", Judge: j.Name(), Reason: err.Error(), At: time.Now().UTC()})
					}
					if err != nil {
						if strings.Contains(err.Error(), "question "+a.QuestionID+":") {
							return err
						}
						return fmt.Errorf("question %s: %w", a.QuestionID, err)
					}
					added[i].Add(1)
					return nil
				})
			}
		}
		err = g.Wait()
		// Calls no judgment metered (none, as judges are wired now) are
		// recorded whatever happened, as the harness does.
		if t := meter.Snapshot(); len(t) > 0 {
			if cerr := costs.Write(runlog.CostRecord{ConversationID: conv, System: r.manifest.Config.System, At: time.Now().UTC(), Tallies: t}); cerr != nil && err == nil {
				err = cerr
			}
		}
		if err != nil {
			return counts, nil, err
		}
	}
	for i := range counts {
		counts[i].Added = int(added[i].Load())
		for _, f := range fails.failed {
			if f.Judge == counts[i].Judge {
				counts[i].Failed++
			}
		}
	}
	// The verdicts obtained are kept and summarised, as a run with failed
	// questions does; the error lists the rest (exit 1, no table).
	sum, err := finish(dir, uk.describe(judging.Describe(judges)), table)
	if err == nil {
		err = fails.err(len(todo))
	}
	return counts, sum, err
}

// failureLog appends the pairs a pass gave up on to failures.jsonl,
// opened at the first one (a clean pass leaves the run as it was).
type failureLog struct {
	dir    string
	mu     sync.Mutex
	out    *runlog.Appender
	failed []runlog.Failure
}

func (l *failureLog) add(f runlog.Failure) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.out == nil {
		out, err := runlog.OpenAppender(filepath.Join(l.dir, runlog.FailuresFile))
		if err != nil {
			return err
		}
		l.out = out
	}
	if err := l.out.Write(f); err != nil {
		return err
	}
	l.failed = append(l.failed, f)
	return nil
}

func (l *failureLog) close() {
	if l.out != nil {
		l.out.Close()
	}
}

// err is the pass's QuestionsFailedError, or nil when nothing failed.
func (l *failureLog) err(total int) error {
	if len(l.failed) == 0 {
		return nil
	}
	fs := slices.SortedFunc(slices.Values(l.failed), func(a, b runlog.Failure) int {
		return cmp.Or(cmp.Compare(a.QuestionID, b.QuestionID), cmp.Compare(a.Judge, b.Judge))
	})
	return &runlog.QuestionsFailedError{Dir: l.dir, Total: total, Failed: fs}
}
