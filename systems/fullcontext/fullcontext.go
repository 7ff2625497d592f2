// Package fullcontext is the upper-bound baseline: the answer model reads
// the whole conversation, session by session with each session's date. It
// makes no model calls and ignores the budget (that is its point).
package fullcontext

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/turns"
)

func init() {
	systems.Register(systems.Spec{
		Name:         "fullcontext",
		Description:  "the whole conversation, session by session with session dates; no retrieval, budget ignored",
		Defaults:     membench.Options{},
		NoEmbeddings: true,
		New:          func(systems.Env) (systems.System, error) { return &System{}, nil },
	})
}

// System holds the rendered conversation; the context is the same for every
// question, so it is built once at Ingest.
type System struct {
	ctx *systems.Context
}

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	var items []membench.Item
	var b strings.Builder
	for i, sess := range conv.Sessions {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Session %d (%s):", i+1, SessionDate(sess))
		for _, t := range sess.Turns {
			b.WriteString("\n")
			if t.Speaker != "" {
				b.WriteString(t.Speaker)
				b.WriteString(": ")
			}
			b.WriteString(strings.ReplaceAll(t.Text, "\n", " "))
			items = append(items, turns.TurnItem(t, 0))
		}
	}
	r := b.String()
	s.ctx = &systems.Context{Items: items, Rendered: r, Tokens: tokens.Count(r)}
	return membench.BuildStats{Counts: map[string]int{"turns": len(items), "sessions": len(conv.Sessions)}}, nil
}

// Retrieve returns the whole conversation whatever the question and budget.
func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.ctx == nil {
		return nil, errors.New("fullcontext: Retrieve called before Ingest")
	}
	c := *s.ctx // the harness may annotate its copy
	return &c, nil
}

// SessionDate prefers the parsed time, then the dataset's own string.
func SessionDate(s *datasets.Session) string {
	switch {
	case !s.Time.IsZero():
		return s.Time.Format("2006-01-02 15:04")
	case s.RawTime != "":
		return s.RawTime
	}
	return "date unknown"
}
