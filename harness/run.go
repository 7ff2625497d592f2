package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench/answer"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/internal/stamp"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/progress"
	"github.com/membench/membench/summary"
	"github.com/membench/membench/systems"
)

// Run resolves cfg (plan.Resolve, with the host cfg carries) and runs it:
// the one call for callers that hold a config, not a plan.
func Run(ctx context.Context, cfg membench.Config, log io.Writer) (*runlog.Summary, error) {
	p, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		return nil, err
	}
	return RunPlan(ctx, p, log)
}

// RunPlan replays the plan's dataset into its system and writes the run's
// artifacts. Everything that can be checked before work starts was
// checked by plan.Resolve or is checked here, and reported as bad input;
// then finished questions are skipped (resume).
func RunPlan(ctx context.Context, pl *plan.Plan, log io.Writer) (*runlog.Summary, error) {
	p, err := Prepare(pl, nil, log)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Execute(ctx)
}

// Prepared is a run ready to execute: its plan, with models, embedder and
// caches open and the run folder locked.
type Prepared struct {
	*plan.Plan
	Res      *Resources
	Judges   []judge.Judge
	log      io.Writer
	Manifest runlog.Manifest // as written when the run started, and again when it ends
	bar      *progress.Bar   // the run's progress; it reads the meters in use (Execute)

	work *pool    // the run's question workers (Execute)
	mem  *memPlan // haystack slots and memory limit of a lazily loaded dataset (Execute)

	buildMu sync.Mutex
	builds  map[string]membench.BuildStats // conversation -> its latest build's stats
	lock    *runlog.DirLock

	failMu sync.Mutex
	failed []runlog.Failure // questions given up on in this attempt
}

// Prepare opens models, embedder and caches for the plan, and writes (or
// checks) the manifest; the paid replies come from play (nil: none).
func Prepare(pl *plan.Plan, play *Playback, log io.Writer) (*Prepared, error) {
	// An unstamped build asks git for its version (the manifest records
	// it); that runs while the models open.
	go stamp.Of()
	res, err := openResources(pl.Config, pl.Models, &pl.Embedder, play)
	if err != nil {
		return nil, err
	}
	res.Log(log)
	if pl.Embedder.Note != "" {
		res.EmbedderNote = pl.Embedder.Note // why the automatic choice fell back
	}
	if pl.System.NoEmbeddings {
		res.EmbedderNote = "" // a warning about vectors no one computes
	}
	p := &Prepared{Plan: pl, Res: res, log: log}
	if err := p.open(); err != nil {
		p.Close() // the lock is nil-safe: it may not be taken yet
		return nil, err
	}
	return p, nil
}

// open builds the judges, checks every input before the run folder
// exists, then locks the folder and writes the manifest.
func (p *Prepared) open() (err error) {
	if p.Judges, err = p.Res.Judges(p.Config.Judges, nil); err != nil {
		return err
	}
	if err := checkSystem(p.System, p.Res, p.Config); err != nil {
		return err
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return fmt.Errorf("results dir %s: %w", p.Dir, err)
	}
	// One writer per run directory: a second run of the same command
	// would write every record twice.
	if p.lock, err = runlog.LockDir(p.Dir); err != nil {
		return err
	}
	return p.writeManifest()
}

// Close releases caches and the run directory's lock.
func (p *Prepared) Close() {
	p.Res.Close()
	p.lock.Unlock()
}

