// Package plan resolves a run's config once, before any work: it checks
// the settings, fills the defaults, looks up the system, parses the shard
// and the model specs, loads the prompts, the dataset (hashed, under the
// answer key, cut to the shard) and the price table, chooses the embedder,
// and names the run. Run, estimate, replay and sweep take the Plan and
// never parse the config again; scoring a predictions file takes the
// part of it that applies (Scored).
package plan

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/answer"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/stamp"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// A Plan is a run resolved: everything the engine needs, typed, loaded
// once.
type Plan struct {
	// Config is the config as the run records it: defaults filled, k in
	// one form, the embedder chosen, the data file and answer key hashed,
	// the shard written I/N.
	Config membench.Config
	ID     string // the run id (Config.ID())
	Dir    string // the run's folder: ResultsDir/ID
	System systems.Spec
	// Models are the model specs by role (Roles), --no-cache applied.
	Models map[string]llm.Spec
	// Data is the dataset loaded, filtered by --conversations/--limit,
	// under the answer key, and cut to this shard's part.
	Data    *datasets.Dataset
	Shard   *runlog.ShardInfo // nil: the whole set
	Scoring Scoring           // what the answer key and image exclusion did
	// Prompts are this run's templates (--answer-prompt replaces the
	// answer's); LLM judges carry their own prompt files.
	Prompts prompts.Set
	// Paper is how the run's prompts stand against the paper's its
	// config pins (nil: it pins none).
	Paper    *membench.PromptCheck
	Prices   *prices.Table // the default table with --prices over it
	Embedder Embedder
}

// Embedder is the run's embedder as chosen: its recorded name, the
// warning of its choice ("" when none), and for a local one its loaded
// model and the sha256 of the model's files.
type Embedder struct {
	Name, Note, SHA256 string
	Local              llm.Embedder // nil: remote, built with the models
}

// Env is what the process's environment adds to a config beyond its Host
// (MEMBENCH_HOME, MEMBENCH_EMBEDDER, CI): the index of a Kubernetes
// Indexed Job (JOB_COMPLETION_INDEX, for --shard auto/N).
type Env struct {
	JobIndex string
}

// Resolve checks cfg in the order a user fixes it and resolves it (see
// identity.go for the one form of each setting). Every error is bad
// input, found before any run folder exists.
func Resolve(cfg membench.Config, env Env) (*Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, badinput.Wrap(err)
	}
	cfg = withDefaults(cfg)
	var shard *runlog.ShardInfo
	if cfg.Shard != "" {
		i, n, err := ParseShard(cfg.Shard, env.JobIndex)
		if err != nil {
			return nil, badinput.Wrap(err)
		}
		// auto/N is written as the part it is, so the manifest names it.
		cfg.Shard = fmt.Sprintf("%d/%d", i, n)
		shard = &runlog.ShardInfo{Index: i, Count: n}
	}
	spec, err := systems.Lookup(cfg.System)
	if err != nil {
		return nil, badinput.Errorf("--system: %v", err)
	}
	if err := cfg.Options.Check(cfg.System, spec.Defaults); err != nil {
		return nil, badinput.Errorf("--opt: %v", err)
	}
	if cfg, err = resolveK(cfg); err != nil {
		return nil, err
	}
	cfg, paper, err := paperPrompts(cfg)
	if err != nil {
		return nil, err
	}
	var set prompts.Set
	if cfg.AnswerPrompt != "" {
		t, err := prompts.FromFile(answer.Prompt, cfg.AnswerPrompt)
		if err != nil {
			return nil, badinput.Errorf("--answer-prompt: %v", err)
		}
		set = set.With(t)
	}
	cfg, ds, scoring, err := loadData(cfg, true)
	if err != nil {
		return nil, err
	}
	cfg.DataSHA256 = ds.SHA256 // the run id does not depend on how the path was typed
	cfg, emb, err := resolveEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	models, err := ModelSpecs(cfg)
	if err != nil {
		return nil, err
	}
	table, err := Prices(cfg.PricesFile)
	if err != nil {
		return nil, err
	}
	if shard != nil {
		shard.SetConversations, shard.SetQuestions, shard.SetSHA256 = len(ds.Conversations), len(ds.Questions()), QuestionSetHash(ds.Questions())
		ds = ds.Shard(shard.Index, shard.Count)
	}
	id := cfg.ID()
	return &Plan{Config: cfg, ID: id, Dir: filepath.Join(cfg.ResultsDir, id), System: spec, Models: models,
		Data: ds, Shard: shard, Scoring: scoring, Prompts: set, Paper: paper, Prices: table,
		Embedder: emb}, nil
}

// loadData loads the config's dataset (lazy: conversations read when
// used), keeps the part --conversations/--limit ask for and applies the
// answer key, whose sha256 it records in the config.
func loadData(cfg membench.Config, lazy bool) (membench.Config, *datasets.Dataset, Scoring, error) {
	opt := datasets.LoadOptions{TurnStep: cfg.TurnStep, Home: cfg.Host.Home, MaxBytes: cfg.MaxDataSize, Seed: cfg.Seed, BaseData: cfg.BaseData}
	load := opt
	load.Conversations, load.Limit, load.Lazy = cfg.Conversations, cfg.Limit, lazy
	ds, err := datasets.Load(cfg.Dataset, cfg.Data, load)
	if err != nil {
		return cfg, nil, Scoring{}, badinput.Wrap(err)
	}
	if len(cfg.Conversations) > 0 || cfg.Limit > 0 {
		if ds, err = ds.Filter(cfg.Conversations, cfg.Limit); err != nil {
			return cfg, nil, Scoring{}, badinput.Errorf("--conversations: %v", err)
		}
	}
	if cfg.AnswerKey == "published" {
		cfg.AnswerKey = "" // the dataset's own key: one run id for both spellings
	}
	sum, scoring, err := ApplyScoring(ds, cfg.AnswerKey, cfg.ExcludeImageQuestions, opt)
	cfg.AnswerKeySHA256 = sum
	return cfg, ds, scoring, err
}

