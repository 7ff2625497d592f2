// Package graph is a Mem0-graph-style memory: an entity graph of dated
// subject —relation→ object triples next to a flat fact store (the flat
// package's, as Mem0g keeps mem0's vector memory beside its graph).
//
// Build, per batch (one message by default): the flat calls (extract facts;
// update decision when there are similar stored facts), then one call that
// extracts entities and triples, then — when stored live triples touch the
// new triples' subjects — one conflict call that names the stored triples
// the new ones make obsolete (marked with time and turn, never deleted).
// Entity names are normalised (lowercase, trimmed, possessive and article
// stripped) and an unseen name joins an existing node only when its
// embedding cosine is >= merge-threshold AND the names agree (prefix,
// initials or a shared word), so "mel" joins "melanie" but "melbourne" does
// not, however close an embedder puts them.
//
// Retrieval: question entities (an LLM call, or the offline heuristic with
// question-entities=heuristic) are linked to nodes by name agreement or
// cosine >= link-threshold; the 1-hop edges of the linked nodes are ranked
// by cosine to the question and the first max-edges are shown, obsolete
// ones marked, above the flat facts (top k per speaker by default).
//
// Call counting follows the StructMem paper's Table 2: every chat request
// is one call, a JSON repair retry included; embeddings are not calls (they
// are in Counts["embedded_texts"]). Per message that is at most 4 build
// calls: extract facts, update decision, extract triples, conflict
// decision. Mem0g as run for the paper makes 2 mem0 calls plus 3 graph
// calls (entities, relations, deletions) per add, so its 53,514 calls on
// LoCoMo's 5,882 turns (~9.1 a turn) also reflect its per-speaker adds; our
// counts are in BuildStats.Counts (llm_calls, flat_calls, graph_calls) and
// the meter, and per-turn tokens in TurnTokens, for the growth comparison.
// Question-entity calls are retrieval-stage calls and not build cost.
package graph

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/flat"
)

// Defaults are flat's options plus the graph's own.
var Defaults = membench.Options{
	"merge-threshold":   "0.85",
	"link-threshold":    "0.7",
	"max-edges":         "40",
	"question-entities": "llm",
	"show-obsolete":     "true",
}.Merge(flat.Defaults)

// Config is the graph system's parsed options.
type Config struct {
	Flat             flat.Config
	MergeThreshold   float64
	LinkThreshold    float64
	MaxEdges         int
	QuestionEntities string // llm | heuristic
	ShowObsolete     bool
}

// ParseConfig reads the options (defaults filled in).
func ParseConfig(o membench.Options) (Config, error) {
	o = o.Merge(Defaults)
	fc, err := flat.ParseConfig(o)
	if err != nil {
		return Config{Flat: fc}, err
	}
	r := systems.Read(o)
	c := Config{
		Flat:             fc,
		MergeThreshold:   r.Float("merge-threshold", 0.85),
		LinkThreshold:    r.Float("link-threshold", 0.7),
		MaxEdges:         r.Int("max-edges", 40),
		QuestionEntities: r.String("question-entities", "llm", "llm", "heuristic"),
		ShowObsolete:     r.Bool("show-obsolete", true),
	}
	if c.MergeThreshold <= 0 || c.MergeThreshold > 1 || c.LinkThreshold <= 0 || c.LinkThreshold > 1 {
		r.Failf("options merge-threshold=%v, link-threshold=%v: want cosines in (0,1]", c.MergeThreshold, c.LinkThreshold)
	}
	if c.MaxEdges < 0 {
		r.Failf("option max-edges=%d: want 0 or more", c.MaxEdges)
	}
	return c, r.Err
}

func init() {
	systems.Register(systems.Spec{
		Name:        "graph",
		Description: "Mem0-graph-style: dated entity-relation triples with merged entities and obsolete marking, plus the flat fact store",
		Defaults:    Defaults,
		// Extraction per message: a greeting rightly gives nothing, so
		// only an empty memory or all-empty replies degrade a build.
		Memory: systems.MemoryRule{Builds: true},
		New:    New,
	})
}

// System is one conversation's graph memory.
type System struct {
	env      systems.Env
	cfg      Config
	g        *Graph
	facts    *flat.Store
	speakers []string
}

// New makes a graph system from env.Options.
func New(env systems.Env) (systems.System, error) {
	cfg, err := ParseConfig(env.Options)
	if err != nil {
		return nil, fmt.Errorf("system graph: %w", err)
	}
	if env.Build == nil || env.Embedder == nil {
		return nil, errors.New("system graph needs a build model and an embedder")
	}
	return &System{env: env, cfg: cfg}, nil
}

// Graph and Facts expose the built memory (nil before Ingest).
func (s *System) Graph() *Graph      { return s.g }
func (s *System) Facts() *flat.Store { return s.facts }

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	g, st, stats, err := Build(ctx, s.env, conv, s.cfg)
	if err != nil {
		return stats, err
	}
	s.g, s.facts, s.speakers = g, st, conv.Speakers
	return stats, nil
}