func (p *Prepared) writeManifest() error {
	path := filepath.Join(p.Dir, runlog.ManifestFile)
	var old runlog.Manifest
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &old); err != nil {
			return badinput.Errorf("%s: %v (delete the run directory or pick another --run-id)", path, err)
		}
		// The data file's content is in the config hash; say so by name
		// before the config as a whole.
		if old.DatasetSHA256 != "" && old.DatasetSHA256 != p.Data.SHA256 {
			return badinput.Errorf("--data %s: the file changed since this run started (sha256 %.12s, now %.12s); restore it, or choose a new --run-id", p.Config.Data, old.DatasetSHA256, p.Data.SHA256)
		}
		if old.ConfigHash != p.Config.Hash() {
			return badinput.Errorf("%s was made with a different configuration; resume only with the same flags, or choose a new --run-id", path)
		}
		// The embedder is part of the config (and of a derived run id);
		// a run resumed under its --run-id must not change it either.
		if old.Embedder != "" && old.Embedder != p.Res.EmbedderName {
			return badinput.Errorf("%s: this run embedded with %s, now %s would be used; pass --embedder %s to match, or choose a new --run-id", path, old.Embedder, p.Res.EmbedderName, old.Embedder)
		}
		// Defaults are not in the config hash, so a newer membench whose
		// system defaults changed (StructMem's utterance clock) would resume
		// an older run with other settings: the resolved options say so.
		if len(old.SystemOptions) > 0 {
			if k, was, is, differ := firstDifference(old.SystemOptions, p.systemOptions()); differ {
				return badinput.Errorf("%s: this run's system ran with %s=%q, this membench resolves it to %q; finish it with the membench that started it, or choose a new --run-id", path, k, was, is)
			}
		}
		now := p.promptHashes()
		for name, was := range old.Prompts {
			is := now[name]
			fromFile := strings.Contains(was, " (") || strings.Contains(is, " (")
			if fromFile && is != "" && firstField(was) != firstField(is) {
				return badinput.Errorf("prompt %s: the template file changed since this run started (was %s, now %s); restore it, or choose a new --run-id", name, was, is)
			}
		}
	}
	qs := p.Data.Questions()
	nq := len(qs)
	m := p.StartManifest()
	m.Conversations = len(p.Data.Conversations)
	m.Questions = nq
	m.Prompts = p.promptHashes()
	m.Embedder = p.Res.EmbedderName
	m.EmbedderNote = p.Res.EmbedderNote
	m.Models = p.Res.ModelIDs()
	m.Judges = judging.Names(p.Judges)
	m.JudgeSpecs = judging.Describe(p.Judges)
	m.Offline = p.Res.Offline()
	m.Started = time.Now().UTC()
	m.MaxBuildFailures = p.Config.MaxBuildFailures
	// What ran, beyond the config's strings: options after the system's
	// defaults, the embedder's weights, the questions after
	// --conversations/--limit.
	m.SystemOptions = p.systemOptions()
	m.FollowedOptions = p.System.Followed(p.Config.Options)
	m.EmbedderSHA256 = p.Res.EmbedderSHA256
	m.QuestionSetSHA256 = plan.QuestionSetHash(qs)
	m.TurnStep = p.Config.TurnStep.String()
	m.Status = &runlog.Status{State: runlog.StateIncomplete, Questions: nq}
	m.Shard = p.Shard
	m.AnswerKey = p.Scoring.Key
	m.ImageQuestionsExcluded = p.Scoring.ImageExcluded // counted over the whole set, before --shard
	m.PaperPrompts = p.Paper
	m.OfflineParts = m.OfflineList()
	// A judge with its own real model makes the run not fully offline.
	m.Offline = m.Offline && m.Backends() == "offline"
	if !old.Started.IsZero() {
		m.Started = old.Started
		m.CacheDamaged = old.CacheDamaged // this attempt's are added at the end
		// Judges added later (`membench judge`, `grade`) stay listed.
		ran := slices.Clone(m.Judges)
		for _, j := range old.Judges {
			if !slices.Contains(ran, j) {
				m.Judges = append(m.Judges, j)
			}
		}
		for _, in := range old.JudgeSpecs {
			if !slices.Contains(ran, in.Name) {
				m.JudgeSpecs = append(m.JudgeSpecs, in)
			}
		}
	}
	m.Primary = m.JudgeSet().PrimaryByRule()
	p.Manifest = m
	return runlog.WriteJSON(path, m)
}

