package turnsgraph

import (
	"context"
	"encoding/json"
	"reflect"
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

func testConv() *datasets.Conversation {
	d1 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	d2 := time.Date(2023, 6, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id, sp, text string, at time.Time) *datasets.Turn {
		return &datasets.Turn{ID: id, Speaker: sp, Text: text, Time: at}
	}
	return &datasets.Conversation{
		ID: "conv-test", Speakers: []string{"Caroline", "Melanie"},
		Sessions: []*datasets.Session{
			{ID: "session_1", Time: d1, Turns: []*datasets.Turn{
				turn("D1:1", "Caroline", "I went to the LGBTQ support group yesterday.", d1),
				turn("D1:2", "Melanie", "Which support group was it? Was the group helpful?", d1.Add(time.Minute)),
				turn("D1:3", "Caroline", "The support group was really helpful, everyone was kind.", d1.Add(2*time.Minute)),
				turn("D1:4", "Melanie", "My kids love the beach camping trips.", d1.Add(3*time.Minute)),
			}},
			{ID: "session_2", Time: d2, Turns: []*datasets.Turn{
				turn("D2:1", "Melanie", "We went camping at the beach with the kids again.", d2),
				turn("D2:2", "Caroline", "I adopted a puppy named Oscar.", d2.Add(time.Minute)),
				turn("D2:3", "Melanie", "Oscar is a lovely name for a puppy.", d2.Add(2*time.Minute)),
				turn("D2:4", "Caroline", "I went back to the support group, it still helps me a lot.", d2.Add(3*time.Minute)),
			}},
		},
	}
}

func newSys(t *testing.T, m llm.Model, meter *llm.Meter, opts membench.Options) *System {
	t.Helper()
	env := systems.Env{Embedder: embedder.NewHashed(512), Decide: m, Options: opts, Concurrency: 3}
	if meter != nil {
		env.Meter = meter
	}
	s, err := New(env)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*System)
}

func TestOfflineBuildTypesEdgesAndMeters(t *testing.T) {
	meter := llm.NewMeter()
	s := newSys(t, llm.WithMeter(llm.NewOffline(), meter, "decide"), meter, membench.Options{"m": "3"})
	st, err := s.Ingest(context.Background(), testConv())
	if err != nil {
		t.Fatal(err)
	}
	// Turn i has min(i, 3) earlier candidates: 0+1+2+3*5 = 18 decisions.
	if st.Counts["edge_decisions"] != 18 {
		t.Fatalf("counts %v, want 18 edge decisions", st.Counts)
	}
	if st.Counts["edges"]+st.Counts["edges_dropped"] != 18 || st.Counts["edges"] == 0 || st.Counts["edges_dropped"] == 0 {
		t.Fatalf("counts %v: want some edges kept and some dropped", st.Counts)
	}
	tally := meter.Total(membench.StageBuild)
	if tally.Calls != 18 || tally.InputTokens == 0 {
		t.Fatalf("build tally %+v, want 18 metered decisions", tally)
	}
	if n := len(st.TurnTokens); n != 8 || st.TurnTokens[7] != meter.TotalTokens(membench.StageBuild) || st.TurnTokens[0] != 0 {
		t.Fatalf("turn tokens %v", st.TurnTokens)
	}
	// The answer D1:3 -> question D1:2 (different speakers, "?") is typed answers.
	found := false
	for _, e := range s.Graph().Edges {
		if e.From == 2 && e.To == 1 {
			found = true
			if e.Type != Answers {
				t.Errorf("D1:3 -> D1:2 typed %s (%v), want answers", e.Type, e.Probs)
			}
		}
		if e.Weight <= 0.5 || e.Probs[Unrelated] >= 0.5 {
			t.Errorf("kept edge %+v should have P(unrelated) < 0.5", e)
		}
	}
	if !found {
		t.Errorf("no edge D1:3 -> D1:2 in %+v", s.Graph().Edges)
	}
}

func TestEdgeHeuristicTypes(t *testing.T) {
	base := EdgeInput{Old: "I started a new job at the bakery.", OldSpeaker: "Caroline", NewSpeaker: "Caroline", SameSession: true}
	upd := base
	upd.New = "I quit the job at the bakery now."
	p := EdgeProbs(upd)
	if bestType(p) != Updates || p[Unrelated] >= 0.5 {
		t.Errorf("update: %v", p)
	}
	fol := base
	fol.NewSpeaker, fol.SameSession, fol.New = "Melanie", false, "How is the bakery job going since you started?"
	if p := EdgeProbs(fol); bestType(p) != FollowsUp {
		t.Errorf("follow-up: %v", p)
	}
	off := base
	off.New = "The weather at the beach was sunny."
	if p := EdgeProbs(off); p[Unrelated] < 0.5 {
		t.Errorf("unrelated: %v", p)
	}
	var sum float64
	for _, v := range EdgeProbs(upd) {
		sum += v
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("probabilities sum to %v", sum)
	}
}

// counting wraps a model and counts retrieve-stage decisions.
type counting struct {
	llm.Model
	mu    sync.Mutex
	reads int
	rho   map[string]float64 // when set, frontier ρ by candidate text (else offline)
}

