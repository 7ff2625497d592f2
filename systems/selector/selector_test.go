package selector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

// scripted is a fake decision model: ρ per candidate id, read back from the
// request's Inputs; it records the requests it saw.
type scripted struct {
	rho  map[string]float64 // candidate text -> P(yes)
	err  error
	mu   sync.Mutex
	seen []llm.DecideRequest
}

func (s *scripted) ID() membench.ModelID { return membench.ModelID{Backend: "fake", Model: "scripted"} }
func (s *scripted) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("not used")
}
func (s *scripted) Decide(_ context.Context, req llm.DecideRequest) (llm.DecideResponse, error) {
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	if s.err != nil {
		return llm.DecideResponse{}, s.err
	}
	in := req.Inputs.(RelevanceInput)
	p, ok := s.rho[in.Candidate]
	if !ok {
		return llm.DecideResponse{}, fmt.Errorf("unscripted candidate %q", in.Candidate)
	}
	return llm.DecideResponse{Probs: map[string]float64{"yes": p, "no": 1 - p}}, nil
}

// cands makes candidates c0..c(n-1) in cosine order; text equals the id.
func cands(n int) []membench.Item {
	out := make([]membench.Item, n)
	for i := range out {
		id := fmt.Sprintf("c%d", i)
		out[i] = membench.Item{ID: id, Text: id, Score: 1 - float64(i)/100}
	}
	return out
}

