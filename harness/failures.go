package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// stageError says in which stage of a question an error happened.
type stageError struct {
	stage string // retrieve, answer or judge
	err   error
}

func (e *stageError) Error() string { return e.stage + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

func atStage(stage string, err error) error {
	if err == nil {
		return nil
	}
	return &stageError{stage: stage, err: err}
}

// questionFailed records err as the question's failure and returns nil when
// it is a fault of a reply (llm.ErrBadReply: a model's reply the retry
// layer already retried, or an adapter's reply over its size limit): the
// run goes on without the question. Any other error
// (and any error after cancellation) is returned, and stops the run.
func (p *Prepared) questionFailed(ctx context.Context, conv *datasets.Conversation, q *datasets.Question, err error, rec *runlog.Recorder) error {
	if ctx.Err() != nil || !errors.Is(err, llm.ErrBadReply) {
		return err
	}
	stage := "answer"
	var se *stageError
	if errors.As(err, &se) {
		stage, err = se.stage, se.err
	}
	f := runlog.Failure{QuestionID: q.ID, ConversationID: conv.ID, System: p.Config.System, Stage: stage, Reason: err.Error(), At: time.Now().UTC()}
	if werr := rec.Failure(f); werr != nil {
		return errors.Join(err, werr)
	}
	p.failMu.Lock()
	p.failed = append(p.failed, f)
	p.failMu.Unlock()
	return nil
}

// failures is the error (exit 1) for the questions that failed in this
// attempt, recorded in failures.jsonl so a rerun retries only those; nil
// when none did.
func (p *Prepared) failures(total int) error {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	if len(p.failed) == 0 {
		return nil
	}
	fs := slices.SortedFunc(slices.Values(p.failed), func(a, b runlog.Failure) int { return strings.Compare(a.QuestionID, b.QuestionID) })
	return &runlog.QuestionsFailedError{Dir: p.Dir, Total: total, Failed: fs}
}