// Scored resolves cfg for scoring a file of predictions, where no system
// runs: the price table, defaults filled, the whole dataset loaded under
// the answer key, the model specs (the judge's is used).
func Scored(cfg membench.Config) (*Plan, error) {
	table, err := Prices(cfg.PricesFile) // a bad prices file is bad input before any work
	if err != nil {
		return nil, err
	}
	cfg, ds, scoring, err := loadData(withDefaults(cfg), false)
	if err != nil {
		return nil, err
	}
	models, err := ModelSpecs(cfg)
	if err != nil {
		return nil, err
	}
	id := cfg.ID()
	return &Plan{Config: cfg, ID: id, Dir: filepath.Join(cfg.ResultsDir, id), Models: models, Data: ds, Scoring: scoring, Prices: table}, nil
}

// StartManifest is the start of the plan's run manifest: the membench that
// writes it, the run's id and config, and its dataset with the dataset's
// groups and whether it is synthetic (run and score alike: every output
// read from either must say so).
func (p *Plan) StartManifest() runlog.Manifest {
	b := stamp.Of()
	m := runlog.Manifest{Schema: runlog.ManifestSchema, Membench: stamp.Version(), GitCommit: b.Revision, GitDirty: b.Dirty, VersionFrom: b.From,
		RunID: p.ID, ConfigHash: p.Config.Hash(), Config: p.Config.Redacted(),
		Dataset: p.Data.Name, DatasetSource: p.Data.Source, DatasetSHA256: p.Data.SHA256, Synthetic: p.Data.Synthetic}
	for _, g := range p.Data.Groups {
		m.DatasetGroups = append(m.DatasetGroups, runlog.DatasetGroup{Name: g.Name, Abstains: g.Abstains})
	}
	return m
}

// Named is the plan under another run id (a sweep names its points
// after their grid values), checked as --run-id is.
func (p *Plan) Named(id string) (*Plan, error) {
	if err := membench.CheckRunID(id); err != nil {
		return nil, badinput.Wrap(err)
	}
	q := *p
	q.Config.RunID, q.ID, q.Dir = id, id, filepath.Join(p.Config.ResultsDir, id)
	return &q, nil
}

// ScoringNote is the line a run's results table gets about its answer key
// and image exclusion ("" when it has neither), as the manifest says it.
func (p *Plan) ScoringNote() string { return ScoringNote(p.Scoring.Key, p.Scoring.ImageExcluded) }

// ScoringNote says what an answer key k (nil: none) and the exclusion of
// images image-dependent questions did to a run's questions, for the
// command line; "" when neither applied.
func ScoringNote(k *runlog.AnswerKeyInfo, images int) string {
	var parts []string
	if k != nil {
		name, _, _ := strings.Cut(strings.TrimSpace(k.Key), " ") // "NAME sha256:HEX"
		parts = append(parts, fmt.Sprintf("answer key %s: %d gold answers replaced, %d evidence lists fixed, %d ambiguous questions left out", name, k.AnswerChanged, k.EvidenceChanged, k.Excluded))
	}
	if images > 0 {
		parts = append(parts, fmt.Sprintf("%d image-dependent questions left out", images))
	}
	return strings.Join(parts, "; ")
}

// Roles of the models a run uses.
const (
	RoleBuild  = "build"
	RoleAnswer = "answer"
	RoleDecide = "decide"
	RoleJudge  = "judge"
)

// Roles in the order errors name them, so a missing key names the same
// role on every invocation.
var Roles = []string{RoleBuild, RoleAnswer, RoleDecide, RoleJudge}

// ModelSpecs parses each role's model spec (--ROLE-model, else --model),
// with --no-cache applied.
func ModelSpecs(cfg membench.Config) (map[string]llm.Spec, error) {
	given := map[string]string{RoleBuild: cfg.BuildModel, RoleAnswer: cfg.AnswerModel, RoleDecide: cfg.DecideModel, RoleJudge: cfg.JudgeModel}
	out := map[string]llm.Spec{}
	for _, role := range Roles {
		s, flag := given[role], "--"+role+"-model"
		if s == "" {
			s, flag = cfg.Model, "--model/--llm"
		}
		spec, err := llm.ParseSpec(s)
		if err != nil {
			return nil, badinput.Errorf("%s %q: %v", flag, llm.RedactText(s), err)
		}
		spec.NoCache = spec.NoCache || cfg.NoCache
		out[role] = spec
	}
	return out, nil
}

// Prices is the default price table with the --prices file (if any) laid
// over it.
func Prices(file string) (*prices.Table, error) {
	if file == "" {
		return prices.Default(), nil
	}
	return prices.Load(file)
}
