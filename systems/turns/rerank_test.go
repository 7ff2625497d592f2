package turns

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
)

// fakeModel scripts decisions (ρ by candidate text) and one chat reply.
type fakeModel struct {
	rho   map[string]float64
	reply string
	mu    sync.Mutex
	chats []llm.Request
}

func (f *fakeModel) ID() membench.ModelID {
	return membench.ModelID{Backend: "fake", Model: "scripted"}
}
func (f *fakeModel) Chat(_ context.Context, r llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.chats = append(f.chats, r)
	f.mu.Unlock()
	return llm.Response{Text: f.reply}, nil
}
func (f *fakeModel) Decide(_ context.Context, r llm.DecideRequest) (llm.DecideResponse, error) {
	in := r.Inputs.(selector.RelevanceInput)
	p := f.rho[in.Candidate] // unscripted: 0
	return llm.DecideResponse{Probs: map[string]float64{"yes": p, "no": 1 - p}}, nil
}

func newWith(t *testing.T, name string, m llm.Model, opts membench.Options) systems.System {
	t.Helper()
	spec, err := systems.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(systems.Env{Embedder: embedder.NewHashed(512), Decide: m, Build: m, Options: opts, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), testConv()); err != nil {
		t.Fatal(err)
	}
	return s
}

var puppyQ = &datasets.Question{ID: "q-puppy", Text: "What is the name of Caroline's puppy?"}

func TestRerankWithScriptedDecisions(t *testing.T) {
	m := &fakeModel{rho: map[string]float64{
		"I want to study counseling and mental health.": 0.9,
		"I adopted a puppy named Oscar.":                0.8,
		"Oscar is a lovely name for a puppy.":           0.4,
	}}
	s := newWith(t, "turns-rerank", m, membench.Options{"n": "5", "floor": "1", "order": "score"})
	c, err := s.Retrieve(context.Background(), puppyQ, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Candidates) != 5 {
		t.Fatalf("%d candidates, want n=5", len(c.Candidates))
	}
	if c.Candidates[0].ID != "D2:2" && c.Candidates[0].ID != "D2:3" {
		t.Errorf("cosine top candidate %s, want a puppy turn", c.Candidates[0].ID)
	}
	// Passing: D1:3 (0.9) only if it is among the 5 candidates, then D2:2;
	// the floor adds the cosine top 1 if not already there.
	want := []string{}
	inCands := map[string]bool{}
	for _, it := range c.Candidates {
		inCands[it.ID] = true
	}
	if inCands["D1:3"] {
		want = append(want, "D1:3")
	}
	want = append(want, "D2:2")
	if top := c.Candidates[0].ID; top != "D2:2" {
		want = append(want, top)
	}
	if got := strings.Split(ids(c.Items), ","); !reflect.DeepEqual(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}
	if c.Notes["passed"] != len(want)-boolInt(c.Candidates[0].ID != "D2:2") {
		t.Errorf("notes %v", c.Notes)
	}
	if rho, ok := c.Notes["rho"].(map[string]float64); !ok || len(rho) != 5 || rho["D2:2"] != 0.8 {
		t.Errorf("rho notes %v", c.Notes["rho"])
	}
	// Budget.K overrides k.
	c, err = s.Retrieve(context.Background(), puppyQ, systems.Budget{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 1 || c.Items[0].ID != want[0] {
		t.Errorf("K=1: %s", ids(c.Items))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRerankOffline(t *testing.T) {
	s := newWith(t, "turns-rerank", llm.NewOffline(), membench.Options{"floor": "0"})
	c, err := s.Retrieve(context.Background(), puppyQ, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(c.Items)
	if !strings.Contains(got, "D2:2") || strings.Contains(got, "D1:2") {
		t.Errorf("offline rerank kept %s: want the puppy turn, not the painting one", got)
	}
	if len(c.Candidates) != 7 || c.Tokens == 0 {
		t.Errorf("candidates %d tokens %d", len(c.Candidates), c.Tokens)
	}
}

func TestRerankNoLogprobs(t *testing.T) {
	s := newWith(t, "turns-rerank", &noLogprobs{}, nil)
	_, err := s.Retrieve(context.Background(), puppyQ, systems.Budget{})
	if !errors.Is(err, llm.ErrNoLogprobs) {
		t.Fatalf("error %v should wrap ErrNoLogprobs", err)
	}
}

type noLogprobs struct{ fakeModel }

func (*noLogprobs) Decide(context.Context, llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, llm.ErrNoLogprobs
}

func TestParseOrder(t *testing.T) {
	got := ParseOrder("3, 3, 99, x, 1", 5)
	if !reflect.DeepEqual(got, []int{3, 1}) {
		t.Fatalf("ParseOrder = %v, want [3 1]", got)
	}
	full, added := completeOrder(got, 5)
	if !reflect.DeepEqual(full, []int{3, 1, 2, 4, 5}) || added != 3 {
		t.Errorf("completeOrder = %v, %d", full, added)
	}
	if got := ParseOrder("Ranking: [2, 0, -1, 4]\n", 4); !reflect.DeepEqual(got, []int{2, 1, 4}) {
		// "-1" reads as 1: a stray dash is not worth a special case.
		t.Errorf("ParseOrder with 0 and -1 = %v", got)
	}
	if got := ParseOrder("no idea", 4); len(got) != 0 {
		t.Errorf("ParseOrder(junk) = %v", got)
	}
}

func TestListwiseWithScriptedReply(t *testing.T) {
	m := &fakeModel{reply: "3, 3, 99, x, 1"}
	s := newWith(t, "turns-llm", m, membench.Options{"k": "3", "order": "score"})
	c, err := s.Retrieve(context.Background(), puppyQ, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	cd := c.Candidates
	if len(cd) != 7 {
		t.Fatalf("%d candidates", len(cd))
	}
	want := []string{cd[2].ID, cd[0].ID, cd[1].ID}
	if got := strings.Split(ids(c.Items), ","); !reflect.DeepEqual(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}
	if c.Notes["fallback"] != 5 || c.Notes["fallback_used"] != 1 {
		t.Errorf("notes %v", c.Notes)
	}
	r := m.chats[0]
	if r.Task != "listwise" || r.Stage != membench.StageRetrieve || r.Label != "listwise" {
		t.Errorf("request tags %q %q %q", r.Task, r.Stage, r.Label)
	}
	user := r.Messages[len(r.Messages)-1].Content
	if !strings.Contains(user, "1. "+Line(cd[0])) || !strings.Contains(user, "7. "+Line(cd[6])) {
		t.Errorf("prompt does not number the candidates:\n%s", user)
	}
}

func TestListwiseOffline(t *testing.T) {
	s := newWith(t, "turns-llm", llm.NewOffline(), membench.Options{"k": "2", "order": "score"})
	q := &datasets.Question{ID: "q", Text: "Where did Melanie go camping with her kids?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.Items); got != "D2:1,D1:4" {
		t.Errorf("offline listwise chose %s, want D2:1,D1:4 (both camping turns, best overlap first)", got)
	}
	if c.Notes["fallback"] != 0 {
		t.Errorf("offline ranks every candidate, fallback %v", c.Notes["fallback"])
	}
}
