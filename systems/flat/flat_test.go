package flat

import (
	"context"
	"encoding/json"
	"fmt"
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
)

// scripted is a fake build model: extraction replies come from a map keyed
// by turn id (extraction may run in any order), update replies from a
// queue consumed in order (updates run in turn order).
type scripted struct {
	mu      sync.Mutex
	extract map[string][]string
	updates []string
	seen    []UpdateInput
	calls   int
}

func (s *scripted) ID() membench.ModelID { return membench.ModelID{Backend: "test", Model: "scripted"} }
func (s *scripted) Decide(context.Context, llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, fmt.Errorf("not used")
}
func (s *scripted) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	switch in := req.Inputs.(type) {
	case ExtractInput:
		facts := s.extract[in.Messages[0].TurnID]
		if facts == nil {
			facts = []string{}
		}
		b, _ := json.Marshal(map[string]any{"facts": facts})
		return llm.Response{Text: string(b), Usage: membench.Usage{InputTokens: 10, OutputTokens: 2}}, nil
	case UpdateInput:
		s.seen = append(s.seen, in)
		if len(s.updates) == 0 {
			return llm.Response{}, fmt.Errorf("unexpected update call for %v", in.Facts)
		}
		r := s.updates[0]
		s.updates = s.updates[1:]
		return llm.Response{Text: r, Usage: membench.Usage{InputTokens: 20, OutputTokens: 5}}, nil
	}
	return llm.Response{}, fmt.Errorf("unexpected inputs %T", req.Inputs)
}

var t0 = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func conv(turns ...[2]string) *datasets.Conversation {
	s := &datasets.Session{ID: "session_1", Time: t0}
	for i, t := range turns {
		s.Turns = append(s.Turns, &datasets.Turn{ID: fmt.Sprintf("D1:%d", i+1), Speaker: t[0], Text: t[1], Time: t0.Add(time.Duration(i) * 24 * time.Hour)})
	}
	return &datasets.Conversation{ID: "c1", Speakers: []string{"Melanie", "Caroline"}, Sessions: []*datasets.Session{s}}
}

func env(m llm.Model) systems.Env {
	return systems.Env{Build: m, Embedder: embedder.NewHashed(512), Concurrency: 3}
}

