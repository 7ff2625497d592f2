package llm

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"
)

// fakeModel returns fixed usage, optionally cached or failing.
type fakeModel struct {
	usage  membench.Usage
	cached bool
	err    error
}

func (f *fakeModel) ID() membench.ModelID { return membench.ModelID{Backend: "fake", Model: "m"} }
func (f *fakeModel) Chat(ctx context.Context, req Request) (Response, error) {
	if f.err != nil {
		return Response{}, f.err
	}
	return Response{Text: "ok", Usage: f.usage, Cached: f.cached}, nil
}
func (f *fakeModel) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	if f.err != nil {
		return DecideResponse{}, f.err
	}
	return DecideResponse{Probs: map[string]float64{"yes": 1}, Usage: f.usage, Cached: f.cached}, nil
}

type fakeEmbedder struct{ err error }

func (f *fakeEmbedder) Name() string { return "fake-embed" }
func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1}
	}
	return out, nil
}

func find(m *Meter, role string, stage membench.Stage, label string) (membench.Tally, bool) {
	for _, t := range m.Snapshot() {
		if t.Role == role && t.Stage == stage && t.Label == label {
			return t, true
		}
	}
	return membench.Tally{}, false
}

func TestMeterTalliesByRoleStageLabel(t *testing.T) {
	ctx := context.Background()
	m := NewMeter()
	build := WithMeter(&fakeModel{usage: membench.Usage{InputTokens: 10, OutputTokens: 2}}, m, "build")
	judge := WithMeter(&fakeModel{usage: membench.Usage{InputTokens: 7, OutputTokens: 1}, cached: true}, m, "judge:x")

	for i := 0; i < 3; i++ {
		if _, err := build.Chat(ctx, Request{Stage: membench.StageBuild, Label: "extract"}); err != nil {
			t.Fatal(err)
		}
	}
	build.Chat(ctx, Request{Stage: membench.StageBuild, Label: "update"})
	build.Decide(ctx, DecideRequest{Stage: membench.StageRetrieve, Label: "select"})
	judge.Chat(ctx, Request{Stage: membench.StageJudge})
	judge.Chat(ctx, Request{Stage: membench.StageJudge})

	if got, _ := find(m, "build", membench.StageBuild, "extract"); got.Calls != 3 || got.InputTokens != 30 || got.OutputTokens != 6 || got.CachedCalls != 0 {
		t.Errorf("build/extract = %+v", got)
	}
	if got, _ := find(m, "build", membench.StageBuild, "update"); got.Calls != 1 || got.InputTokens != 10 {
		t.Errorf("build/update = %+v", got)
	}
	if got, _ := find(m, "build", membench.StageRetrieve, "select"); got.Calls != 1 || got.OutputTokens != 2 {
		t.Errorf("decide = %+v", got)
	}
	if got, _ := find(m, "judge:x", membench.StageJudge, ""); got.Calls != 2 || got.CachedCalls != 2 || got.InputTokens != 14 {
		t.Errorf("judge = %+v", got)
	}
	if n := len(m.Snapshot()); n != 4 {
		t.Errorf("Snapshot has %d tallies, want 4", n)
	}
	if b := m.Total(membench.StageBuild); b.Calls != 4 || b.InputTokens != 40 || b.OutputTokens != 8 || b.Stage != membench.StageBuild {
		t.Errorf("Total(build) = %+v", b)
	}
	if all := m.Total(""); all.Calls != 7 || all.CachedCalls != 2 || all.InputTokens != 64 || all.OutputTokens != 12 {
		t.Errorf("Total(all) = %+v", all)
	}
	if got := m.TotalTokens(membench.StageJudge); got != 16 {
		t.Errorf("TotalTokens(judge) = %d, want 16", got)
	}
	// Snapshot is sorted by stage, then role, then label.
	s := m.Snapshot()
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		if a.Stage > b.Stage || (a.Stage == b.Stage && (a.Role > b.Role || (a.Role == b.Role && a.Label > b.Label))) {
			t.Fatalf("Snapshot not sorted: %+v before %+v", a, b)
		}
	}
}

func TestWithMeterRecordsOnlySuccess(t *testing.T) {
	ctx := context.Background()
	m := NewMeter()
	boom := errors.New("boom")
	w := WithMeter(&fakeModel{usage: membench.Usage{InputTokens: 5}, err: boom}, m, "answer")
	if _, err := w.Chat(ctx, Request{Stage: membench.StageAnswer}); !errors.Is(err, boom) {
		t.Fatalf("Chat err = %v, want the inner error", err)
	}
	if _, err := w.Decide(ctx, DecideRequest{Stage: membench.StageAnswer}); !errors.Is(err, boom) {
		t.Fatalf("Decide err = %v", err)
	}
	if s := m.Snapshot(); len(s) != 0 {
		t.Fatalf("failed calls were metered: %+v", s)
	}
	if w.ID() != (membench.ModelID{Backend: "fake", Model: "m"}) {
		t.Fatalf("ID not passed through: %+v", w.ID())
	}
}