// SaveManifest writes p.Manifest over the run's manifest.json.
func (p *Prepared) SaveManifest() error {
	return runlog.WriteJSON(filepath.Join(p.Dir, runlog.ManifestFile), p.Manifest)
}

// promptHashes is the manifest's prompts: every template of the run's set
// and each LLM judge's own prompt file.
func (p *Prepared) promptHashes() map[string]string {
	h := p.Prompts.Hashes()
	for _, j := range p.Judges {
		if pj, ok := j.(interface{ PromptHashes() map[string]string }); ok {
			maps.Copy(h, pj.PromptHashes())
		}
	}
	return h
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// systemOptions are the options the system runs with: its defaults
// overlaid by --opt, with the values that follow from others
// (systems.Spec.Resolved), and --k as k when given.
func (p *Prepared) systemOptions() membench.Options {
	o := p.System.Resolved(p.Config.Options)
	if p.Config.K > 0 {
		o["k"] = strconv.Itoa(p.Config.K)
	}
	return o
}

// Execute runs every unfinished conversation and question, then summarises.
func (p *Prepared) Execute(ctx context.Context) (*runlog.Summary, error) {
	done, err := p.loadDone()
	if err != nil {
		return nil, err
	}
	rec, err := runlog.OpenRecorder(p.Dir, p.Config.System)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	total, toBuild := 0, 0
	for _, c := range p.Data.Conversations {
		toAnswer, toJudge := done.need(c, p.Judges)
		total += len(toAnswer) + len(toJudge)
		if len(toAnswer) > 0 || !done.built[c.ID] { // runConversation builds it
			toBuild++
		}
	}
	// A rerun's replies are mostly in the LLM cache: read it whole, in the
	// background while the memories build, when that is cheaper than a
	// query per call (an answer and a judgment per judge per question).
	p.Res.PreloadCache(total * (1 + len(p.Judges)))
	// Opening the transcripts scans the file for a torn tail; a run with
	// nothing left to answer writes none.
	if !p.Config.NoTranscripts && total > 0 {
		if err := rec.StartTranscripts(); err != nil {
			return nil, err
		}
	}
	if total == 0 {
		fmt.Fprintf(p.log, "run %s: every question is already answered and judged; summarising\n", p.ID)
	} else if len(done.answered) > 0 {
		fmt.Fprintf(p.log, "run %s: resuming, %d questions left\n", p.ID, total)
	}
	bar := progress.New(p.log, progress.Work{Conversations: toBuild, Questions: total}, p.Config.Quiet, p.Config.Host.CI, progress.Priced(p.Prices, p.Manifest))
	defer bar.Finish()
	p.bar = bar
	// Conversations open at once are bounded by N too (their memories are
	// what a run holds); their questions share the one pool of N.
	p.work = newPool(p.Config.Concurrency)
	p.mem = planMemory(p.Data.Conversations, p.Config.Concurrency, p.log)
	defer p.mem.stop()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.Config.Concurrency)
	for _, conv := range p.Data.Conversations {
		g.Go(func() error {
			err := p.runConversation(gctx, conv, done, rec, bar)
			if err != nil {
				return fmt.Errorf("conversation %s: %w", conv.ID, err)
			}
			return nil
		})
	}
	runErr := g.Wait()
	if runErr != nil && ctx.Err() != nil {
		runErr = fmt.Errorf("interrupted (%w); finished questions are saved, rerun the same command to resume", ctx.Err())
	}
	if runErr == nil {
		runErr = p.failures(total)
	}
	bar.Summarize()
	rec.Close()
	// One read of the records for the summary, the status and the dollars;
	// the manifest is the one this attempt wrote.
	lines, err := runlog.ReadLines(p.Dir)
	if err != nil {
		return nil, errors.Join(runErr, err)
	}
	sum, st := summary.FromLines(p.Manifest, lines), lines.Status(p.Manifest)
	p.Manifest.CacheDamaged = p.Manifest.CacheDamaged.Add(p.Res.Damaged())
	sum.CacheDamaged = p.Manifest.CacheDamaged
	p.Manifest.Finished = time.Now().UTC()
	p.Manifest.Status = &st
	ts := sum.ContextTokens
	p.Manifest.RenderedTokens = &ts
	kept, redone := runlog.EffectiveCosts(lines.Costs)
	sum.Dollars = prices.Of(kept, redone, prices.Roles(p.Manifest), p.Prices).Record()
	if err := p.SaveManifest(); err != nil {
		return nil, err
	}
	if err := summary.Write(p.Dir, sum); err != nil {
		return nil, err
	}
	return sum, runErr
}

