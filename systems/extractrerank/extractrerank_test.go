package extractrerank

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
)

// decider scripts ρ by words in the candidate text and records what it saw.
type decider struct {
	mu   sync.Mutex
	seen []string
}

func (d *decider) ID() membench.ModelID { return membench.ModelID{Backend: "test", Model: "decider"} }
func (d *decider) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("not used")
}
func (d *decider) Decide(_ context.Context, req llm.DecideRequest) (llm.DecideResponse, error) {
	in := req.Inputs.(selector.RelevanceInput)
	d.mu.Lock()
	d.seen = append(d.seen, in.Candidate)
	d.mu.Unlock()
	return llm.DecideResponse{Probs: map[string]float64{"yes": rho(in.Candidate), "no": 1 - rho(in.Candidate)}}, nil
}

func rho(text string) float64 {
	switch {
	case strings.Contains(text, "sunrise"):
		return 0.9
	case strings.Contains(text, "lake"):
		return 0.7
	}
	return 0.1
}

func conv() *datasets.Conversation {
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	texts := [][2]string{
		{"Melanie", "I painted a sunrise last week. My kids loved the colours."},
		{"Caroline", "I went to a support group about painting therapy."},
		{"Melanie", "We camped by the lake with the kids in the mountains."},
		{"Caroline", "I am painting a mural of the lake for the centre."},
		{"Melanie", "I signed up for a pottery class on Sundays."},
	}
	s := &datasets.Session{ID: "s1", Time: t0}
	for i, x := range texts {
		s.Turns = append(s.Turns, &datasets.Turn{ID: fmt.Sprintf("D1:%d", i+1), Speaker: x[0], Text: x[1], Time: t0.Add(time.Duration(i) * time.Hour)})
	}
	return &datasets.Conversation{ID: "c", Speakers: []string{"Melanie", "Caroline"}, Sessions: []*datasets.Session{s}}
}

func TestFactsGoThroughSelector(t *testing.T) {
	spec, err := systems.Lookup("extract-rerank")
	if err != nil {
		t.Fatal(err)
	}
	d := &decider{}
	sys, err := spec.New(systems.Env{Build: llm.NewOffline(), Decide: d, Embedder: embedder.NewHashed(512), Concurrency: 2,
		Options: membench.Options{"n": "4", "floor": "1", "k": "3", "order": "score"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sys.Ingest(context.Background(), conv()); err != nil {
		t.Fatal(err)
	}
	facts := sys.(*System).Store().Live()
	if len(facts) < 5 {
		t.Fatalf("too few facts for the test: %+v", facts)
	}
	q := &datasets.Question{ID: "q", Text: "What did Melanie paint at the lake?"}
	c, err := sys.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	// Candidates: the cosine top n=4 live facts.
	v, _ := embedder.NewHashed(512).Embed(context.Background(), []string{q.Text})
	hits := sys.(*System).Store().Search(v[0], 4)
	if len(c.Candidates) != 4 {
		t.Fatalf("candidates %+v", c.Candidates)
	}
	var candTexts []string
	for i, h := range hits {
		if c.Candidates[i].ID != h.ID || c.Candidates[i].Kind != "fact" || len(c.Candidates[i].Sources) == 0 {
			t.Fatalf("candidate %d = %+v, want fact %s", i, c.Candidates[i], h.ID)
		}
		candTexts = append(candTexts, h.Text)
	}
	seen := append([]string(nil), d.seen...)
	sort.Strings(seen)
	sort.Strings(candTexts)
	if !reflect.DeepEqual(seen, candTexts) {
		t.Fatalf("decision model saw %q, want the candidate facts %q", seen, candTexts)
	}
	// Expected selection: ρ>0.5 by ρ (ties by cosine rank), then the cosine top-1 floor, first 3.
	var pass []int
	for i, it := range c.Candidates {
		if rho(it.Text) > 0.5 {
			pass = append(pass, i)
		}
	}
	sort.SliceStable(pass, func(a, b int) bool { return rho(c.Candidates[pass[a]].Text) > rho(c.Candidates[pass[b]].Text) })
	want := pass
	if !contains(pass, 0) {
		want = append(want, 0)
	}
	if len(want) > 3 {
		want = want[:3]
	}
	var wantIDs, gotIDs []string
	for _, i := range want {
		wantIDs = append(wantIDs, c.Candidates[i].ID)
	}
	for _, it := range c.Items {
		gotIDs = append(gotIDs, it.ID)
	}
	if len(pass) == 0 || !reflect.DeepEqual(gotIDs, wantIDs) {
		t.Fatalf("selected %v, want %v (pass %v)", gotIDs, wantIDs, pass)
	}
	if c.Items[0].Score != 0.9 || !strings.Contains(c.Rendered, "Memories:\n- [8 May 2023]") || c.Tokens == 0 {
		t.Fatalf("context %+v", c)
	}
	if c.Notes["judged"] != 4 {
		t.Fatalf("notes %v", c.Notes)
	}
	// Budget.K overrides k.
	c1, _ := sys.Retrieve(context.Background(), q, systems.Budget{K: 1})
	if len(c1.Items) != 1 || c1.Items[0].ID != wantIDs[0] {
		t.Fatalf("K=1: %+v", c1.Items)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestNeedsDecisionModel(t *testing.T) {
	spec, _ := systems.Lookup("extract-rerank")
	if _, err := spec.New(systems.Env{Build: llm.NewOffline(), Embedder: embedder.NewHashed(8)}); err == nil || !strings.Contains(err.Error(), "decide-model") {
		t.Fatalf("err = %v", err)
	}
	if _, err := spec.New(systems.Env{Build: llm.NewOffline(), Decide: &decider{}, Embedder: embedder.NewHashed(8), Options: membench.Options{"mode": "combined"}}); err == nil {
		t.Fatal("unknown option accepted")
	}
}
