package graph

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// fakeEmb puts chosen names at chosen directions and everything else
// through the hashed embedder, so merge tests control cosines exactly.
type fakeEmb struct {
	fixed map[string][]float32
	h     *embedder.Hashed
}

func newFake() *fakeEmb {
	v := func(a, b, c float32) []float32 {
		out := make([]float32, 64)
		out[0], out[1], out[2] = a, b, c
		return out
	}
	return &fakeEmb{h: embedder.NewHashed(64), fixed: map[string][]float32{
		"melanie":   v(1, 0, 0),
		"mel":       v(0.95, 0.31, 0), // cos 0.95 with melanie: close
		"caroline":  v(0.97, 0, 0.24), // close to melanie, but the names disagree
		"melbourne": v(0, 0, 1),       // names agree with "mel", vectors far
	}}
}

func (f *fakeEmb) Name() string { return "fake" }
func (f *fakeEmb) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if v, ok := f.fixed[t]; ok {
			out[i] = v
			continue
		}
		h, _ := f.h.Embed(ctx, []string{t})
		// keep hashed vectors off the fixed axes
		h[0][0], h[0][1], h[0][2] = 0, 0, 0
		out[i] = h[0]
	}
	return out, nil
}

func TestResolveMergeNeedsBothEmbeddingAndName(t *testing.T) {
	e := newFake()
	g := NewGraph()
	vec := func(s string) []float32 { v, _ := e.Embed(context.Background(), []string{s}); return v[0] }
	mel, _ := g.Resolve("melanie", "person", vec("melanie"), 0.85)
	id, merged := g.Resolve("mel", "", vec("mel"), 0.85)
	if id != mel || !merged {
		t.Fatalf("mel should merge into melanie (cos and prefix agree): got %s merged=%v", id, merged)
	}
	if id, merged := g.Resolve("caroline", "", vec("caroline"), 0.85); id == mel || merged {
		t.Fatalf("caroline merged into melanie on embedding alone")
	}
	if id, merged := g.Resolve("melbourne", "", vec("melbourne"), 0.85); id == mel || merged {
		t.Fatalf("melbourne merged into melanie/mel on name alone")
	}
	n, _ := g.NodeByName("Mel's")
	if n.ID != mel || n.Name != "melanie" || !reflect.DeepEqual(n.Aliases, []string{"melanie", "mel"}) {
		t.Fatalf("node = %+v", n)
	}
	if len(g.Nodes()) != 3 {
		t.Fatalf("nodes = %+v", g.Nodes())
	}
	// A threshold above the pair's cosine blocks the merge.
	g2 := NewGraph()
	g2.Resolve("melanie", "", vec("melanie"), 0.99)
	if _, merged := g2.Resolve("mel", "", vec("mel"), 0.99); merged {
		t.Fatal("merged below threshold")
	}
}

func TestNameAgreeAndNormalize(t *testing.T) {
	yes := [][2]string{{"mel", "melanie"}, {"nyc", "new york city"}, {"caroline smith", "caroline"}, {"melanie", "melanie"}}
	no := [][2]string{{"mel", "caroline"}, {"me", "melanie"}, {"the dog", "the cat"}, {"", ""}}
	for _, p := range yes {
		if !NameAgree(p[0], p[1]) {
			t.Errorf("NameAgree%v = false", p)
		}
	}
	for _, p := range no {
		if NameAgree(p[0], p[1]) {
			t.Errorf("NameAgree%v = true", p)
		}
	}
	if got := Normalize("  Melanie’s "); got != "melanie" {
		t.Errorf("Normalize = %q", got)
	}
	if got := CanonicalRelation("Lived in"); got != "lives_in" {
		t.Errorf("CanonicalRelation = %q", got)
	}
}

var t0 = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func conv(turns ...[2]string) *datasets.Conversation {
	s := &datasets.Session{ID: "session_1", Time: t0}
	for i, t := range turns {
		s.Turns = append(s.Turns, &datasets.Turn{ID: fmt.Sprintf("D1:%d", i+1), Speaker: t[0], Text: t[1], Time: t0.Add(time.Duration(i) * 24 * time.Hour)})
	}
	return &datasets.Conversation{ID: "c1", Speakers: []string{"Melanie", "Caroline"}, Sessions: []*datasets.Session{s}}
}