// QuestionEntities returns the question's entity names, from the build
// model (one retrieval-stage call) or the heuristic; a malformed reply
// falls back to the heuristic.
func (s *System) QuestionEntities(ctx context.Context, q *datasets.Question) ([]string, bool, error) {
	in := EntitiesInput{Question: q.Text, Speakers: s.speakers}
	if s.cfg.QuestionEntities == "heuristic" {
		return OfflineQuestionEntities(q.Text, s.speakers), false, nil
	}
	r, err := flat.Ask[entitiesReply](ctx, s.env, "graph_entities", llm.Request{Task: TaskEntities, Inputs: in, Stage: membench.StageRetrieve, Label: "question_entities"})
	if r.Failed {
		return OfflineQuestionEntities(q.Text, s.speakers), true, nil
	}
	return r.Out.Entities, false, err
}

func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.g == nil {
		return nil, errors.New("graph: Retrieve before Ingest")
	}
	ents, fellBack, err := s.QuestionEntities(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("graph: question %s entities: %w", q.ID, err)
	}
	qv, err := s.env.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("graph: embedding question %s: %w", q.ID, err)
	}
	linked, err := s.link(ctx, ents)
	if err != nil {
		return nil, err
	}
	edges := s.neighbourhood(linked, qv[0])
	k := b.KOr(s.cfg.Flat.K)
	groups := append([]flat.Group{{Title: "Relations", Items: edges}}, flat.Retrieve(s.facts, qv[0], k, s.cfg.Flat.Mode, s.speakers)...)
	c := flat.Context(flat.TrimToTokens(groups, b.MaxTokens), render)
	c.Notes = map[string]any{"question_entities": ents, "linked_nodes": len(linked)}
	if fellBack {
		c.Notes["question_entities_fallback"] = true
	}
	return c, nil
}

// link maps question entities to nodes: a name agreeing with an alias, or
// an alias embedding within link-threshold.
func (s *System) link(ctx context.Context, ents []string) (map[string]bool, error) {
	linked := map[string]bool{}
	var names []string
	for _, e := range ents {
		if n := Normalize(e); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return linked, nil
	}
	vecs, err := s.env.Embedder.Embed(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("graph: embedding question entities: %w", err)
	}
	for i, n := range names {
		for _, node := range s.g.nodes {
			for _, a := range node.Aliases {
				if NameAgree(n, a) {
					linked[node.ID] = true
				}
			}
		}
		for _, h := range s.g.nodeIdx.Search(vecs[i], 5, nil) {
			if h.Score < s.cfg.LinkThreshold {
				break
			}
			id, _, _ := strings.Cut(h.ID, "|")
			linked[id] = true
		}
	}
	return linked, nil
}

// neighbourhood returns the linked nodes' edges as items, best cosine to
// the question first, at most max-edges.
func (s *System) neighbourhood(linked map[string]bool, qv []float32) []membench.Item {
	edges := s.g.Touching(linked, s.cfg.ShowObsolete)
	if len(edges) == 0 || s.cfg.MaxEdges == 0 {
		return nil
	}
	in := map[string]bool{}
	for _, e := range edges {
		in[e.ID] = true
	}
	score := map[string]float64{}
	for _, h := range s.g.edgeIdx.Search(qv, 0, func(id string) bool { return in[id] }) {
		score[h.ID] = h.Score
	}
	sort.SliceStable(edges, func(i, j int) bool { return score[edges[i].ID] > score[edges[j].ID] })
	if len(edges) > s.cfg.MaxEdges {
		edges = edges[:s.cfg.MaxEdges]
	}
	out := make([]membench.Item, len(edges))
	for i, e := range edges {
		out[i] = membench.Item{ID: e.ID, Kind: "triple", Text: s.g.EdgeLine(*e), Time: e.Time, Speaker: e.Speaker, Sources: append([]string(nil), e.Sources...), Score: score[e.ID]}
	}
	return out
}

// EdgeLine renders an edge as "melanie —painted→ sunrise", with
// "(no longer true since 3 July 2023)" when obsolete.
func (g *Graph) EdgeLine(e Edge) string {
	s := g.name(e.Subject) + " —" + e.Relation + "→ " + g.name(e.Object)
	if e.Obsolete {
		s += " (no longer true"
		if d := flat.FormatDate(e.ObsoleteAt); d != "" {
			s += " since " + d
		}
		s += ")"
	}
	return s
}

// render writes the relations group (when non-empty) and the fact groups.
func render(groups []flat.Group) string {
	if len(groups) > 0 && len(groups[0].Items) == 0 {
		groups = groups[1:]
	}
	return flat.Render(groups)
}