func (c *counting) Decide(ctx context.Context, r llm.DecideRequest) (llm.DecideResponse, error) {
	if r.Task == selector.Task {
		c.mu.Lock()
		c.reads++
		c.mu.Unlock()
		if c.rho != nil {
			p := c.rho[r.Inputs.(selector.RelevanceInput).Candidate]
			return llm.DecideResponse{Probs: map[string]float64{"yes": p, "no": 1 - p}}, nil
		}
	}
	return c.Model.Decide(ctx, r)
}

func TestReadWalksEdgesWithinBudget(t *testing.T) {
	m := &counting{Model: llm.NewOffline()}
	// One seed, so the other turns come only through edges.
	s := newSys(t, m, nil, membench.Options{"seeds": "2", "k": "3", "order": "score"})
	if _, err := s.Ingest(context.Background(), testConv()); err != nil {
		t.Fatal(err)
	}
	q := &datasets.Question{ID: "q1", Text: "Was the support group helpful to Caroline?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Notes["decision_calls"].(int)
	if calls < 2 || calls > 16 || calls != m.reads {
		t.Fatalf("decision calls %d (model saw %d), want 2..16 and equal", calls, m.reads)
	}
	if len(c.Items) != 3 {
		t.Fatalf("%d items, want k=3", len(c.Items))
	}
	ids := map[string]bool{}
	for _, it := range c.Items {
		ids[it.ID] = true
	}
	// The support-group turns reached along edges are read.
	if !ids["D1:3"] || !ids["D1:1"] {
		t.Errorf("items %v lack the support group turns; notes %v", c.Items, c.Notes)
	}
	if c.Notes["accepted"].(int) == 0 || len(c.Notes["via"].(map[string]string)) == 0 {
		t.Errorf("notes %v: want accepted turns reached via typed edges", c.Notes)
	}
	// Notes survive the JSON round trip into retrievals.jsonl.
	if _, err := json.Marshal(c.Notes); err != nil {
		t.Fatal(err)
	}
}

func TestReadBudgetBounds(t *testing.T) {
	// Every frontier turn accepted: the walk spends max_calls exactly.
	all := map[string]float64{}
	for _, tn := range testConv().AllTurns() {
		all[tn.Text] = 0.9
	}
	m := &counting{Model: llm.NewOffline(), rho: all}
	s := newSys(t, m, nil, membench.Options{"seeds": "1", "min_calls": "1", "max_calls": "1"})
	if _, err := s.Ingest(context.Background(), testConv()); err != nil {
		t.Fatal(err)
	}
	q := &datasets.Question{ID: "q1", Text: "Was the support group helpful?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Notes["decision_calls"] != 1 || c.Notes["stop"] != "budget spent" {
		t.Errorf("notes %v, want 1 call and the budget spent", c.Notes)
	}
	// Everything rejected, no edges at all, rounds of one: the walk still
	// makes the minimum 2 decisions before a rejected round stops it.
	m2 := &counting{Model: llm.NewOffline(), rho: map[string]float64{}}
	s2 := newSys(t, m2, nil, membench.Options{"seeds": "3", "m": "1", "width": "1", "order": "score"})
	conv := testConv()
	if _, err := s2.Ingest(context.Background(), conv); err != nil {
		t.Fatal(err)
	}
	s2.g = &Graph{adj: make([][]int, len(conv.AllTurns()))} // no edges at all
	c2, err := s2.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Notes["decision_calls"] != 2 || m2.reads != 2 {
		t.Errorf("edgeless graph: %v calls (model %d), want the minimum 2", c2.Notes["decision_calls"], m2.reads)
	}
	// The two judged (rejected) seeds rank after the unjudged third one.
	rho := c2.Notes["rho"].(map[string]float64)
	if len(c2.Items) != 3 {
		t.Fatalf("items %v", c2.Items)
	}
	if _, judged := rho[c2.Items[0].ID]; judged {
		t.Errorf("first item %s was rejected; rho %v", c2.Items[0].ID, rho)
	}
}

func TestDeterministicOffline(t *testing.T) {
	run := func() []string {
		s := newSys(t, llm.NewOffline(), nil, membench.Options{"seeds": "2", "k": "5", "order": "score"})
		if _, err := s.Ingest(context.Background(), testConv()); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range []string{"What did Caroline adopt?", "Where does Melanie go camping with the kids?", "Was the support group helpful?"} {
			c, err := s.Retrieve(context.Background(), &datasets.Question{ID: q, Text: q}, systems.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(c)
			out = append(out, string(b))
		}
		return out
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two offline runs differ:\n%v\n%v", a, b)
	}
}

func TestOptionsValidated(t *testing.T) {
	for opts, want := range map[string]string{
		"min_calls=5,max_calls=3": "min_calls must not exceed max_calls",
		"seeds=1":                 "seeds must be at least min_calls",
		"m=0":                     "option m=0",
		"threshold=2":             "option threshold=2",
		"order=random":            "option order",
		"hops=2":                  "has no option \"hops\"",
	} {
		o := membench.Options{}
		for _, kv := range strings.Split(opts, ",") {
			k, v, _ := strings.Cut(kv, "=")
			o[k] = v
		}
		_, err := New(systems.Env{Embedder: embedder.NewHashed(64), Decide: llm.NewOffline(), Options: o})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", opts, err, want)
		}
	}
	if _, err := New(systems.Env{Embedder: embedder.NewHashed(64)}); err == nil || !strings.Contains(err.Error(), "--decide-model") {
		t.Errorf("no decision model: %v", err)
	}
}