// doneSet is what earlier attempts of this run finished.
type doneSet struct {
	answered map[string]runlog.AnswerRecord
	judged   map[string]map[string]bool // question -> judge -> done
	built    map[string]bool
}

func (d *doneSet) finished(qid string, js []judge.Judge) bool {
	if _, ok := d.answered[qid]; !ok {
		return false
	}
	for _, j := range js {
		if !judging.Done(d.judged[qid], j) {
			return false
		}
	}
	return true
}

// need splits c's unfinished questions: those to answer (and judge), and
// those answered earlier that some judge has still to judge.
func (d *doneSet) need(c *datasets.Conversation, js []judge.Judge) (toAnswer, toJudge []*datasets.Question) {
	for _, q := range c.Questions {
		if _, ok := d.answered[q.ID]; !ok {
			toAnswer = append(toAnswer, q)
		} else if !d.finished(q.ID, js) {
			toJudge = append(toJudge, q)
		}
	}
	return toAnswer, toJudge
}

func (p *Prepared) loadDone() (*doneSet, error) {
	d := &doneSet{answered: map[string]runlog.AnswerRecord{}, built: map[string]bool{}}
	ans, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(p.Dir, runlog.AnswersFile))
	if err != nil {
		return nil, err
	}
	for _, a := range ans {
		d.answered[a.QuestionID] = a
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(p.Dir, runlog.JudgmentsFile))
	if err != nil {
		return nil, err
	}
	d.judged = judging.Judged(js) // an invalid verdict is asked again
	bs, err := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(p.Dir, runlog.BuildFile))
	if err != nil {
		return nil, err
	}
	p.builds = map[string]membench.BuildStats{}
	for _, b := range runlog.LastBy(bs, func(b runlog.BuildRecord) string { return b.ConversationID }) {
		// A build with too many failed requests, or an empty memory, is
		// done again.
		if !membench.BuildDegraded(b.Stats.Failed, b.Stats.Requests, p.Config.MaxBuildFailures) && b.EmptyMemory == "" {
			d.built[b.ConversationID] = true
			p.builds[b.ConversationID] = b.Stats
		}
	}
	// A kill after a memory dump and before its build line (or a build
	// redone for its failures) leaves a dump the rebuild writes again.
	if err := runlog.DropMemoryOf(p.Dir, func(c string) bool { return d.built[c] }); err != nil {
		return nil, err
	}
	return d, nil
}