func TestMeteredEmbedderAndTotalExcludesIt(t *testing.T) {
	ctx := context.Background()
	m := NewMeter()
	texts := []string{"hello world", "Caroline went hiking in May.", ""}
	e := WithEmbedMeter(&fakeEmbedder{}, m, "build", membench.StageBuild)
	if e.Name() != "fake-embed" {
		t.Fatalf("Name = %q", e.Name())
	}
	if _, err := e.Embed(ctx, texts); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range texts {
		want += tokens.Count(s)
	}
	got, ok := find(m, "build", membench.StageBuild, "embedding")
	if !ok || got.Calls != 3 || got.InputTokens != want || got.OutputTokens != 0 {
		t.Fatalf("embedding tally = %+v (found %v), want 3 texts, %d tokens", got, ok, want)
	}
	// A failed embedding records nothing.
	bad := WithEmbedMeter(&fakeEmbedder{err: errors.New("down")}, m, "build", membench.StageBuild)
	if _, err := bad.Embed(ctx, texts); err == nil {
		t.Fatal("inner error swallowed")
	}
	if again, _ := find(m, "build", membench.StageBuild, "embedding"); again.Calls != 3 {
		t.Fatalf("failed embed was counted: %+v", again)
	}

	WithMeter(&fakeModel{usage: membench.Usage{InputTokens: 4, OutputTokens: 1}}, m, "build").Chat(ctx, Request{Stage: membench.StageBuild, Label: "extract"})
	if tot := m.Total(membench.StageBuild); tot.Calls != 1 || tot.InputTokens != 4 {
		t.Fatalf("Total(build) = %+v, want embedding left out", tot)
	}
	if tot := m.Total(""); tot.Calls != 1 || tot.InputTokens != 4 {
		t.Fatalf("Total(all) = %+v, want embedding left out", tot)
	}
	if m.TotalTokens(membench.StageBuild) != 5 {
		t.Fatalf("TotalTokens(build) = %d", m.TotalTokens(membench.StageBuild))
	}
}

func TestMeterConcurrent(t *testing.T) {
	ctx := context.Background()
	m := NewMeter()
	w := WithMeter(&fakeModel{usage: membench.Usage{InputTokens: 3, OutputTokens: 1}}, m, "build")
	e := WithEmbedMeter(&fakeEmbedder{}, m, "build", membench.StageBuild)
	var wg sync.WaitGroup
	const G, N = 8, 100
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			label := []string{"a", "b"}[g%2]
			for i := 0; i < N; i++ {
				w.Chat(ctx, Request{Stage: membench.StageBuild, Label: label})
				e.Embed(ctx, []string{"x"})
				_ = m.Snapshot()
				_ = m.Total("")
			}
		}(g)
	}
	wg.Wait()
	tot := m.Total(membench.StageBuild)
	if tot.Calls != G*N || tot.InputTokens != 3*G*N || tot.OutputTokens != G*N {
		t.Fatalf("Total after concurrent use = %+v, want %d calls", tot, G*N)
	}
	if emb, _ := find(m, "build", membench.StageBuild, "embedding"); emb.Calls != G*N {
		t.Fatalf("embedding calls = %d, want %d", emb.Calls, G*N)
	}
}

func TestAddCallsEntersTotals(t *testing.T) {
	m := NewMeter()
	m.AddCalls("service", membench.StageBuild, "ingest", 2, membench.Usage{InputTokens: 900, OutputTokens: 120}, 0)
	m.AddCalls("service", membench.StageBuild, "ingest", 0, membench.Usage{}, 0)
	if got := m.Total(membench.StageBuild); got.Calls != 2 || got.InputTokens != 900 || got.OutputTokens != 120 {
		t.Fatalf("total %+v", got)
	}
}

// denseEmb gives dense vectors only; sparseEmb gives them both ways.
type denseEmb struct{}

func (denseEmb) Name() string { return "dense" }
func (denseEmb) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0}
	}
	return out, nil
}

type sparseEmb struct{ denseEmb }

func (sparseEmb) EmbedSparse(ctx context.Context, texts []string) ([]SparseVector, error) {
	out := make([]SparseVector, len(texts))
	for i := range out {
		out[i] = SparseVector{Dim: 3, Index: []int32{0}, Value: []float32{1}}
	}
	return out, nil
}

// Sparse sees through any number of meters, and each meter counts a
// sparse embedding as it counts Embed's.
func TestSparseThroughMeters(t *testing.T) {
	outer, inner := NewMeter(), NewMeter()
	wrap := func(e Embedder) Embedder {
		return WithEmbedMeter(WithEmbedMeter(e, inner, "retrieval", membench.StageBuild), outer, "retrieval", membench.StageBuild)
	}
	if s := Sparse(wrap(denseEmb{})); s != nil {
		t.Fatalf("Sparse of a dense embedder behind two meters = %T, want nil", s)
	}
	if Sparse(denseEmb{}) != nil || Sparse(sparseEmb{}) == nil {
		t.Fatal("Sparse misjudged an unmetered embedder")
	}
	s := Sparse(wrap(sparseEmb{}))
	if s == nil {
		t.Fatal("Sparse of a sparse embedder behind two meters = nil")
	}
	texts := []string{"paint the lake", "run"}
	if _, err := s.EmbedSparse(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	want := tokens.Count(texts[0]) + tokens.Count(texts[1])
	for name, m := range map[string]*Meter{"outer": outer, "inner": inner} {
		tl := m.Snapshot()
		if len(tl) != 1 || tl[0].Label != "embedding" || tl[0].Calls != 2 || tl[0].InputTokens != want {
			t.Errorf("%s meter: %+v, want one embedding tally of 2 texts and %d tokens", name, tl, want)
		}
	}
}
