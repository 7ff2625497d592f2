package runlog

import "time"

// The records' building blocks that other layers produce: model use
// (llm speaks these types under its own names: llm.Usage = runlog.Usage)
// and retrieved items and build statistics (systems.Item, systems.BuildStats).
// They are defined here because they are the on-disk schema: a run folder
// reads the same whatever the layers above become.

// Message is one chat message in the OpenAI sense.
type Message struct {
	Role    string `json:"role"` // system | user | assistant
	Content string `json:"content"`
}

// Stage tags a request for metering: where in the pipeline it was made.
type Stage string

const (
	StageBuild    Stage = "build"
	StageRetrieve Stage = "retrieve"
	StageAnswer   Stage = "answer"
	StageJudge    Stage = "judge"
)

// Usage is what one call cost.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// CachedInputTokens is the part of InputTokens the provider served
	// from its own prompt (prefix) cache and bills at its cached rate
	// (OpenAI's and vLLM's usage.prompt_tokens_details.cached_tokens).
	// It is not membench's reply cache: a reply from that is marked
	// Cached on the response and counted in Tally.CachedCalls.
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
}

// ModelID identifies a configured model.
type ModelID struct {
	Backend string `json:"backend"` // "offline" | "openai"
	Model   string `json:"model"`
	BaseURL string `json:"base_url,omitempty"`
}

// Tally is the usage of one (role, stage, label, model) bucket.
type Tally struct {
	Role  string `json:"role"`
	Stage Stage  `json:"stage"`
	Label string `json:"label,omitempty"`
	// Model is "backend:model" of the model that made the calls (what a
	// price table is looked up by); empty in tallies written before it
	// was recorded and for work a service reports about itself.
	Model string `json:"model,omitempty"`
	Calls int    `json:"calls"`
	// CachedCalls are replies served from membench's own reply cache.
	CachedCalls  int `json:"cached_calls"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// CachedInputTokens is the part of InputTokens the provider read from
	// its prompt cache (Usage.CachedInputTokens), billed at a lower rate.
	CachedInputTokens int     `json:"cached_input_tokens,omitempty"`
	Seconds           float64 `json:"seconds"`
}

// Item is one retrieved memory unit.
type Item struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind,omitempty"` // "turn", "fact", "relational", "synthesis", "triple", ...
	Text    string    `json:"text"`
	Time    time.Time `json:"time,omitempty"`
	Speaker string    `json:"speaker,omitempty"`
	Sources []string  `json:"sources,omitempty"` // source turn ids, for evidence recall
	Score   float64   `json:"score"`
}

// BuildStats is what a system reports about its build besides metered calls.
type BuildStats struct {
	Counts map[string]int `json:"counts,omitempty"` // entries, syntheses, dropped, ...
	// TurnTokens, when set, is the cumulative build tokens after each turn
	// (index = turn order in the conversation), for the cost-growth plot.
	TurnTokens []int          `json:"turn_tokens,omitempty"`
	Notes      map[string]any `json:"notes,omitempty"`
	// Requests counts the build's logical model requests (a repair retry
	// belongs to its request); Failed those whose reply stayed unusable, so
	// nothing was kept from them; FirstFailure quotes the first such reply.
	// The harness ends a run whose failed share is too high (a server
	// ignoring JSON mode must not pass for a normal build).
	Requests     int    `json:"requests,omitempty"`
	Failed       int    `json:"failed,omitempty"`
	FirstFailure string `json:"first_failure,omitempty"`
	// Entries is the size of the built memory (entries, facts, nodes and
	// edges), nil when the system does not report one. Extractions counts
	// the extraction replies that parsed, EmptyReplies those holding no
	// entry. A system's spec judges them (systems.MemoryRule.Empty).
	Entries      *int `json:"entries,omitempty"`
	Extractions  int  `json:"extractions,omitempty"`
	EmptyReplies int  `json:"empty_replies,omitempty"`
}

// CountAuthorsCalls is the BuildStats.Counts key of a build's calls on
// the StructMem authors' counter (one per extraction batch, factual and
// relational replies merged, one per synthesis window, one per update),
// the counter behind the paper's Table 2 calls column. Systems without
// such a counter leave it out.
const CountAuthorsCalls = "authors_counter_calls"

// SetEntries records the built memory's size.
func (b *BuildStats) SetEntries(n int) { b.Entries = &n }

// AddExtraction counts one parsed extraction reply, empty or not.
func (b *BuildStats) AddExtraction(empty bool) {
	b.Extractions++
	if empty {
		b.EmptyReplies++
	}
}

// AddRequest counts one logical build request; raw is the reply of a
// failed one ("" for a success).
func (b *BuildStats) AddRequest(failed bool, raw string) {
	b.Requests++
	if failed {
		if b.Failed == 0 {
			b.FirstFailure = raw
		}
		b.Failed++
	}
}

// ModelName is "backend:model", or "" for no model.
func ModelName(id ModelID) string {
	if id.Backend == "" && id.Model == "" {
		return ""
	}
	return id.Backend + ":" + id.Model
}