func (p *Prepared) runConversation(ctx context.Context, conv *datasets.Conversation, done *doneSet, rec *runlog.Recorder, bar *progress.Bar) error {
	needAnswer, needJudge := done.need(conv, p.Judges)
	if len(needAnswer) == 0 && len(needJudge) == 0 && done.built[conv.ID] {
		return nil
	}
	// The conversation's meter takes the build; each question and each
	// judgment meters its own calls (llm.WithCallMeter) and writes them
	// just before its record, so a kill -9 loses no cost a result rests on.
	meter := llm.NewMeter()
	defer bar.Track(meter)()
	var written []membench.Tally // what cost records already hold of meter
	redone := false              // the build's costs are no result's (rebuilt on resume, or failed)
	var partial *partialCosts
	defer func() {
		partial.Stop()
		// Whatever the meter took beyond the recorded build (a build that
		// failed part way, usage an outside service reported). For a
		// build not recorded, this line closes its attempt.
		if t := llm.Minus(meter.Snapshot(), written); len(t) > 0 {
			c := runlog.CostRecord{ConversationID: conv.ID, Tallies: t, Redone: redone}
			if redone && partial != nil {
				c.Attempt = partial.attempt
			}
			rec.Cost(c)
		}
	}()
	env := p.Res.Env(meter, p.Config)
	judges, err := p.Res.Judges(p.Config.Judges, meter)
	if err != nil {
		return err
	}
	// Judging answers from an earlier attempt needs no memory.
	err = p.work.each(ctx, needJudge, func(ctx context.Context, q *datasets.Question) error {
		err := p.judgeOne(ctx, judges, conv, q, done.answered[q.ID].Prediction, done.judged[q.ID], rec, nil)
		if err := p.questionFailed(ctx, conv, q, atStage("judge", err), rec); err != nil {
			return err
		}
		bar.Add(1)
		return nil
	})
	if err != nil {
		return err
	}
	if len(needAnswer) == 0 && done.built[conv.ID] {
		return nil
	}
	// A lazily loaded conversation (LongMemEval) is read back from the file
	// here and dropped when this returns: memory holds only the
	// conversations in flight, not the whole dataset; planMemory bounds
	// how many.
	if !p.mem.acquire(ctx.Done()) {
		return ctx.Err()
	}
	defer p.mem.release()
	if conv, err = conv.Hydrate(); err != nil {
		return err
	}
	sys, err := p.System.New(env)
	if err != nil {
		return badinput.Errorf("system %s: %v", p.Config.System, err)
	}
	if c, ok := sys.(io.Closer); ok {
		defer c.Close() // a system holding a process (the exec adapter's child)
	}
	start := time.Now()
	redone = true // until the build is recorded
	// The build's spend so far reaches costs.jsonl in batches of calls,
	// so a kill -9 mid-build leaves it counted.
	partial = startPartialCosts(meter, rec, conv.ID)
	stats, err := sys.Ingest(ctx, conv)
	partial.Stop()
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	secs := time.Since(start).Seconds()
	empty := p.System.Memory.Empty(stats)
	if !done.built[conv.ID] {
		// The recorder commits the memory dump, the build's costs and the
		// build line in the order that makes a kill before the end rebuild.
		var memory []byte
		if d, ok := sys.(interface{ WriteMemory(io.Writer) error }); ok {
			var buf bytes.Buffer
			if err := d.WriteMemory(&buf); err != nil {
				return fmt.Errorf("dump memory: %w", err)
			}
			memory = buf.Bytes()
		}
		written = meter.Snapshot()
		br := buildRecord(conv, p.Config.System, meter, stats, start, secs)
		br.EmptyMemory = empty
		if err := rec.Build(memory, written, partial.attempt, br); err != nil {
			return err
		}
		redone = false
	}
	// No answers on a memory whose build mostly failed: the run stops here.
	if err := p.checkBuild(conv.ID, stats); err != nil {
		return err
	}
	// No answers on a memory that came out empty: the scores would be the
	// empty memory's, not the system's.
	if empty != "" {
		return &EmptyMemoryError{System: p.Config.System, Conversation: conv.ID, Reason: empty}
	}
	// Built only now: a build the run stops on above is not one.
	bar.Built()
	return p.work.each(ctx, needAnswer, func(ctx context.Context, q *datasets.Question) error {
		err := p.answerOne(ctx, sys, judges, conv, q, rec)
		if err := p.questionFailed(ctx, conv, q, err, rec); err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		bar.Add(1)
		return nil
	})
}

// BuildFailedError ends a run whose memory build failed on more than the
// allowed share of its requests (exit 1; the summary says DEGRADED).
type BuildFailedError struct {
	System                 string
	Failed, Requests       int
	Max                    float64
	Conversation, FirstRaw string
}

