package structmem

import (
	"time"
)

// Entry kinds.
const (
	KindFactual    = "factual"
	KindRelational = "relational"
)

// Entry is one event-level memory: a natural-language statement anchored to
// the timestamp of the utterance it rests on.
type Entry struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"` // factual | relational
	Text    string    `json:"text"`
	Time    time.Time `json:"time"` // τ of the (first) cited utterance; zero when undated
	Speaker string    `json:"speaker"`
	Sources []string  `json:"sources"` // cited utterance (turn) ids, first = anchor
	// SourceText is the cited utterances ("Speaker: text"), so an audit
	// can judge the entry from the dump alone.
	SourceText string `json:"source_text"`
	SessionID  string `json:"session_id"`
	// Event groups the entries of one event: the timestamp, or for undated
	// utterances the anchor turn id (a zero time would merge every undated
	// utterance into one "event").
	Event     string    `json:"event"`
	Embedding []float32 `json:"-"`
	turnIndex int       // order of the anchor turn in the conversation
}

// Synthesis is one cross-event memory written by consolidation: the
// window's chronological narrative.
type Synthesis struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Dependency is set only by dumps written before narratives (one
	// link per synthesis); audits still read them.
	Dependency string   `json:"dependency,omitempty"`
	CitedTimes []string `json:"cited_times,omitempty"` // as the model wrote them
	// ForeignTimes are citations that name no event of the window's
	// context (kept in the text, counted, not resolved).
	ForeignTimes []string `json:"foreign_times,omitempty"`
	Words        int      `json:"words"`
	// CitedEvents are the event keys the citations resolved to (in C_cross).
	CitedEvents []string `json:"cited_events,omitempty"`
	// CitedEntryIDs are the C_cross entries of the cited events: what an
	// audit judges the link against.
	CitedEntryIDs  []string `json:"cited_entry_ids,omitempty"`
	BufferEntryIDs []string `json:"buffer_entry_ids"`
	SeedEntryIDs   []string `json:"seed_entry_ids"`
	Sources        []string `json:"sources,omitempty"` // union of cited events' turn ids
	// CitedTurns are the turns the citations name: the anchor turn of each
	// cited event that one utterance carries (anchor=utterance). An event
	// bound to a session's time names the session, not a turn, so it adds
	// none. Retrieval reports these as the synthesis's sources, so that
	// evidence recall counts only turns actually cited.
	CitedTurns  []string  `json:"cited_turns,omitempty"`
	Window      int       `json:"window"`
	Time        time.Time `json:"time"` // latest cited event (else window end)
	Constrained bool      `json:"constrained"`
	Embedding   []float32 `json:"-"`
}

// WindowRecord describes one consolidation window (for audits and tests).
type WindowRecord struct {
	Index     int       `json:"index"`
	Start     time.Time `json:"start"` // the time pointer
	End       time.Time `json:"end"`   // pointer + window
	BufferIDs []string  `json:"buffer_ids"`
	SeedIDs   []string  `json:"seed_ids"`
	// EventIDs are the entries added by event reconstruction (all entries
	// sharing a seed's timestamp), outside the buffer; under
	// seed-scope=authors-code also the seeds found inside the window,
	// which the authors' code lists again.
	EventIDs []string `json:"event_ids"`
	// Called is true for every window the build reached: the synthesis
	// model is asked for each one, seeds or not.
	Called       bool     `json:"called"`
	SynthesisIDs []string `json:"synthesis_ids,omitempty"`
}

// Failure keeps an answer that could not be parsed even after the repair.
type Failure struct {
	Label string `json:"label"` // extract_fact | extract_rel | consolidate
	Scope string `json:"scope"` // session id, turn id or "window N"
	Error string `json:"error"`
	Raw   string `json:"raw"`
	// RepairRaw is the answer to the repair request.
	RepairRaw string `json:"repair_raw"`
}

// Utterance is one line of an extraction prompt (offline handlers read it).
type Utterance struct {
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
	Time    string `json:"time"` // TimeLabel of the turn
	Date    string `json:"date"` // human date ("8 May 2023"), empty when undated
	Text    string `json:"text"`
}

// ExtractInput is the data of the factual and relational prompts; it is
// also Request.Inputs for the offline heuristics.
type ExtractInput struct {
	Kind       string      `json:"kind"` // factual | relational
	Speakers   []string    `json:"speakers"`
	Date       string      `json:"date"` // session date, empty when undated
	Utterances []Utterance `json:"utterances"`
}

// PromptEntry is one entry line of a consolidation prompt.
type PromptEntry struct {
	Time    string `json:"time"` // the event key the model must cite
	Kind    string `json:"kind"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// ConsolidateInput is the data of the consolidation prompts and
// Request.Inputs for the offline heuristic.
type ConsolidateInput struct {
	Speakers    []string `json:"speakers"`
	Start       string   `json:"start"`
	End         string   `json:"end"`
	Constrained bool     `json:"constrained"`
	// Historical: seeds are strictly earlier than the buffer (seed-scope);
	// with global seeds the related events may also be later.
	Historical bool          `json:"historical"`
	Buffer     []PromptEntry `json:"buffer"`
	Related    []PromptEntry `json:"related"`
	// MinWords and MaxWords bound the narrative's length.
	MinWords int `json:"min_words"`
	MaxWords int `json:"max_words"`
}

// extracted is the JSON an extraction answer holds, per entry.
type extracted struct {
	Utterance  string   `json:"utterance"`
	Utterances []string `json:"utterances,omitempty"`
	Text       string   `json:"text"`
}

// narrative is a consolidation answer: the window's synthesis and the
// event times it cites (constrained; unconstrained may omit them).
type narrative struct {
	Narrative string   `json:"narrative"`
	Times     []string `json:"times,omitempty"`
}

// TimeLabel is the canonical timestamp text used in prompts and citations:
// seconds resolution, since turn times inside a session may differ by less
// than a minute.
const timeLayout = "2006-01-02 15:04:05"

// TimeLabel formats t for prompts; zero times read "undated".
func TimeLabel(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.UTC().Format(timeLayout)
}

// DateLabel is the human date ("8 May 2023"), empty for zero times.
func DateLabel(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 January 2006")
}

// renderTime is the date shown to the answer model ("8 May 2023 13:56").
func renderTime(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.UTC().Format("2 January 2006 15:04")
}
