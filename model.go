package membench

// What model calls are and cost: the model layer (llm) makes them, the
// run log records them (build, cost and answer lines).

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

// Add adds o's counts (calls, tokens, seconds) to t; t keeps its names.
func (t *Tally) Add(o Tally) {
	t.Calls += o.Calls
	t.CachedCalls += o.CachedCalls
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.CachedInputTokens += o.CachedInputTokens
	t.Seconds += o.Seconds
}

// ModelName is "backend:model", or "" for no model.
func ModelName(id ModelID) string {
	if id.Backend == "" && id.Model == "" {
		return ""
	}
	return id.Backend + ":" + id.Model
}
