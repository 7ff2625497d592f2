// Package adapter benchmarks memory systems that live outside membench: a
// service speaking a small JSON protocol over HTTP (system "http") or a
// child process speaking it as JSON lines (system "exec"). The protocol has
// three messages, reset, ingest (one per session, in order) and retrieve
// (one per question); docs/adapter.md describes it with examples.
package adapter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/turns"
)

// transport carries one message to the service and returns the raw result.
type transport interface {
	call(ctx context.Context, method string, params any, what string) ([]byte, error)
	// info is what the service says about itself, nil if it says nothing.
	info(ctx context.Context) map[string]any
	// describe names the service for logs: the URL without credentials, or the command.
	describe() string
	close() error
}

// Role is the meter role of the work a service reports about itself.
const Role = "service"

// System is one conversation held by an outside memory service.
type System struct {
	name   string
	t      transport
	k      int
	order  string
	meter  serviceMeter
	convID string
}

// serviceMeter is the part of the harness's meter that takes a service's
// own usage.
type serviceMeter interface {
	AddCalls(role string, stage membench.Stage, label string, calls int, u membench.Usage, d time.Duration)
}

// common reads the options both adapters share last, after the
// transport's own in r.
func common(name string, env systems.Env, t transport, r *systems.Reader) (*System, error) {
	k := r.Min("k", 10, 1)
	order := r.String("order", turns.OrderScore, turns.OrderScore, turns.OrderTime)
	if r.Err != nil {
		return nil, r.Err
	}
	s := &System{name: name, t: t, k: k, order: order}
	// The harness's meter takes the service's own usage; a meter without
	// AddCalls (tests) simply does not record it.
	s.meter, _ = env.Meter.(serviceMeter)
	return s, nil
}

// replyLimit reads max_reply_mb, the largest reply read into memory, in bytes.
func replyLimit(r *systems.Reader) int {
	n := r.Int("max_reply_mb", defaultReplyMB)
	if n < 1 || n > 4096 {
		r.Failf("option max_reply_mb=%d: want a whole number of megabytes from 1 to 4096", n)
	}
	return n << 20
}

const defaultReplyMB = 64

// tooLarge is the failure of a request whose reply passed the limit. It is
// an unusable reply (llm.ErrBadReply), so a retrieve that gets one fails
// only its question: the run records it and goes on.
func tooLarge(request string, limit int) error {
	return fmt.Errorf("%s: reply larger than %d MB (option max_reply_mb); have the service return fewer or shorter items (%w)", request, limit>>20, llm.ErrBadReply)
}

// timeout reads the timeout option (a duration, which Options has no getter for).
func timeout(r *systems.Reader, o membench.Options) time.Duration {
	d, err := time.ParseDuration(o["timeout"])
	if err != nil || d <= 0 {
		r.Failf("option timeout=%q: want a positive duration such as 60s or 2m", o["timeout"])
	}
	return d
}

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	s.convID = conv.ID
	what := "conversation " + conv.ID
	st := membench.BuildStats{Counts: map[string]int{}, Notes: map[string]any{"service": s.t.describe()}}
	if info := s.t.info(ctx); info != nil {
		st.Notes["service_info"] = info
	}
	body, err := s.t.call(ctx, "reset", ResetParams{ConversationID: conv.ID}, what)
	if err != nil {
		return st, err
	}
	if _, err := ParseIngest(body); err != nil {
		return st, fmt.Errorf("%s: reset for %s: %w", s.t.describe(), what, err)
	}
	for _, sess := range conv.Sessions {
		p := IngestParams{ConversationID: conv.ID, SessionID: sess.ID, SessionTime: TimeString(sess.Time), Turns: make([]Turn, len(sess.Turns))}
		for i, t := range sess.Turns {
			p.Turns[i] = Turn{ID: t.ID, Speaker: t.Speaker, Text: t.Text, Time: TimeString(t.Time)}
		}
		w := fmt.Sprintf("%s, session %s", what, sess.ID)
		start := time.Now()
		body, err := s.t.call(ctx, "ingest", p, w)
		if err != nil {
			return st, err
		}
		u, err := ParseIngest(body)
		if err != nil {
			return st, fmt.Errorf("%s: ingest for %s: %w", s.t.describe(), w, err)
		}
		s.record(membench.StageBuild, "ingest", u, time.Since(start))
		held, err := ParseMemories(body)
		if err != nil {
			return st, fmt.Errorf("%s: ingest for %s: %w", s.t.describe(), w, err)
		}
		if held != nil {
			st.SetEntries(*held) // the last session's figure is the memory's
		}
		st.Counts["sessions"]++
		st.Counts["turns"] += len(sess.Turns)
		if u != nil {
			st.Counts["service_calls"] += u.Calls
		}
	}
	return st, nil
}

func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.convID == "" {
		return nil, errors.New(s.name + ": Retrieve called before Ingest")
	}
	k := b.KOr(s.k)
	what := "question " + q.ID
	start := time.Now()
	body, err := s.t.call(ctx, "retrieve", RetrieveParams{
		ConversationID: s.convID, QuestionID: q.ID, Question: q.Text, QuestionTime: TimeString(q.AskedAt), K: k,
	}, what)
	if err != nil {
		return nil, err
	}
	r, err := ParseRetrieve(body)
	if err != nil {
		return nil, fmt.Errorf("%s: retrieve for %s: %w", s.t.describe(), what, err)
	}
	s.record(membench.StageRetrieve, "retrieve", r.Usage, time.Since(start))
	items := make([]membench.Item, len(r.Items))
	for i, it := range r.Items {
		items[i] = membench.Item{ID: it.ID, Kind: "memory", Text: it.Text, Time: it.Time, Speaker: it.Speaker, Sources: it.Sources, Score: it.Score}
	}
	notes := map[string]any{"returned": len(items)}
	var c *systems.Context
	if r.Context != nil {
		// The service rendered its own context: read as given.
		c = &systems.Context{Items: items, Rendered: *r.Context, Tokens: tokens.Count(*r.Context)}
		notes["context"] = "service"
	} else {
		// Rendered as membench's own systems are, within the same budget.
		if len(items) > k {
			notes["cut_from"] = len(items)
			items = items[:k]
		}
		c = turns.MakeContext(turns.FitBudget(items, b.MaxTokens), s.order)
		notes["context"] = "membench"
	}
	c.Notes = notes
	return c, nil
}

// record meters the usage a service reported.
func (s *System) record(stage membench.Stage, label string, u *Usage, d time.Duration) {
	if s.meter == nil || u == nil {
		return
	}
	s.meter.AddCalls(Role, stage, label, u.Calls, membench.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}, d)
}

// Close ends the service's side of the conversation (the exec child).
func (s *System) Close() error { return s.t.close() }
