package turns

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
)

// testConv is a small two-session conversation with distinct topics.
func testConv() *datasets.Conversation {
	d1 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	d2 := time.Date(2023, 6, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id, sp, text string, at time.Time) *datasets.Turn {
		return &datasets.Turn{ID: id, Speaker: sp, Text: text, Time: at}
	}
	return &datasets.Conversation{
		ID:       "conv-test",
		Speakers: []string{"Caroline", "Melanie"},
		Sessions: []*datasets.Session{
			{ID: "session_1", Time: d1, Turns: []*datasets.Turn{
				turn("D1:1", "Caroline", "I went to the LGBTQ support group yesterday.", d1),
				turn("D1:2", "Melanie", "That sounds great. I painted a sunrise over the lake last week.", d1.Add(time.Minute)),
				turn("D1:3", "Caroline", "I want to study counseling and mental health.", d1.Add(2*time.Minute)),
				turn("D1:4", "Melanie", "My kids love the beach camping trips.", d1.Add(3*time.Minute)),
			}},
			{ID: "session_2", Time: d2, Turns: []*datasets.Turn{
				turn("D2:1", "Melanie", "We went camping at the beach with the kids again.", d2),
				turn("D2:2", "Caroline", "I adopted a puppy named Oscar.", d2.Add(time.Minute)),
				turn("D2:3", "Melanie", "Oscar is a lovely name for a puppy.", d2.Add(2*time.Minute)),
			}},
		},
	}
}

func newSys(t *testing.T, name string, opts membench.Options) systems.System {
	t.Helper()
	spec, err := systems.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(systems.Env{Embedder: embedder.NewHashed(512), Options: opts, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), testConv()); err != nil {
		t.Fatal(err)
	}
	return s
}

func ids(items []membench.Item) string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return strings.Join(out, ",")
}

func TestCosineTopKAndRendering(t *testing.T) {
	s := newSys(t, "turns-cosine", membench.Options{"k": "3"})
	q := &datasets.Question{ID: "q1", Text: "What is the name of the puppy?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 3 {
		t.Fatalf("got %d items, want k=3: %s", len(c.Items), ids(c.Items))
	}
	// Both puppy turns must be retrieved, and rendered chronologically.
	got := ids(c.Items)
	if !strings.Contains(got, "D2:2,D2:3") {
		t.Errorf("items %s: want D2:2 then D2:3 (time order)", got)
	}
	for i := 1; i < len(c.Items); i++ {
		if c.Items[i].Time.Before(c.Items[i-1].Time) {
			t.Errorf("order=time but item %d is earlier than item %d", i, i-1)
		}
	}
	want := "[2023-06-01 09:01] Caroline: I adopted a puppy named Oscar."
	if !strings.Contains(c.Rendered, want) {
		t.Errorf("rendered context lacks %q:\n%s", want, c.Rendered)
	}
	if n := strings.Count(c.Rendered, "\n") + 1; n != 3 {
		t.Errorf("rendered %d lines, want 3", n)
	}
	if c.Tokens != tokens.Count(c.Rendered) || c.Tokens == 0 {
		t.Errorf("Tokens=%d, want tokens.Count(Rendered)=%d", c.Tokens, tokens.Count(c.Rendered))
	}
	for _, it := range c.Items {
		if len(it.Sources) != 1 || it.Sources[0] != it.ID || it.Speaker == "" || it.Time.IsZero() {
			t.Errorf("item %+v: want Sources=[id], speaker and time set", it)
		}
	}
	if c.Items[1].Score <= 0 || c.Items[2].Score <= 0 {
		t.Errorf("puppy turns should carry positive cosine scores: %+v", c.Items)
	}
}

func TestCosineScoreOrderAndBudgetK(t *testing.T) {
	s := newSys(t, "turns-cosine", membench.Options{"order": "score"})
	q := &datasets.Question{ID: "q2", Text: "Where did Melanie go camping with the kids?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 2 {
		t.Fatalf("Budget.K=2 should override k=10; got %d items", len(c.Items))
	}
	if c.Items[0].Score < c.Items[1].Score {
		t.Errorf("order=score: scores %v then %v not descending", c.Items[0].Score, c.Items[1].Score)
	}
	if got := ids(c.Items); !strings.Contains(got, "D2:1") {
		t.Errorf("camping question retrieved %s, want D2:1 among them", got)
	}
	// The full conversation has 7 turns; k larger than that returns all.
	c, err = s.Retrieve(context.Background(), q, systems.Budget{K: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 7 {
		t.Errorf("K=50 on 7 turns: got %d items", len(c.Items))
	}
}

func TestCosineMaxTokens(t *testing.T) {
	s := newSys(t, "turns-cosine", nil)
	q := &datasets.Question{ID: "q3", Text: "puppy"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{K: 7, MaxTokens: 40})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tokens > 40 || len(c.Items) == 0 || len(c.Items) == 7 {
		t.Errorf("MaxTokens=40: got %d items, %d tokens", len(c.Items), c.Tokens)
	}
}

func TestCosineBadOptions(t *testing.T) {
	spec, _ := systems.Lookup("turns-cosine")
	for _, o := range []membench.Options{{"k": "0"}, {"k": "x"}, {"order": "random"}, {"kk": "3"}} {
		if _, err := spec.New(systems.Env{Embedder: embedder.NewHashed(64), Options: o}); err == nil {
			t.Errorf("options %v accepted", o)
		}
	}
	s, _ := spec.New(systems.Env{Embedder: embedder.NewHashed(64)})
	if _, err := s.Retrieve(context.Background(), &datasets.Question{Text: "x"}, systems.Budget{}); err == nil {
		t.Error("Retrieve before Ingest succeeded")
	}
}