func newSys(t *testing.T, m llm.Model, e llm.Embedder, conc int, opts membench.Options) *System {
	spec, err := systems.Lookup("graph")
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(systems.Env{Build: m, Embedder: e, Concurrency: conc, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*System)
}

func TestBuildMergesMelIntoMelanie(t *testing.T) {
	s := newSys(t, llm.NewOffline(), newFake(), 2, nil)
	stats, err := s.Ingest(context.Background(), conv(
		[2]string{"Melanie", "I painted a sunrise over the lake."},
		[2]string{"Caroline", "That is lovely. Mel adopted a puppy last week, right"},
	))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := s.Graph().NodeByName("mel")
	if !ok || n.Name != "melanie" {
		t.Fatalf("mel not merged: %+v nodes %+v", n, s.Graph().Nodes())
	}
	var rels []string
	for _, e := range s.Graph().Edges() {
		if e.Subject == n.ID {
			rels = append(rels, e.Relation)
		}
	}
	if !reflect.DeepEqual(rels, []string{"painted", "adopted"}) || stats.Counts["entity_merges"] != 1 {
		t.Fatalf("melanie's relations %v, counts %v", rels, stats.Counts)
	}
}

// conflictModel is the offline backend with the conflict decision scripted.
type conflictModel struct {
	llm.Model
	reply string
	calls int
}

func (c *conflictModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Task == TaskConflict {
		c.calls++
		return llm.Response{Text: c.reply}, nil
	}
	return c.Model.Chat(ctx, req)
}

func TestConflictMarksObsoleteNotDeleted(t *testing.T) {
	c := conv(
		[2]string{"Melanie", "I live in Boston with my family."},
		[2]string{"Melanie", "I live in Denver now with my family."},
	)
	s := newSys(t, llm.NewOffline(), embedder.NewHashed(256), 1, membench.Options{"question-entities": "heuristic"})
	stats, err := s.Ingest(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	edges := s.Graph().Edges()
	if len(edges) != 2 {
		t.Fatalf("edges %+v", edges)
	}
	old, cur := edges[0], edges[1]
	if old.Relation != "lives_in" || !old.Obsolete || !old.ObsoleteAt.Equal(t0.Add(24*time.Hour)) || !reflect.DeepEqual(old.ObsoleteBy, []string{"D1:2"}) {
		t.Fatalf("old edge %+v", old)
	}
	if cur.Obsolete || s.Graph().EdgeText(cur) != "melanie lives in denver" {
		t.Fatalf("new edge %+v (%s)", cur, s.Graph().EdgeText(cur))
	}
	if stats.Counts["obsolete"] != 1 || stats.Counts["graph_calls"] != 3 {
		t.Fatalf("counts %v", stats.Counts)
	}
	ctx, err := s.Retrieve(context.Background(), &datasets.Question{ID: "q", Text: "Where does Melanie live?"}, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ctx.Rendered, "- [8 May 2023] melanie —lives_in→ boston (no longer true since 9 May 2023)") ||
		!strings.Contains(ctx.Rendered, "- [9 May 2023] melanie —lives_in→ denver") || ctx.Items[0].Kind != "triple" {
		t.Fatalf("rendered:\n%s", ctx.Rendered)
	}
	hidden := newSys(t, llm.NewOffline(), embedder.NewHashed(256), 1, membench.Options{"show-obsolete": "false", "question-entities": "heuristic"})
	hidden.Ingest(context.Background(), c)
	ctx, _ = hidden.Retrieve(context.Background(), &datasets.Question{ID: "q", Text: "Where does Melanie live?"}, systems.Budget{})
	if strings.Contains(ctx.Rendered, "boston (no longer") {
		t.Fatalf("obsolete shown with show-obsolete=false:\n%s", ctx.Rendered)
	}

	// The LLM decides: a conflict reply naming nothing keeps both live.
	m := &conflictModel{Model: llm.NewOffline(), reply: `{"obsolete":[]}`}
	s2 := newSys(t, m, embedder.NewHashed(256), 1, nil)
	if _, err := s2.Ingest(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, e := range s2.Graph().Edges() {
		if e.Obsolete {
			t.Fatalf("edge obsolete without the model saying so: %+v", e)
		}
	}
	if m.calls != 1 {
		t.Fatalf("conflict calls = %d, want 1", m.calls)
	}
	// A numeric id marks it, however the offline rule would decide.
	m = &conflictModel{Model: llm.NewOffline(), reply: `{"obsolete":[0]}`}
	s3 := newSys(t, m, embedder.NewHashed(256), 1, nil)
	if _, err := s3.Ingest(context.Background(), conv(
		[2]string{"Melanie", "I love pottery classes."},
		[2]string{"Melanie", "I love painting sunsets."},
	)); err != nil {
		t.Fatal(err)
	}
	if e := s3.Graph().Edges(); len(e) != 2 || !e[0].Obsolete || e[1].Obsolete {
		t.Fatalf("edges after scripted conflict: %+v", e)
	}
}

func sample() *datasets.Conversation {
	return conv(
		[2]string{"Caroline", "Hey Mel! How are you?"},
		[2]string{"Melanie", "I painted a sunrise over the lake last week. My kids loved it."},
		[2]string{"Caroline", "I went to an LGBTQ support group yesterday. It was powerful."},
		[2]string{"Melanie", "I live in Boston with my husband and two kids."},
		[2]string{"Caroline", "I'm researching adoption agencies for my future family."},
		[2]string{"Melanie", "I work at a bakery downtown. I love baking bread."},
		[2]string{"Melanie", "I live in Denver now with my husband and two kids."},
		[2]string{"Caroline", "[image: a rainbow flag at a parade] Mel went to the parade too."},
	)
}

func TestDeterministicAndCountsMatchMeter(t *testing.T) {
	build := func(conc int) (*System, membench.BuildStats, *llm.Meter) {
		meter := llm.NewMeter()
		m := llm.WithMeter(llm.NewOffline(), meter, "build")
		s := newSys(t, m, embedder.NewHashed(256), conc, nil)
		st, err := s.Ingest(context.Background(), sample())
		if err != nil {
			t.Fatal(err)
		}
		return s, st, meter
	}
	a, sa, meter := build(1)
	b, sb, _ := build(4)
	if !reflect.DeepEqual(a.Graph().Edges(), b.Graph().Edges()) || !reflect.DeepEqual(a.Graph().Nodes(), b.Graph().Nodes()) ||
		!reflect.DeepEqual(a.Facts().Facts(), b.Facts().Facts()) || !reflect.DeepEqual(sa, sb) {
		t.Fatalf("builds differ\n%v\n%v", sa, sb)
	}
	tot := meter.Total(membench.StageBuild)
	if tot.Calls != sa.Counts["llm_calls"] || sa.Counts["llm_calls"] != sa.Counts["flat_calls"]+sa.Counts["graph_calls"] {
		t.Fatalf("meter calls %d vs counts %v", tot.Calls, sa.Counts)
	}
	if last := sa.TurnTokens[len(sa.TurnTokens)-1]; last != meter.TotalTokens(membench.StageBuild) {
		t.Fatalf("turn tokens end at %d, meter says %d", last, meter.TotalTokens(membench.StageBuild))
	}
	// Every turn makes one flat and one graph extraction call at least.
	if sa.Counts["llm_calls"] < 2*8 || sa.Counts["edges"] == 0 || sa.Counts["obsolete"] != 1 {
		t.Fatalf("counts %v", sa.Counts)
	}
	ctx, err := a.Retrieve(context.Background(), &datasets.Question{ID: "q", Text: "What did Melanie paint?"}, systems.Budget{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ctx.Rendered, "melanie —painted→ sunrise") || !strings.Contains(ctx.Rendered, "Memories of Melanie:") || ctx.Tokens == 0 {
		t.Fatalf("rendered:\n%s", ctx.Rendered)
	}
	// One question-entity call per question, metered as retrieval, not build.
	if got := meter.Total(membench.StageRetrieve).Calls; got != 1 || meter.Total(membench.StageBuild).Calls != tot.Calls {
		t.Fatalf("retrieve-stage calls %d", got)
	}
	small, _ := a.Retrieve(context.Background(), &datasets.Question{ID: "q", Text: "What did Melanie paint?"}, systems.Budget{K: 2, MaxTokens: 30})
	if small.Tokens > 30 || len(small.Items) >= len(ctx.Items) {
		t.Fatalf("MaxTokens not applied: %d tokens, %d items", small.Tokens, len(small.Items))
	}
}

func TestOfflineHeuristics(t *testing.T) {
	ents, trs := OfflineTriples("Melanie", "I live in Boston with my kids. I am a nurse. Caroline adopted a puppy named Oscar. How are you?", []string{"Melanie", "Caroline"})
	var got []string
	for _, tr := range trs {
		got = append(got, fmt.Sprintf("%s|%s|%s|%v", Normalize(tr.Subject), tr.Relation, tr.Object, tr.Single))
	}
	want := []string{"melanie|lives_in|boston|true", "melanie|is|nurse|false", "caroline|adopted|puppy|false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("triples %v, want %v", got, want)
	}
	if !reflect.DeepEqual(ents, []string{"Melanie", "Boston", "nurse", "Caroline", "Oscar", "puppy"}) {
		t.Fatalf("entities %v", ents)
	}
	q := OfflineQuestionEntities("When did Melanie paint a sunrise in Boston?", []string{"Melanie", "Caroline"})
	if !reflect.DeepEqual(q, []string{"Melanie", "Boston", "paint", "sunrise"}) {
		t.Fatalf("question entities %v", q)
	}
	obs := OfflineObsolete(ConflictInput{
		New:      []TripleIn{{Subject: "melanie", Relation: "works_at", Object: "hospital"}, {Subject: "melanie", Relation: "likes", Object: "jazz"}},
		Existing: []TripleIn{{ID: "0", Subject: "melanie", Relation: "worked at", Object: "bakery"}, {ID: "1", Subject: "melanie", Relation: "likes", Object: "pop"}, {ID: "2", Subject: "caroline", Relation: "works_at", Object: "school"}},
	})
	if !reflect.DeepEqual(obs, []string{"0"}) {
		t.Fatalf("obsolete %v", obs)
	}
}

func TestMalformedConflictCountsFailed(t *testing.T) {
	m := &conflictModel{Model: llm.NewOffline(), reply: "I think id 0"}
	s := newSys(t, m, embedder.NewHashed(256), 1, nil)
	st, err := s.Ingest(context.Background(), conv(
		[2]string{"Melanie", "I live in Boston with my family."},
		[2]string{"Melanie", "I live in Denver now with my family."},
	))
	if err != nil {
		t.Fatal(err)
	}
	if m.calls != 2 || st.Counts["graph_failed"] != 1 || st.Counts["obsolete"] != 0 || len(s.Graph().Edges()) != 2 {
		t.Fatalf("calls %d counts %v", m.calls, st.Counts)
	}
}

// entitiesModel is the offline backend with the question-entities reply scripted.
type entitiesModel struct{ llm.Model }

func (m entitiesModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Task == TaskEntities {
		return llm.Response{Text: "Melanie and Boston, I think"}, nil
	}
	return m.Model.Chat(ctx, req)
}

func TestMalformedQuestionEntitiesFallBackToHeuristic(t *testing.T) {
	s := newSys(t, entitiesModel{llm.NewOffline()}, embedder.NewHashed(256), 1, nil)
	if _, err := s.Ingest(context.Background(), conv([2]string{"Melanie", "I live in Boston with my family."})); err != nil {
		t.Fatal(err)
	}
	q := &datasets.Question{ID: "q1", Text: "When did Melanie paint a sunrise in Boston?"}
	c, err := s.Retrieve(context.Background(), q, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	want := OfflineQuestionEntities(q.Text, []string{"Melanie", "Caroline"})
	if c.Notes["question_entities_fallback"] != true || !reflect.DeepEqual(c.Notes["question_entities"], want) {
		t.Fatalf("notes %v, want the heuristic's entities %v marked as a fallback", c.Notes, want)
	}
}
