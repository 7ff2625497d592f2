package llm

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"
)

// Meter counts calls, tokens and seconds by role, stage and label. One meter
// may be shared by many metered models; it is safe for concurrent use.
type Meter struct {
	mu sync.Mutex
	// t holds the tallies in order of first use. A meter holds a few (a
	// question's one or two, a run's one per model task), which a scan
	// finds as soon as a map would, without a map's allocation per meter.
	t []*membench.Tally
}

// NewMeter returns an empty meter.
func NewMeter() *Meter { return &Meter{} }

// tally returns the tally for role, stage, label and model, made on
// first use; the caller holds m.mu.
func (m *Meter) tally(role string, stage membench.Stage, label, model string) *membench.Tally {
	for _, t := range m.t {
		if t.Role == role && t.Stage == stage && t.Label == label && t.Model == model {
			return t
		}
	}
	t := &membench.Tally{Role: role, Stage: stage, Label: label, Model: model}
	m.t = append(m.t, t)
	return t
}

// add counts calls (all cached, or none) of one tally.
func (m *Meter) add(role string, stage membench.Stage, label, model string, calls int, u membench.Usage, cached bool, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tally(role, stage, label, model)
	t.Calls += calls
	if cached {
		t.CachedCalls += calls
	}
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CachedInputTokens += u.CachedInputTokens
	t.Seconds += d.Seconds()
}

// Snapshot returns all tallies, sorted by stage, role, label and model.
func (m *Meter) Snapshot() []membench.Tally {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]membench.Tally, len(m.t))
	for i, t := range m.t {
		out[i] = *t
	}
	slices.SortFunc(out, func(a, b membench.Tally) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Role, b.Role), cmp.Compare(a.Label, b.Label), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// Total sums the tallies of one stage ("" for all stages); embedding
// tallies are left out of LLM call counts.
func (m *Meter) Total(stage membench.Stage) membench.Tally {
	var sum membench.Tally
	sum.Stage = stage
	for _, t := range m.Snapshot() {
		if (stage != "" && t.Stage != stage) || t.Label == "embedding" {
			continue
		}
		sum.Add(t)
	}
	return sum
}

// TotalTokens is input+output LLM tokens of a stage, for cumulative curves.
func (m *Meter) TotalTokens(stage membench.Stage) int {
	t := m.Total(stage)
	return t.InputTokens + t.OutputTokens
}

// Metered wraps a model and records every call in a meter under a role
// ("build", "answer", "judge:gpt-4o-mini", ...).
type Metered struct {
	Inner Model
	Meter *Meter
	Role  string
}

// WithMeter wraps m so its calls are counted in meter under role.
func WithMeter(m Model, meter *Meter, role string) Model {
	return &Metered{Inner: m, Meter: meter, Role: role}
}

func (w *Metered) ID() membench.ModelID { return w.Inner.ID() }

func (w *Metered) Chat(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	r, err := w.Inner.Chat(ctx, req)
	if err == nil {
		meterFor(ctx, w.Meter).add(w.Role, req.Stage, req.Label, membench.ModelName(w.Inner.ID()), 1, r.Usage, r.Cached, time.Since(start))
	}
	return r, err
}

func (w *Metered) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	start := time.Now()
	r, err := w.Inner.Decide(ctx, req)
	if err == nil {
		meterFor(ctx, w.Meter).add(w.Role, req.Stage, req.Label, membench.ModelName(w.Inner.ID()), 1, r.Usage, r.Cached, time.Since(start))
	}
	return r, err
}

// MeteredEmbedder counts texts embedded and their tokens under label
// "embedding". Embeddings are not LLM calls: Total leaves them out.
type MeteredEmbedder struct {
	Inner Embedder
	Meter *Meter
	Role  string
	Stage membench.Stage
}

// WithEmbedMeter wraps e so its work is counted in meter.
func WithEmbedMeter(e Embedder, meter *Meter, role string, stage membench.Stage) Embedder {
	return &MeteredEmbedder{Inner: e, Meter: meter, Role: role, Stage: stage}
}

func (w *MeteredEmbedder) Name() string { return w.Inner.Name() }

func (w *MeteredEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedMetered(ctx, w, texts, func() ([][]float32, error) { return w.Inner.Embed(ctx, texts) })
}

// EmbedSparse is Embed of a SparseEmbedder, metered the same way; it fails
// when the inner embedder is not one (see Sparse).
func (w *MeteredEmbedder) EmbedSparse(ctx context.Context, texts []string) ([]SparseVector, error) {
	in, ok := w.Inner.(SparseEmbedder)
	if !ok {
		return nil, fmt.Errorf("embedder %s gives no sparse vectors", w.Inner.Name())
	}
	return embedMetered(ctx, w, texts, func() ([]SparseVector, error) { return in.EmbedSparse(ctx, texts) })
}

// embedMetered runs embed and, when it succeeds, counts texts and their
// tokens in w's meter.
func embedMetered[T any](ctx context.Context, w *MeteredEmbedder, texts []string, embed func() (T, error)) (T, error) {
	start := time.Now()
	v, err := embed()
	if err != nil {
		return v, err
	}
	n := 0
	for _, t := range texts {
		n += tokens.Count(t)
	}
	// Calls are texts embedded, by the embedding model without its URL.
	meterFor(ctx, w.Meter).add(w.Role, w.Stage, "embedding", EmbedderModel(w.Inner.Name()), len(texts), membench.Usage{InputTokens: n}, false, time.Since(start))
	return v, nil
}

type callMeterKey struct{}

// WithCallMeter returns a context whose metered calls (chat, decide,
// embedding) count in m instead of their model's own meter. The harness
// gives each question and each judgment its own meter this way, so their
// costs are written with them and a crash loses none that a result rests on.
func WithCallMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, callMeterKey{}, m)
}

func meterFor(ctx context.Context, def *Meter) *Meter {
	if m, ok := ctx.Value(callMeterKey{}).(*Meter); ok && m != nil {
		return m
	}
	return def
}

// Minus returns the tallies of now less those of before (same role, stage,
// label and model), leaving out empty ones: the usage between two snapshots.
func Minus(now, before []membench.Tally) []membench.Tally {
	type tallyKey struct {
		role  string
		stage membench.Stage
		label string
		model string
	}
	prev := map[tallyKey]membench.Tally{}
	for _, t := range before {
		prev[tallyKey{t.Role, t.Stage, t.Label, t.Model}] = t
	}
	var out []membench.Tally
	for _, t := range now {
		p := prev[tallyKey{t.Role, t.Stage, t.Label, t.Model}]
		d := membench.Tally{Role: t.Role, Stage: t.Stage, Label: t.Label, Model: t.Model, Calls: t.Calls - p.Calls, CachedCalls: t.CachedCalls - p.CachedCalls,
			InputTokens: t.InputTokens - p.InputTokens, OutputTokens: t.OutputTokens - p.OutputTokens,
			CachedInputTokens: t.CachedInputTokens - p.CachedInputTokens, Seconds: t.Seconds - p.Seconds}
		if d.Calls != 0 || d.InputTokens != 0 || d.OutputTokens != 0 {
			out = append(out, d)
		}
	}
	return out
}
