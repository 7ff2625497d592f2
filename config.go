package membench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/names"
	"github.com/membench/membench/internal/redact"
)

// Config is everything a run needs. Fields tagged json:"-" cannot change
// the outputs and are left out of the run id and the manifest's config hash.
type Config struct {
	System        string        `json:"system" yaml:"system"`
	Options       Options       `json:"options,omitempty" yaml:"options"`
	K             int           `json:"k,omitempty" yaml:"k"` // retrieval budget; 0 = the system's default
	Dataset       string        `json:"dataset" yaml:"dataset"`
	Data          string        `json:"data,omitempty" yaml:"data"` // file path; empty = embedded sample / default location
	Conversations []string      `json:"conversations,omitempty" yaml:"conversations"`
	Limit         int           `json:"limit,omitempty" yaml:"limit"` // questions in all, in dataset order; 0 = all
	TurnStep      time.Duration `json:"turn_step" yaml:"turn_step"`
	// Shard "I/N" runs the I-th of N deterministic parts of the
	// conversations (after --conversations/--limit); "" = all. It is part
	// of the config so each shard gets its own run directory; merge
	// checks that the shards' configs agree on everything else.
	Shard string `json:"shard,omitempty" yaml:"shard"`

	// DataSHA256 is the dataset file's content hash, filled in when the
	// run loads it: the run id hashes it instead of Data, so a relative
	// and an absolute path to one file give one run id.
	DataSHA256 string `json:"data_sha256,omitempty" yaml:"-"`
	// Seed and BaseData shape a stitched dataset (LoCoMo-Plus): the seed of
	// its choices (0 = its default) and the file of its base conversations
	// ("" = the installed copy); DataSHA256 then covers both.
	Seed     int    `json:"seed,omitempty" yaml:"seed"`
	BaseData string `json:"base_data,omitempty" yaml:"base_data"`

	// AnswerKey is --answer-key: "" (LoCoMo's published key), "audited"
	// or a key file; AnswerKeySHA256, filled when the run reads the key,
	// stands for it in the run id. ExcludeImageQuestions drops LoCoMo's
	// image-dependent questions (datasets/imagemarks).
	AnswerKey             string `json:"answer_key,omitempty" yaml:"answer_key"`
	AnswerKeySHA256       string `json:"answer_key_sha256,omitempty" yaml:"-"`
	ExcludeImageQuestions bool   `json:"exclude_image_questions,omitempty" yaml:"exclude_image_questions"`

	// Model specs (llm.ParseSpec syntax, e.g. "offline", "openai:gpt-4o-mini").
	// Build/Answer/Decide/JudgeModel default to Model.
	Model       string `json:"model" yaml:"model"`
	BuildModel  string `json:"build_model,omitempty" yaml:"build_model"`
	AnswerModel string `json:"answer_model,omitempty" yaml:"answer_model"`
	DecideModel string `json:"decide_model,omitempty" yaml:"decide_model"`
	JudgeModel  string `json:"judge_model,omitempty" yaml:"judge_model"`

	Judges       []string `json:"judges" yaml:"judges"`
	AnswerPrompt string   `json:"answer_prompt,omitempty" yaml:"answer_prompt"` // file overriding the answer template
	JudgePrompt  string   `json:"judge_prompt,omitempty" yaml:"judge_prompt"`   // file replacing the llm judges' template
	Embedder     string   `json:"embedder,omitempty" yaml:"embedder"`           // "", "use-lite", "hashed", "openai:MODEL"

	// PaperPrompts pins the prompts a paper's authors used (a paper
	// config's paper_prompts:). It changes no output, so it is not in the
	// run id: it decides whether the run is refused and how its figures
	// are labelled (Manifest.PaperPrompts).
	PaperPrompts *PaperPrompts `json:"-" yaml:"paper_prompts"`
	// AllowPromptMismatch runs a prompt file whose sha256 is not the
	// pinned one, every figure labelled (--allow-prompt-mismatch).
	AllowPromptMismatch bool `json:"-" yaml:"-"`

	// Settings that do not change outputs.
	RunID       string `json:"-" yaml:"run_id"`
	ResultsDir  string `json:"-" yaml:"results_dir"`
	CacheDir    string `json:"-" yaml:"cache_dir"`
	Concurrency int    `json:"-" yaml:"concurrency"`
	NoCache     bool   `json:"-" yaml:"no_cache"`
	Quiet       bool   `json:"-" yaml:"quiet"`
	// NoTranscripts skips transcripts.jsonl.gz (they change no other output).
	NoTranscripts bool `json:"-" yaml:"no_transcripts"`
	// MaxBuildFailures is the share of a system's build requests that may
	// fail (reply unusable after the repair retry) before the run stops
	// with exit 1; 0 means DefaultMaxBuildFailures, 1 never stops.
	MaxBuildFailures float64 `json:"-" yaml:"max_build_failures"`
	// MaxDataSize caps how many bytes of the dataset file are read, so a
	// wrong --data (a device, a huge file) fails instead of filling memory;
	// 0 means datasets.DefaultMaxBytes.
	MaxDataSize int64 `json:"-" yaml:"max_data_size"`

	// Host is what the process environment says; the command line fills it.
	Host Host `json:"-" yaml:"-"`
	// PricesFile is a --prices file laid over the default price table
	// for the summary's and the progress line's dollars.
	PricesFile string `json:"-" yaml:"-"`
	// Dry runs the pipeline with every paid model and embedder stood in
	// for by the offline heuristics under its own name (an estimate of
	// the run's spend; llm.BuildDeps.Dry).
	Dry bool `json:"-" yaml:"-"`
}