func (e *BuildFailedError) Error() string {
	return fmt.Sprintf("build failed: %d of %d %s build requests gave no usable reply (%.1f%%, above the %.1f%% limit of --max-build-failures); first raw reply (conversation %s): %q. A server that ignores JSON mode does this; fix the model or server and rerun the same command (failed builds are redone)",
		e.Failed, e.Requests, e.System, 100*float64(e.Failed)/float64(max(e.Requests, 1)), 100*e.Max, e.Conversation, clip.To(e.FirstRaw, 300))
}

// EmptyMemoryError ends a run whose system declares a built memory
// (systems.MemoryRule) and whose build of a conversation came out empty, or
// whose extraction replies were empty beyond the system's limit (exit 1;
// the summary says DEGRADED).
type EmptyMemoryError struct {
	System, Conversation, Reason string
}

func (e *EmptyMemoryError) Error() string {
	return fmt.Sprintf("build degraded: %s, conversation %s: %s, so no scores are reported. Check the build model and server (one that answers every extraction with an empty list does this) and rerun the same command: the build is redone (add --no-cache when the same model name now answers differently, since empty replies are valid and cached)",
		e.System, e.Conversation, e.Reason)
}

// checkBuild adds a conversation's build to the run's tally and fails when
// the run's failed share of build requests is above the limit.
func (p *Prepared) checkBuild(conv string, st membench.BuildStats) error {
	p.buildMu.Lock()
	defer p.buildMu.Unlock()
	if p.builds == nil {
		p.builds = map[string]membench.BuildStats{}
	}
	p.builds[conv] = st
	e := &BuildFailedError{System: p.Config.System, Max: p.Config.MaxBuildFailures}
	for _, c := range slices.Sorted(maps.Keys(p.builds)) {
		b := p.builds[c]
		e.Failed += b.Failed
		e.Requests += b.Requests
		if e.FirstRaw == "" && b.Failed > 0 {
			e.Conversation, e.FirstRaw = c, b.FirstFailure
		}
	}
	if membench.BuildDegraded(e.Failed, e.Requests, e.Max) {
		return e
	}
	return nil
}

func buildRecord(conv *datasets.Conversation, system string, meter *llm.Meter, stats membench.BuildStats, start time.Time, secs float64) runlog.BuildRecord {
	t := meter.Total(membench.StageBuild)
	var stages []membench.Tally
	// Written right after Ingest, so the embedding tally is the build's own.
	for _, s := range meter.Snapshot() {
		if s.Stage == membench.StageBuild || s.Label == "embedding" {
			stages = append(stages, s)
		}
	}
	return runlog.BuildRecord{
		ConversationID: conv.ID, System: system, Turns: len(conv.AllTurns()),
		Calls: t.Calls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens,
		Seconds: secs, Started: start.UTC(), Stages: stages, Stats: stats,
	}
}

func (p *Prepared) answerOne(ctx context.Context, sys systems.System, judges []judge.Judge, conv *datasets.Conversation, q *datasets.Question, rec *runlog.Recorder) error {
	// The question's retrieval and answer calls, written with its answer.
	qm := llm.NewMeter()
	defer p.bar.Track(qm)()
	ctx = llm.WithCallMeter(ctx, qm)
	start := time.Now()
	c, err := sys.Retrieve(ctx, q, systems.Budget{K: p.Config.K})
	if err != nil {
		return atStage("retrieve", err)
	}
	ctxSHA := llm.HashText(c.Rendered)
	rr := runlog.RetrievalRecord{
		QuestionID: q.ID, ConversationID: conv.ID, System: p.Config.System, K: p.Config.K,
		Tokens: c.Tokens, Items: refs(c.Items), Candidates: refs(c.Candidates),
		Evidence: q.Evidence, EvidenceHit: evidenceHit(q.Evidence, c.Items),
		ContextSHA256: ctxSHA, Seconds: time.Since(start).Seconds(), Notes: c.Notes,
	}
	if err := rec.Retrieval(rr); err != nil {
		return err
	}
	tmpl, err := p.Prompts.Template(answer.Prompt)
	if err != nil {
		return err
	}
	answerStart := time.Now()
	res, err := answer.Answer(ctx, p.Res.Model(plan.RoleAnswer, qm), tmpl, conv, q, c)
	if err != nil {
		return atStage("answer", err)
	}
	a := runlog.AnswerRecord{
		QuestionID: q.ID, ConversationID: conv.ID, System: p.Config.System, Category: q.Category, Type: q.Type, Abstention: q.Abstains(), Group: q.Group,
		Question: q.Text, Gold: q.Gold, Prediction: res.Prediction, ContextTokens: c.Tokens,
		Usage: res.Usage, Cached: res.Cached, ContextSHA256: ctxSHA, PromptSHA256: res.PromptSHA,
		TargetSHA256: llm.HashText(q.Gold),
	}
	// The answer is written before its judgments: a judge that fails after
	// another has written leaves an answered question that resume judges
	// only with the judges still missing, so no (question, judge) pair is
	// written twice. (Such a question's transcript is then not written.)
	if err := rec.Answer(qm.Snapshot(), a); err != nil {
		return err
	}
	tr := transcript(rr, c, res, time.Since(answerStart).Seconds())
	if err := p.judgeOne(ctx, judges, conv, q, res.Prediction, nil, rec, tr); err != nil {
		return atStage("judge", err)
	}
	return rec.Transcript(*tr)
}

