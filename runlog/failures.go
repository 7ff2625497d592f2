package runlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// FailuresFile lists questions a run gave up on (failures.jsonl).
const FailuresFile = "failures.jsonl"

// Failure is one line of failures.jsonl: a question the run could not
// finish because a model reply stayed unusable after its bounded retries
// (no choices, a non-JSON body, no logprobs). The run goes on without it;
// a rerun of the same command retries it, and a later answer (and
// judgments) supersede the line. `membench judge` writes the same lines
// for the verdicts it could not get, with the judge's name.
type Failure struct {
	QuestionID     string    `json:"question_id"`
	ConversationID string    `json:"conversation_id"`
	System         string    `json:"system"`
	Stage          string    `json:"stage"`           // retrieve, answer or judge
	Judge          string    `json:"judge,omitempty"` // stage judge of `membench judge`: the judge that got no usable reply
	Reason         string    `json:"reason"`
	At             time.Time `json:"at"`
}

// QuestionsFailedError ends a pass (run, judge) in which some questions
// failed (exit 1): each is recorded in failures.jsonl, and a rerun of the
// same command retries only those.
type QuestionsFailedError struct {
	Dir    string
	Total  int // questions this attempt set out to finish
	Failed []Failure
}

func (e *QuestionsFailedError) Error() string {
	var b strings.Builder
	// A question two judges failed on is one question.
	qs := map[string]bool{}
	for _, f := range e.Failed {
		qs[f.QuestionID] = true
	}
	fmt.Fprintf(&b, "%d of %d questions failed (recorded in %s); the others are finished. Rerun the same command to retry only these:",
		len(qs), e.Total, filepath.Join(e.Dir, FailuresFile))
	for i, f := range e.Failed {
		if i == 20 {
			fmt.Fprintf(&b, "\n  ... and %d more (see the file)", len(e.Failed)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s (%s): %s", f.QuestionID, f.Stage, f.Reason)
	}
	return b.String()
}
