// Package flat is the mem0-style flat memory: the build model extracts
// short facts from each message (or session), compares every new fact with
// the `similar` nearest stored facts and decides ADD, UPDATE, DELETE or
// NONE. Facts keep their history; deleted facts leave retrieval only.
// Retrieval is cosine over fact embeddings, top k per speaker (the mem0
// baseline setting of the StructMem paper) or top k overall.
//
// Call counting (as the StructMem paper's Table 2 counts "calls"): every
// chat request to the build model is one call, a repair retry included;
// per batch that is one extraction call plus one update call when the batch
// yielded facts and the store already held some. Embeddings are counted
// separately (Counts["embedded_texts"]), never as calls.
package flat

import (
	"context"
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
)

func init() {
	systems.Register(systems.Spec{
		Name:        "flat",
		Description: "mem0-style flat facts: LLM extraction per message, ADD/UPDATE/DELETE/NONE decisions, cosine top-k per speaker",
		Defaults:    Defaults,
		// Extraction per message: a greeting rightly gives nothing, so
		// only an empty memory or all-empty replies degrade a build.
		Memory: systems.MemoryRule{Builds: true},
		New:    New,
	})
}

// System is one conversation's flat memory.
type System struct {
	env      systems.Env
	cfg      Config
	store    *Store
	speakers []string
}

// New makes a flat system from env.Options.
func New(env systems.Env) (systems.System, error) {
	cfg, err := ParseConfig(env.Options)
	if err != nil {
		return nil, fmt.Errorf("system flat: %w", err)
	}
	if env.Build == nil || env.Embedder == nil {
		return nil, fmt.Errorf("system flat needs a build model and an embedder")
	}
	return &System{env: env, cfg: cfg}, nil
}

// Store is the built fact store (nil before Ingest).
func (s *System) Store() *Store { return s.store }

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	store, stats, err := Build(ctx, s.env, conv, s.cfg)
	if err != nil {
		return stats, err
	}
	s.store, s.speakers = store, conv.Speakers
	return stats, nil
}

func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.store == nil {
		return nil, fmt.Errorf("flat: Retrieve before Ingest")
	}
	v, err := s.env.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("flat: embedding question %s: %w", q.ID, err)
	}
	k := b.KOr(s.cfg.K)
	return Context(TrimToTokens(Retrieve(s.store, v[0], k, s.cfg.Mode, s.speakers), b.MaxTokens), Render), nil
}

// Context is what the answer model reads of groups: their items, and
// their text as render writes it.
func Context(groups []Group, render func([]Group) string) *systems.Context {
	c := &systems.Context{Rendered: render(groups)}
	for _, g := range groups {
		c.Items = append(c.Items, g.Items...)
	}
	c.Tokens = tokens.Count(c.Rendered)
	return c
}

// Group is a titled list of retrieved facts ("Memories of Melanie").
type Group struct {
	Title string
	Items []membench.Item
}

// Item turns a hit into a retrieval item.
func Item(h Hit) membench.Item {
	return membench.Item{ID: h.ID, Kind: "fact", Text: h.Text, Time: h.Time, Speaker: h.Speaker, Sources: h.Sources, Score: h.Score}
}

// Retrieve returns the top-k live facts for a question vector: per speaker
// (k each, one group per speaker in the given order) or combined (k overall).
func Retrieve(st *Store, vec []float32, k int, mode string, speakers []string) []Group {
	if mode == "combined" {
		g := Group{Title: "Memories"}
		for _, h := range st.Search(vec, k) {
			g.Items = append(g.Items, Item(h))
		}
		return []Group{g}
	}
	if len(speakers) == 0 {
		speakers = st.Speakers()
	}
	var out []Group
	for _, sp := range speakers {
		g := Group{Title: "Memories of " + sp}
		for _, h := range st.SearchWhere(vec, k, func(f Fact) bool { return f.Speaker == sp }) {
			g.Items = append(g.Items, Item(h))
		}
		out = append(out, g)
	}
	return out
}

// Render writes groups as dated bullet lists.
func Render(groups []Group) string {
	var sb strings.Builder
	for i, g := range groups {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(g.Title + ":\n")
		if len(g.Items) == 0 {
			sb.WriteString("(none)\n")
		}
		for _, it := range g.Items {
			sb.WriteString("- ")
			if d := FormatDate(it.Time); d != "" {
				sb.WriteString("[" + d + "] ")
			}
			sb.WriteString(it.Text + "\n")
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

// TrimToTokens drops the lowest-scoring items (across groups) until the
// rendering fits max tokens; max <= 0 means no limit.
func TrimToTokens(groups []Group, max int) []Group {
	for max > 0 && tokens.Count(Render(groups)) > max {
		// The lowest score goes; on a tie, the first in reading order.
		wg, wi := -1, 0
		for gi, g := range groups {
			for ii, it := range g.Items {
				if wg < 0 || it.Score < groups[wg].Items[wi].Score {
					wg, wi = gi, ii
				}
			}
		}
		if wg < 0 {
			break
		}
		items := groups[wg].Items
		groups[wg].Items = append(items[:wi:wi], items[wi+1:]...)
	}
	return groups
}