func idsOf(items []membench.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

var q = &datasets.Question{ID: "q", Text: "When did Caroline adopt the puppy?"}

func TestSelectThresholdFloorOrder(t *testing.T) {
	m := &scripted{rho: map[string]float64{
		"c0": 0.1, "c1": 0.9, "c2": 0.5, // exactly the threshold: not passing
		"c3": 0.2, "c4": 0.7, "c5": 0.95, "c6": 0.7, "c7": 0.51,
	}}
	cfg := Config{N: 8, Floor: 3, Threshold: 0.5, K: 0, Concurrency: 3}
	sel, notes, err := Select(context.Background(), m, q, cands(8), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Passing by ρ desc (c4 and c6 tie at 0.7: cosine rank decides), then
	// floor c0..c2 minus the already passing c1.
	want := []string{"c5", "c1", "c4", "c6", "c7", "c0", "c2"}
	if got := idsOf(sel); !reflect.DeepEqual(got, want) {
		t.Fatalf("selected %v, want %v", got, want)
	}
	if sel[0].Score != 0.95 || sel[5].Score != 0.1 {
		t.Errorf("scores should be ρ: %v %v", sel[0].Score, sel[5].Score)
	}
	if notes.Passed != 5 || notes.FloorAdded != 2 || notes.Judged != 8 || notes.Returned != 7 {
		t.Errorf("notes %+v", notes)
	}
	if notes.Rho["c2"] != 0.5 || len(notes.Rho) != 8 {
		t.Errorf("rho notes %v", notes.Rho)
	}
	if len(m.seen) != 8 {
		t.Errorf("%d requests, want one per candidate", len(m.seen))
	}
	for _, r := range m.seen {
		if r.Task != "relevance" || r.Stage != membench.StageRetrieve || r.Label != "relevance" || !reflect.DeepEqual(r.Choices, []string{"yes", "no"}) {
			t.Errorf("request tags %q %q %q %v", r.Task, r.Stage, r.Label, r.Choices)
		}
	}
}

func TestSelectKCutAndNLimit(t *testing.T) {
	m := &scripted{rho: map[string]float64{"c0": 0.2, "c1": 0.3, "c2": 0.8, "c3": 0.6, "c4": 0.99}}
	// N=4 keeps c4 out entirely; K=3 cuts after two passing + one floor.
	sel, notes, err := Select(context.Background(), m, q, cands(5), Config{N: 4, Floor: 2, Threshold: 0.5, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := idsOf(sel), []string{"c2", "c3", "c0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("selected %v, want %v", got, want)
	}
	if len(m.seen) != 4 || notes.Judged != 4 || notes.Returned != 3 || notes.FloorAdded != 2 {
		t.Errorf("requests %d, notes %+v", len(m.seen), notes)
	}
}

func TestSelectFloorAllPassingNoDuplicates(t *testing.T) {
	m := &scripted{rho: map[string]float64{"c0": 0.6, "c1": 0.9, "c2": 0.1}}
	sel, notes, err := Select(context.Background(), m, q, cands(3), Config{Floor: 2, Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := idsOf(sel), []string{"c1", "c0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("selected %v, want %v (floor already inside the passing set)", got, want)
	}
	if notes.FloorAdded != 0 {
		t.Errorf("floor added %d", notes.FloorAdded)
	}
}

func TestSelectEqualRhoKeepsCosineRank(t *testing.T) {
	rho := map[string]float64{}
	for i := 0; i < 20; i++ {
		rho[fmt.Sprintf("c%d", i)] = 0.8
	}
	want := idsOf(cands(20))
	for rep := 0; rep < 5; rep++ { // concurrency must not change the order
		sel, _, err := Select(context.Background(), &scripted{rho: rho}, q, cands(20), Config{Concurrency: 8, Threshold: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if got := idsOf(sel); !reflect.DeepEqual(got, want) {
			t.Fatalf("equal ρ: got %v, want cosine order", got)
		}
	}
}

func TestSelectNoLogprobsPassesUp(t *testing.T) {
	_, _, err := Select(context.Background(), &scripted{err: llm.ErrNoLogprobs}, q, cands(3), DefaultConfig())
	if !errors.Is(err, llm.ErrNoLogprobs) {
		t.Fatalf("error %v does not wrap ErrNoLogprobs", err)
	}
	if !strings.Contains(err.Error(), "question q") {
		t.Errorf("error lacks context: %v", err)
	}
}

func TestRelevancePromptRenders(t *testing.T) {
	m := &scripted{rho: map[string]float64{"I adopted a puppy.": 0.9}}
	at := time.Date(2023, 6, 1, 9, 1, 0, 0, time.UTC)
	it := membench.Item{ID: "D2:2", Text: "I adopted a puppy.", Speaker: "Caroline", Time: at}
	if _, _, err := Select(context.Background(), m, q, []membench.Item{it}, DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	user := m.seen[0].Messages[len(m.seen[0].Messages)-1].Content
	for _, want := range []string{q.Text, "(dated 2023-06-01 09:01)", "Caroline: I adopted a puppy.", "yes or no"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
}

func TestOfflineHeuristic(t *testing.T) {
	base := RelevanceInput{Question: "When did Caroline adopt the puppy?", Speaker: "Melanie"}
	with := func(text string) RelevanceInput { in := base; in.Candidate = text; return in }
	on := Prob(with("Caroline adopted a puppy last week."))
	off := Prob(with("I painted a sunrise over the lake."))
	half := Prob(with("Caroline loves dogs."))
	if !(on > 0.5 && off < 0.5 && on > half && half > off) {
		t.Errorf("ρ on-topic %.3f, partial %.3f, off-topic %.3f: want on > 0.5 > off and ordered", on, half, off)
	}
	// The time cue only helps time questions.
	a := Prob(with("Caroline adopted a puppy in May."))
	b := Prob(with("Caroline adopted a puppy in the park."))
	if a <= b {
		t.Errorf("time cue: %.3f <= %.3f", a, b)
	}
	// Through the offline backend, probabilities sum to one.
	r, err := llm.NewOffline().Decide(context.Background(), llm.DecideRequest{Task: Task, Inputs: with("puppy"), Choices: []string{"yes", "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Probs["yes"] + r.Probs["no"]; s < 0.999 || s > 1.001 {
		t.Errorf("probs %v", r.Probs)
	}
	if got := ContentWords("What paintings did Melanie's kids paint?"); !reflect.DeepEqual(got, []string{"paint", "melani", "kid"}) {
		t.Errorf("content words %v", got)
	}
}
