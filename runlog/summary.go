package runlog

import (
	"strings"

	"github.com/membench/membench"
)

// Summary is a run's headline numbers, as summary.json holds them. Package
// summary computes it from a run's lines (every attempt's, so a resumed run
// summarises them all); runlog only holds its layout.
type Summary struct {
	RunID          string       `json:"run_id"`
	System         string       `json:"system"`
	Dataset        string       `json:"dataset"`
	Offline        bool         `json:"offline"`
	Synthetic      bool         `json:"synthetic,omitempty"` // the dataset came from `membench datasets synth`
	Replay         *ReplayInfo  `json:"replay,omitempty"`
	OfflineParts   []string     `json:"offline_parts,omitempty"` // roles and judges on the offline backend
	Embedder       string       `json:"embedder"`
	EmbedderNote   string       `json:"embedder_note,omitempty"`
	Judges         []string     `json:"judges"`
	JudgeModels    []JudgeModel `json:"judge_models,omitempty"`  // model judges' models
	Metrics        []string     `json:"metric_judges,omitempty"` // judges whose column is a mean score, not an accuracy
	Questions      int          `json:"questions"`
	Groups         []Group      `json:"groups"`  // per group of the dataset, in its order
	Overall        Group        `json:"overall"` // without the abstaining groups (LoCoMo adversarial, LongMemEval _abs), as the papers score it
	ContextTokens  TokenStats   `json:"context_tokens"`
	EvidenceRecall float64      `json:"evidence_recall"` // mean share of evidence turns in the context, over questions with evidence, abstention questions excluded (membench.CountsForRecall)
	// Build is the memory build's calls and tokens (build.jsonl, the last
	// build of each conversation) and its time: the wall time of memory
	// construction (computed by summary), conversations built in parallel
	// counted once; summary.md, report and view all show this one figure
	// (summary.BuildSeconds formats it).
	Build Cost `json:"build"`
	// BuildSecondsSummed: the builds lack start times (runs written
	// before they were recorded), so Build.Seconds is the sum of Ingest
	// times over conversations, above the wall time when conversations
	// were built in parallel.
	BuildSecondsSummed bool `json:"build_seconds_summed,omitempty"`
	// BuildRequests and BuildFailed count the memory build's logical
	// requests and those whose reply stayed unusable (nothing was kept);
	// Degraded is set when the failed share is above the run's limit:
	// the memory is not what the system would build, so neither are the
	// scores.
	BuildRequests int    `json:"build_requests,omitempty"`
	BuildFailed   int    `json:"build_failed,omitempty"`
	FirstFailure  string `json:"build_first_failure,omitempty"`
	// EmptyMemory lists "conversation: reason" for builds whose memory
	// came out empty (BuildRecord.EmptyMemory); any makes the run Degraded.
	EmptyMemory []string `json:"empty_memory,omitempty"`
	// FailedOverLimit: the failed share is above the limit (one cause of
	// Degraded, the other being EmptyMemory).
	FailedOverLimit bool            `json:"build_failed_over_limit,omitempty"`
	Degraded        bool            `json:"degraded,omitempty"`
	Stages          map[string]Cost `json:"stages"` // all model use by stage
	// Redone is, by stage like Stages, the model use of work no result
	// rests on: cut off by an interruption, or done again on resume (a
	// memory rebuilt). Stages leaves it out, so a resumed run reports the
	// costs of one clean pass; Stages + Redone is every call made.
	Redone map[string]Cost `json:"redone,omitempty"`
	// Reasked is the part of Redone that judged again a verdict a judge
	// had given none on (rerun re-asks them), by stage like Redone.
	Reasked map[string]Cost `json:"reasked,omitempty"`
	// Invalid counts, per judge, verdicts whose model reply held no verdict
	// even after re-asking; they are left out of that judge's scores.
	Invalid map[string]int `json:"invalid,omitempty"`
	// InvalidAsWrong: the invalid verdicts were counted as WRONG (scored
	// 0, --invalid-as wrong) instead of left out; Invalid still counts them.
	InvalidAsWrong bool `json:"invalid_as_wrong,omitempty"`
	// FirstInvalid quotes one such reply per judge.
	FirstInvalid map[string]string `json:"first_invalid,omitempty"`
	// CacheDamaged is the manifest's count of damaged cache entries.
	CacheDamaged *CacheDamage `json:"cache_damaged,omitempty"`
	// PaperPrompts is the manifest's: whether the run's prompts are the
	// paper's its config pins (nil: it pins none).
	PaperPrompts *membench.PromptCheck `json:"paper_prompts,omitempty"`
	// Dollars prices Stages and Redone (set by the run; nil when unpriced).
	Dollars *Dollars `json:"dollars,omitempty"`
}

// EmbeddedTexts ends the Summary.Stages (and Redone) keys whose "calls"
// count texts sent to an embedder, not model requests ("embed:embedding").
const EmbeddedTexts = ":embedding"

// JudgeModel names the model a model judge asked, and whether it is the
// paid model that wrote the answers it judged (a model grading its own
// answers is a caveat readers should see; the offline heuristics are not
// a model).
type JudgeModel struct {
	Judge         string `json:"judge"`
	Model         string `json:"model"` // backend:model
	IsAnswerModel bool   `json:"is_answer_model,omitempty"`
}

// Group is one row of the score table.
type Group struct {
	Name     string             `json:"name"`
	Abstains bool               `json:"abstains,omitempty"` // left out of Overall
	N        int                `json:"n"`
	Scores   map[string]float64 `json:"scores"`           // judge -> mean score × 100
	Judged   map[string]int     `json:"judged,omitempty"` // judge -> questions it judged, when fewer than N
	// Invalid: judge -> questions of the group its model gave no verdict
	// on (left out of its score, so beside N in every table).
	Invalid map[string]int `json:"invalid,omitempty"`
	// Repeats: judge -> its repeated judging's spread and majority vote,
	// for judges that judged each question several times.
	Repeats map[string]RepeatStats `json:"repeats,omitempty"`
}

// Cost sums model usage.
type Cost struct {
	Calls        int     `json:"calls"`
	CachedCalls  int     `json:"cached_calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Seconds      float64 `json:"seconds"`
	// CachedInputTokens: of InputTokens, those the provider's prompt
	// cache served (Tally.CachedInputTokens).
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
}

// AddTally adds one tally of model use.
func (c *Cost) AddTally(t membench.Tally) {
	c.Add(Cost{Calls: t.Calls, CachedCalls: t.CachedCalls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CachedInputTokens: t.CachedInputTokens, Seconds: t.Seconds})
}

// Add adds another cost.
func (c *Cost) Add(o Cost) {
	c.Calls += o.Calls
	c.CachedCalls += o.CachedCalls
	c.InputTokens += o.InputTokens
	c.OutputTokens += o.OutputTokens
	c.CachedInputTokens += o.CachedInputTokens
	c.Seconds += o.Seconds
}

// RedoneCalls sums the LLM calls of Redone (embeddings left out).
func (s *Summary) RedoneCalls() Cost { return llmCalls(s.Redone) }

// ReaskedCalls sums the LLM calls of Reasked.
func (s *Summary) ReaskedCalls() Cost { return llmCalls(s.Reasked) }

func llmCalls(by map[string]Cost) Cost {
	var c Cost
	for k, v := range by {
		if !strings.HasSuffix(k, EmbeddedTexts) {
			c.Add(v)
		}
	}
	return c
}