func defaultCfg(t *testing.T) Config {
	c, err := ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUpdateKeepsHistoryAndDeleteLeavesRetrieval(t *testing.T) {
	m := &scripted{
		extract: map[string][]string{
			"D1:1": {"Melanie lives in Boston"},
			"D1:2": {"Melanie lives in Denver"},
			"D1:3": {"Melanie no longer lives in Denver"},
		},
		updates: []string{
			// ids as numbers or strings: models write both
			`{"decisions":[{"fact":0,"event":"UPDATE","id":0,"text":"Melanie lives in Denver"}]}`,
			`{"decisions":[{"fact":"0","event":"delete","id":"0"}]}`,
		},
	}
	c := conv([2]string{"Melanie", "I live in Boston."}, [2]string{"Melanie", "I moved to Denver."}, [2]string{"Melanie", "I left Denver."})
	st, stats, err := Build(context.Background(), env(m), c, defaultCfg(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.seen) != 2 || len(m.seen[0].Memories) != 1 || m.seen[0].Memories[0].Text != "Melanie lives in Boston" {
		t.Fatalf("update calls saw %+v", m.seen)
	}
	facts := st.Facts()
	if len(facts) != 1 {
		t.Fatalf("want one fact (updated then deleted), got %+v", facts)
	}
	f := facts[0]
	if f.Text != "Melanie lives in Denver" || !f.Deleted {
		t.Fatalf("fact = %+v", f)
	}
	if len(f.History) != 2 || f.History[0].Event != "UPDATE" || f.History[0].OldText != "Melanie lives in Boston" ||
		!f.History[0].At.Equal(t0.Add(24*time.Hour)) || !reflect.DeepEqual(f.History[0].By, []string{"D1:2"}) ||
		!f.History[0].OldTime.Equal(t0) {
		t.Fatalf("update history = %+v", f.History)
	}
	if f.History[1].Event != "DELETE" || !reflect.DeepEqual(f.History[1].By, []string{"D1:3"}) {
		t.Fatalf("delete history = %+v", f.History[1])
	}
	if !reflect.DeepEqual(f.Sources, []string{"D1:1", "D1:2"}) {
		t.Fatalf("sources = %v", f.Sources)
	}
	vec, _ := embedder.NewHashed(512).Embed(context.Background(), []string{"Where does Melanie live?"})
	if hits := st.Search(vec[0], 10); len(hits) != 0 {
		t.Fatalf("deleted fact still retrieved: %+v", hits)
	}
	want := map[string]int{"facts_added": 1, "updated": 1, "deleted": 1, "none": 0, "failed": 0, "llm_calls": 5}
	for k, v := range want {
		if stats.Counts[k] != v {
			t.Errorf("count %s = %d, want %d (all %v)", k, stats.Counts[k], v, stats.Counts)
		}
	}
	// 12 tokens per extraction, 25 per update, charged to each turn.
	if !reflect.DeepEqual(stats.TurnTokens, []int{12, 12 + 37, 12 + 37 + 37}) {
		t.Fatalf("turn tokens = %v", stats.TurnTokens)
	}
}

func TestUpdateBeforeRetrieval(t *testing.T) {
	m := &scripted{
		extract: map[string][]string{"D1:1": {"Melanie lives in Boston"}, "D1:2": {"Melanie lives in Denver"}},
		updates: []string{`{"decisions":[{"fact":0,"event":"UPDATE","id":"0","text":"Melanie moved from Boston to Denver"}]}`},
	}
	st, _, err := Build(context.Background(), env(m), conv([2]string{"Melanie", "a"}, [2]string{"Melanie", "b"}), defaultCfg(t))
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := embedder.NewHashed(512).Embed(context.Background(), []string{"Melanie moved to Denver"})
	hits := st.Search(vec[0], 5)
	if len(hits) != 1 || hits[0].Text != "Melanie moved from Boston to Denver" || hits[0].History[0].OldText != "Melanie lives in Boston" {
		t.Fatalf("hits = %+v", hits)
	}
}

func TestMalformedRetriedThenCountedFailed(t *testing.T) {
	bad := &badModel{replies: []string{"not json", `{"facts":["Melanie paints sunsets"]}`}}
	st, stats, err := Build(context.Background(), systems.Env{Build: bad, Embedder: embedder.NewHashed(64)}, conv([2]string{"Melanie", "x"}), defaultCfg(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Facts()) != 1 || stats.Counts["failed"] != 0 || stats.Counts["llm_calls"] != 2 {
		t.Fatalf("repair retry: facts %v counts %v", st.Facts(), stats.Counts)
	}
	if bad.labels[1] != "extract_facts_repair" {
		t.Fatalf("labels %v", bad.labels)
	}
	bad = &badModel{replies: []string{"nope", "still nope"}}
	st, stats, err = Build(context.Background(), systems.Env{Build: bad, Embedder: embedder.NewHashed(64)}, conv([2]string{"Melanie", "x"}), defaultCfg(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Facts()) != 0 || stats.Counts["failed"] != 1 || stats.Counts["llm_calls"] != 2 {
		t.Fatalf("double failure: facts %v counts %v", st.Facts(), stats.Counts)
	}
}

type badModel struct {
	replies []string
	labels  []string
}

func (b *badModel) ID() membench.ModelID { return membench.ModelID{Backend: "test"} }
func (b *badModel) Decide(context.Context, llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, nil
}
func (b *badModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	b.labels = append(b.labels, req.Label)
	r := b.replies[0]
	b.replies = b.replies[1:]
	return llm.Response{Text: r}, nil
}

func TestPerSpeakerVsCombined(t *testing.T) {
	e := embedder.NewHashed(512)
	st := NewStore()
	add := func(sp, text string) {
		v, _ := e.Embed(context.Background(), []string{text})
		st.Add(text, sp, t0, []string{"D1:1"}, v[0])
	}
	for i := 0; i < 5; i++ {
		add("Melanie", fmt.Sprintf("Melanie painted a sunrise painting number %d", i))
	}
	add("Caroline", "Caroline likes painting")
	add("Caroline", "Caroline went hiking in the mountains")
	q, _ := e.Embed(context.Background(), []string{"What painting did Melanie paint?"})

	per := Retrieve(st, q[0], 2, "per-speaker", []string{"Melanie", "Caroline"})
	if len(per) != 2 || per[0].Title != "Memories of Melanie" || len(per[0].Items) != 2 || len(per[1].Items) != 2 {
		t.Fatalf("per-speaker groups = %+v", per)
	}
	for _, it := range per[1].Items {
		if it.Speaker != "Caroline" {
			t.Fatalf("Caroline's group holds %+v", it)
		}
	}
	comb := Retrieve(st, q[0], 2, "combined", nil)
	if len(comb) != 1 || len(comb[0].Items) != 2 {
		t.Fatalf("combined = %+v", comb)
	}
	for _, it := range comb[0].Items {
		if it.Speaker != "Melanie" {
			t.Fatalf("combined top-2 should be Melanie's painting facts, got %+v", it)
		}
	}
	r := Render(per)
	if !strings.Contains(r, "- [8 May 2023] Melanie painted") || !strings.Contains(r, "Memories of Caroline:") {
		t.Fatalf("render:\n%s", r)
	}
}

func sample() *datasets.Conversation {
	return conv(
		[2]string{"Caroline", "Hey Mel! How are you?"},
		[2]string{"Melanie", "I painted a sunrise over the lake last week. My kids loved it."},
		[2]string{"Caroline", "I went to an LGBTQ support group yesterday. It was powerful."},
		[2]string{"Melanie", "I live in Boston with my husband and two kids."},
		[2]string{"Caroline", "I'm researching adoption agencies for my future family."},
		[2]string{"Melanie", "I painted a sunrise over the lake last week. My kids loved it."},
		[2]string{"Melanie", "I live in Denver now with my husband and two kids."},
		[2]string{"Melanie", "I no longer live in Denver with my husband and two kids."},
		[2]string{"Caroline", "[image: a rainbow flag at a parade] Look at this!"},
	)
}

func TestOfflineSystemAndDeterminism(t *testing.T) {
	spec, err := systems.Lookup("flat")
	if err != nil {
		t.Fatal(err)
	}
	run := func(conc int, opts membench.Options) (*System, membench.BuildStats) {
		s, err := spec.New(systems.Env{Build: llm.NewOffline(), Embedder: embedder.NewHashed(512), Concurrency: conc, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Ingest(context.Background(), sample())
		if err != nil {
			t.Fatal(err)
		}
		return s.(*System), st
	}
	a, sa := run(1, nil)
	b, sb := run(4, nil)
	if !reflect.DeepEqual(a.Store().Facts(), b.Store().Facts()) || !reflect.DeepEqual(sa, sb) {
		t.Fatalf("builds differ:\n%+v\n%+v", sa, sb)
	}
	c := sa.Counts
	// Restated sunrise -> NONE; Denver replaces Boston (single-valued "live")
	// -> UPDATE; "no longer live in Denver" -> DELETE.
	if c["none"] < 1 || c["updated"] < 1 || c["deleted"] < 1 || c["failed"] != 0 {
		t.Fatalf("offline decisions: %v\nfacts: %+v", c, a.Store().Facts())
	}
	for _, f := range a.Store().Facts() {
		if strings.Contains(f.Text, " I ") || strings.HasPrefix(f.Text, "I ") {
			t.Errorf("first person left in %q", f.Text)
		}
		if strings.Contains(f.Text, "How are you") {
			t.Errorf("greeting/question kept: %q", f.Text)
		}
	}
	if len(sa.TurnTokens) != 9 || sa.TurnTokens[8] != sa.Counts["build_tokens"] || sa.TurnTokens[0] <= 0 {
		t.Fatalf("turn tokens %v", sa.TurnTokens)
	}
	ctx, err := a.Retrieve(context.Background(), &datasets.Question{ID: "q", Text: "What did Melanie paint?"}, systems.Budget{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Items) != 2 || !strings.Contains(ctx.Items[0].Text, "sunrise") || ctx.Tokens == 0 || len(ctx.Items[0].Sources) == 0 {
		t.Fatalf("retrieve: %+v", ctx)
	}
	// session batching: same store shape, far fewer calls.
	s, ss := run(2, membench.Options{"batch": "session", "mode": "combined"})
	if ss.Counts["llm_calls"] >= c["llm_calls"] || len(s.Store().Live()) == 0 {
		t.Fatalf("session batch counts %v vs message %v", ss.Counts, c)
	}
	if _, err := spec.New(systems.Env{Build: llm.NewOffline(), Embedder: embedder.NewHashed(8), Options: membench.Options{"mode": "both"}}); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("bad option error: %v", err)
	}
}

func TestOfflineDecide(t *testing.T) {
	mems := []MemoryIn{{ID: "0", Text: "Melanie works at a bakery downtown"}, {ID: "1", Text: "Melanie likes pottery classes"}}
	cases := []struct{ fact, ev, id string }{
		{"Melanie works at a bakery downtown", "NONE", "0"},
		{"Melanie works at a hospital", "UPDATE", "0"},
		{"Melanie no longer works at the bakery", "DELETE", "0"},
		{"Melanie likes pottery classes with her kids on Sundays", "UPDATE", "1"},
		{"Caroline adopted a dog", "ADD", ""},
	}
	for _, c := range cases {
		ev, id := OfflineDecide(c.fact, mems)
		if ev != c.ev || id != c.id {
			t.Errorf("%q: got %s %s, want %s %s", c.fact, ev, id, c.ev, c.id)
		}
	}
}