// transcript is the question's transcript so far (retrieval and answer).
func transcript(rec runlog.RetrievalRecord, c *systems.Context, res answer.Result, answerSecs float64) *runlog.Transcript {
	return &runlog.Transcript{
		QuestionID: rec.QuestionID, ConversationID: rec.ConversationID, System: rec.System,
		Items: c.Items, Candidates: c.Candidates, Notes: c.Notes, Context: c.Rendered, ContextTokens: c.Tokens,
		RetrieveSeconds: rec.Seconds,
		Answer:          runlog.Call{Messages: res.Messages, Raw: res.Raw, Usage: res.Usage, Cached: res.Cached, Seconds: answerSecs},
	}
}

// judgeOne judges and logs; with tr non-nil each judge's request, reply
// and verdict go into the transcript too.
func (p *Prepared) judgeOne(ctx context.Context, judges []judge.Judge, conv *datasets.Conversation, q *datasets.Question, pred string, have map[string]bool, rec *runlog.Recorder, tr *runlog.Transcript) error {
	s := judge.NewSample(conv, q, pred)
	s.Prompt = p.Data.JudgePrompt(q)
	for _, jd := range judges {
		for r := range judge.Repeats(jd) {
			name := judging.RepeatName(jd.Name(), r)
			if have[name] {
				continue
			}
			// Each judgment's calls are written just before it.
			jm := llm.NewMeter()
			untrack := p.bar.Track(jm)
			err := judging.Once(llm.WithCallMeter(ctx, jm), jd, r, s, p.Config.System, func(j runlog.Judgment, v judge.Verdict, secs float64) error {
				if tr != nil {
					tr.Judges = append(tr.Judges, judging.TranscriptCall(j, v, secs))
				}
				return rec.Judgment(conv.ID, jm.Snapshot(), j)
			})
			untrack()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func refs(items []membench.Item) []membench.ItemRef {
	if len(items) == 0 {
		return nil
	}
	out := make([]membench.ItemRef, len(items))
	for i, it := range items {
		out[i] = membench.ItemRef{ID: it.ID, Kind: it.Kind, Sources: it.Sources, Score: it.Score}
	}
	return out
}

// evidenceHit counts evidence turn ids present in the items' sources.
func evidenceHit(evidence []string, items []membench.Item) int {
	n := 0
	for _, e := range evidence {
		if slices.ContainsFunc(items, func(it membench.Item) bool { return slices.Contains(it.Sources, e) }) {
			n++
		}
	}
	return n
}

// firstDifference is the first option (in name order) whose value differs
// between two resolved option sets.
func firstDifference(a, b membench.Options) (key, was, is string, differ bool) {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if a[k] != b[k] {
			return k, a[k], b[k], true
		}
	}
	return "", "", "", false
}
