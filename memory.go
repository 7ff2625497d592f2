package membench

import "time"

// What a memory system returns (systems): the run log records it
// (transcripts, build lines).

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