// Host is what membench's environment variables say, read once by the
// command line (cmd/membench/clienv) and passed in with the Config: nothing
// on the run path reads or sets environment variables, so runs in one
// process (a sweep, parallel tests) cannot leak settings into each other.
type Host struct {
	// Home is MEMBENCH_HOME: fetched datasets, the USE-lite model and the
	// caches live under it. "" = ~/.cache/membench.
	Home string
	// Embedder is MEMBENCH_EMBEDDER ("", "hashed" or "use-lite"), used
	// when the config names no embedder.
	Embedder string
	// CI is true when the CI variable is set: progress is logged as lines, never redrawn.
	CI bool
}

// CacheDir is where the LLM and embedding caches live: HOME/cache, or
// ~/.cache/membench/cache when Home is "".
func (h Host) CacheDir() string {
	if h.Home != "" {
		return filepath.Join(h.Home, "cache")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "membench", "cache")
	}
	return filepath.Join(".membench", "cache")
}

// JudgeModelSpec is the judge model's spec: --judge-model, else --model.
func (c Config) JudgeModelSpec() string {
	if c.JudgeModel != "" {
		return c.JudgeModel
	}
	return c.Model
}

// WithDefaults fills unset fields: the one place of a run's defaults
// (run's flags show them). The judges are left to plan, whose default
// depends on what the judge model is, which only the model layer tells.
func (c Config) WithDefaults() Config {
	if c.Model == "" {
		c.Model = "offline"
	}
	if c.TurnStep == 0 {
		c.TurnStep = 30 * time.Second
	}
	if c.ResultsDir == "" {
		c.ResultsDir = "results"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.MaxBuildFailures <= 0 {
		c.MaxBuildFailures = DefaultMaxBuildFailures
	}
	return c
}

// Bounds of the numeric settings (flags and YAML alike): far above any
// real use, low enough that a typo cannot overflow a time or start a
// million workers.
const (
	MaxTurnStep    = 24 * time.Hour
	MaxK           = 100000
	MaxConcurrency = 10000
)

// DefaultMaxBuildFailures: more than 5% of build requests failing means
// the memory is not the system's (e.g. a server ignoring JSON mode).
const DefaultMaxBuildFailures = 0.05

// BuildDegraded reports whether failed of requests build requests is more
// than the share max allows.
func BuildDegraded(failed, requests int, max float64) bool {
	return failed > 0 && float64(failed) > max*float64(requests)
}

// Hash is the sha256 of the output-relevant config (json:"-" fields excluded).
func (c Config) Hash() string {
	// Credentials in a base URL do not change outputs: hash without them,
	// so a new password resumes the same run and never shapes its id.
	r := c.Redacted()
	if r.DataSHA256 != "" {
		r.Data, r.BaseData = "", "" // the content decides, not the path as typed
	}
	if r.AnswerKeySHA256 != "" && r.AnswerKey != "audited" {
		r.AnswerKey = "file" // a key file's content decides, not its path
	}
	b, _ := json.Marshal(r)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ID is the run id: given, or derived from dataset, system and config hash so
// that re-running the same command finds and resumes the same directory.
func (c Config) ID() string {
	if c.RunID != "" {
		return c.RunID
	}
	return fmt.Sprintf("%s-%s-%s", c.Dataset, c.System, c.Hash()[:10])
}

// Redacted is the config with credentials removed from every model spec,
// judge spec and embedder (a base URL's user:password@), as the manifest
// records it.
func (c Config) Redacted() Config { return c.MapSpecs(redact.Text) }

// MapSpecs is the config with f applied to every model, judge and
// embedder spec (a bundle's config has llm.StripEndpoint applied: it must
// not choose where calls and keys go).
func (c Config) MapSpecs(f func(string) string) Config {
	c.Model, c.BuildModel, c.AnswerModel = f(c.Model), f(c.BuildModel), f(c.AnswerModel)
	c.DecideModel, c.JudgeModel, c.Embedder = f(c.DecideModel), f(c.JudgeModel), f(c.Embedder)
	c.Judges = slices.Clone(c.Judges) // the caller's slice stays as it is
	for i, j := range c.Judges {
		c.Judges[i] = f(j)
	}
	return c
}

// CheckRunID refuses run ids that are not one plain path element, so a run
// directory can never land outside --results ("../x", "..", "a/b"), nor
// get a name a shell, a terminal or another system chokes on (names.Check:
// letters, digits and . _ + -, at most 100 characters).
func CheckRunID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("--run-id is empty; give a name such as my-run, or leave it out to derive one")
	case id == "." || id == "..":
		return fmt.Errorf("--run-id %q names a directory outside the run's own; give a plain name such as my-run", id)
	case strings.ContainsAny(id, `/\`) || strings.ContainsRune(id, 0) || filepath.Base(id) != id || filepath.IsAbs(id):
		return fmt.Errorf("--run-id %s: a run id is one path element (no / or \\); use --results to choose where runs go", names.Show(id))
	}
	return names.Check("--run-id", id)
}

// ZeroConcurrency refuses `concurrency: 0` at line of a config file as
// --concurrency 0 is refused: decoded, a 0 reads as unset and would get
// the default.
func ZeroConcurrency(file string, line int) error {
	return badinput.Errorf("%s:%d: concurrency: 0 would start no worker; give 1 to %d (as --concurrency), or leave the key out for the default, %d", file, line, MaxConcurrency, Config{}.WithDefaults().Concurrency)
}

// Validate refuses settings that would otherwise be silently replaced or
// would write outside --results; its errors are all bad input. Call it on the config as given (before
// WithDefaults), so a negative number is reported, not defaulted.
func (c Config) Validate() error {
	switch {
	case c.K < 0:
		return fmt.Errorf("--k %d is negative; give the number of items to retrieve, or 0 for the system's default", c.K)
	case c.Limit < 0:
		return fmt.Errorf("--limit %d is negative; give a number of questions, or 0 for all", c.Limit)
	case c.TurnStep < 0:
		return fmt.Errorf("--turn-step %s is negative; give a duration such as 30s (turn_step in YAML)", c.TurnStep)
	case c.TurnStep > MaxTurnStep:
		return fmt.Errorf("--turn-step %s: give at most %s (turn_step in YAML)", c.TurnStep, MaxTurnStep)
	case c.K > MaxK:
		return fmt.Errorf("--k %d: give at most %d (k in YAML)", c.K, MaxK)
	case c.Concurrency > MaxConcurrency:
		return fmt.Errorf("--concurrency %d: give at most %d (concurrency in YAML)", c.Concurrency, MaxConcurrency)
	// NaN fails every comparison, so the test is written to let it fail.
	case !(c.MaxBuildFailures >= 0 && c.MaxBuildFailures <= 1):
		return fmt.Errorf("--max-build-failures %v: give a share from 0 to 1 (0.05 = 5%%; 1 never stops; max_build_failures in YAML)", c.MaxBuildFailures)
	case c.Concurrency < 0:
		return fmt.Errorf("--concurrency %d is negative; give at least 1 (0 means the default, 4)", c.Concurrency)
	case c.MaxDataSize < 0:
		return fmt.Errorf("--max-data-size %d is negative; give a size such as 8GiB (max_data_size in YAML, in bytes)", c.MaxDataSize)
	}
	if c.RunID != "" {
		if err := CheckRunID(c.RunID); err != nil {
			return err
		}
	}
	if c.Dataset != "" {
		if err := names.Check("--dataset", c.Dataset); err != nil {
			return err
		}
	}
	if c.ResultsDir != "" {
		if st, err := os.Stat(c.ResultsDir); err == nil && !st.IsDir() {
			return fmt.Errorf("--results %s is a file; give a directory (it is created when missing)", c.ResultsDir)
		}
	}
	return nil
}

// Dir is the run's artifact directory.
func (c Config) Dir() string { return filepath.Join(c.ResultsDir, c.ID()) }
