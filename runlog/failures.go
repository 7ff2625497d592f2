package runlog

import "time"

// FailuresFile lists questions a run gave up on (failures.jsonl).
const FailuresFile = "failures.jsonl"

// Failure is one line of failures.jsonl: a question the run could not
// finish because a model reply stayed unusable after its bounded retries
// (no choices, a non-JSON body, no logprobs). The run goes on without it;
// a rerun of the same command retries it, and a later answer (and
// judgments) supersede the line.
type Failure struct {
	QuestionID     string    `json:"question_id"`
	ConversationID string    `json:"conversation_id"`
	System         string    `json:"system"`
	Stage          string    `json:"stage"` // retrieve, answer or judge
	Reason         string    `json:"reason"`
	At             time.Time `json:"at"`
}
