package graph

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/systems"
)

// Node is one entity. Name is the canonical (longest) name; Aliases are all
// names merged into it, Name included.
type Node struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases"`
	Type    string   `json:"type,omitempty"`
}

// Edge is one subject —relation→ object triple, stamped with the time of
// the utterance it came from. A conflicting newer triple marks it Obsolete
// (with when and by which turns); it is never removed.
type Edge struct {
	ID         string    `json:"id"`
	Subject    string    `json:"subject"` // node id
	Relation   string    `json:"relation"`
	Object     string    `json:"object"` // node id
	Single     bool      `json:"single,omitempty"`
	Time       time.Time `json:"time"`
	Speaker    string    `json:"speaker,omitempty"`
	Sources    []string  `json:"sources"`
	Obsolete   bool      `json:"obsolete,omitempty"`
	ObsoleteAt time.Time `json:"obsolete_at,omitempty"`
	ObsoleteBy []string  `json:"obsolete_by,omitempty"`
}

// Graph is one conversation's entity graph. Not safe for concurrent
// writes; the build applies batches in order.
type Graph struct {
	nodes   []*Node
	byName  map[string]*Node // every alias -> node
	nodeIdx *vindex.Index    // one vector per alias, id "node|alias"
	edges   []*Edge
	edgeIdx *vindex.Index
	byKey   map[string]*Edge // live "s|r|o" -> edge
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{byName: map[string]*Node{}, nodeIdx: vindex.New(), edgeIdx: vindex.New(), byKey: map[string]*Edge{}}
}

// Nodes returns copies of the nodes in creation order.
func (g *Graph) Nodes() []Node {
	out := make([]Node, len(g.nodes))
	for i, n := range g.nodes {
		out[i] = *n
		out[i].Aliases = append([]string(nil), n.Aliases...)
	}
	return out
}

// Edges returns copies of all edges, obsolete ones included.
func (g *Graph) Edges() []Edge {
	out := make([]Edge, len(g.edges))
	for i, e := range g.edges {
		out[i] = cloneEdge(e)
	}
	return out
}

func cloneEdge(e *Edge) Edge {
	c := *e
	c.Sources = append([]string(nil), e.Sources...)
	c.ObsoleteBy = append([]string(nil), e.ObsoleteBy...)
	return c
}

// Node returns the node with id.
func (g *Graph) Node(id string) (Node, bool) {
	if n := g.nodeOf(id); n != nil {
		return *n, true
	}
	return Node{}, false
}

// NodeByName finds the node holding a (normalised) name as an alias.
func (g *Graph) NodeByName(name string) (Node, bool) {
	n, ok := g.byName[Normalize(name)]
	if !ok {
		return Node{}, false
	}
	return *n, true
}

func (g *Graph) nodeOf(id string) *Node {
	for _, n := range g.nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// Resolve maps a normalised name to a node: an existing alias; else the
// most similar alias whose cosine is at least threshold AND whose name
// agrees (NameAgree); else a new node. vec is the name's embedding.
// merged reports whether a new alias joined an existing node.
func (g *Graph) Resolve(name, typ string, vec []float32, threshold float64) (id string, merged bool) {
	if n, ok := g.byName[name]; ok {
		return n.ID, false
	}
	for _, h := range g.nodeIdx.Search(vec, 10, nil) {
		if h.Score < threshold {
			break
		}
		nodeID, alias, _ := strings.Cut(h.ID, "|")
		if !NameAgree(name, alias) {
			continue
		}
		n := g.nodeOf(nodeID)
		n.Aliases = append(n.Aliases, name)
		if len(name) > len(n.Name) {
			n.Name = name
		}
		g.byName[name] = n
		g.nodeIdx.Add(nodeID+"|"+name, vec)
		return nodeID, true
	}
	n := &Node{ID: "n" + strconv.Itoa(len(g.nodes)+1), Name: name, Aliases: []string{name}, Type: typ}
	g.nodes = append(g.nodes, n)
	g.byName[name] = n
	g.nodeIdx.Add(n.ID+"|"+name, vec)
	return n.ID, false
}

// AddEdge stores a triple unless the same live triple exists, in which
// case it only gains the new sources. created is false for a repeat.
func (g *Graph) AddEdge(e Edge, vec []float32) (id string, created bool) {
	key := e.Subject + "|" + e.Relation + "|" + e.Object
	if old := g.byKey[key]; old != nil {
		old.Sources = systems.MergeIDs(old.Sources, e.Sources)
		old.Single = old.Single || e.Single
		return old.ID, false
	}
	ne := e
	ne.ID = "e" + strconv.Itoa(len(g.edges)+1)
	ne.Sources = append([]string(nil), e.Sources...)
	g.edges = append(g.edges, &ne)
	g.byKey[key] = &ne
	g.edgeIdx.Add(ne.ID, vec)
	return ne.ID, true
}

// MarkObsolete flags a live edge as no longer true since at.
func (g *Graph) MarkObsolete(id string, at time.Time, by []string) bool {
	for _, e := range g.edges {
		if e.ID == id && !e.Obsolete {
			e.Obsolete, e.ObsoleteAt, e.ObsoleteBy = true, at, append([]string(nil), by...)
			delete(g.byKey, e.Subject+"|"+e.Relation+"|"+e.Object)
			return true
		}
	}
	return false
}

// Touching returns the edges with a given node as subject or object.
func (g *Graph) Touching(nodes map[string]bool, withObsolete bool) []*Edge {
	var out []*Edge
	for _, e := range g.edges {
		if (nodes[e.Subject] || nodes[e.Object]) && (withObsolete || !e.Obsolete) {
			out = append(out, e)
		}
	}
	return out
}

// EdgeText is an edge as plain words, for embeddings and prompts.
func (g *Graph) EdgeText(e Edge) string {
	return g.name(e.Subject) + " " + strings.ReplaceAll(e.Relation, "_", " ") + " " + g.name(e.Object)
}

func (g *Graph) name(id string) string {
	if n := g.nodeOf(id); n != nil {
		return n.Name
	}
	return id
}

// Normalize lowercases an entity name, trims spaces and punctuation,
// strips a possessive ("Melanie's" -> "melanie") and a leading article.
func Normalize(name string) string {
	s := strings.ToLower(strings.ReplaceAll(name, "’", "'"))
	s = strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "'")
	s = strings.Join(strings.Fields(s), " ")
	for _, a := range []string{"the ", "a ", "an "} {
		s = strings.TrimPrefix(s, a)
	}
	return s
}

// NameAgree is the name half of the merge rule: equal names; one a prefix
// of the other (at least 3 letters: "mel"/"melanie"); one the initials of
// the other ("nyc"/"new york city"); or a shared word of at least 3
// letters that is not a stopword ("caroline"/"caroline smith").
func NameAgree(a, b string) bool {
	if a == b {
		return a != ""
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	if len(short) >= 3 && strings.HasPrefix(long, short) {
		return true
	}
	if lw := strings.Fields(long); len(lw) > 1 && !strings.Contains(short, " ") {
		ini := ""
		for _, w := range lw {
			ini += w[:1]
		}
		if ini == strings.ReplaceAll(short, ".", "") {
			return true
		}
	}
	aw := map[string]bool{}
	for _, w := range strings.Fields(a) {
		aw[w] = true
	}
	for _, w := range strings.Fields(b) {
		if aw[w] && len(w) >= 3 && !lexical.IsStopword(w) {
			return true
		}
	}
	return false
}

// singleValued relations hold one object at a time.
var singleValued = map[string]bool{
	"lives_in": true, "works_at": true, "married_to": true, "engaged_to": true,
	"dating": true, "age": true, "has_age": true, "job": true, "occupation": true,
	"works_as": true, "is_a": false,
}

// relationAlias folds common variants onto one relation name.
var relationAlias = map[string]string{
	"live_in": "lives_in", "lived_in": "lives_in", "living_in": "lives_in", "moved_to": "lives_in",
	"move_to": "lives_in", "resides_in": "lives_in", "reside_in": "lives_in", "lives_at": "lives_in",
	"work_at": "works_at", "worked_at": "works_at", "working_at": "works_at", "work_for": "works_at",
	"works_for": "works_at", "worked_for": "works_at", "employed_at": "works_at", "employed_by": "works_at",
	"married": "married_to", "marry": "married_to", "is_married_to": "married_to", "married_with": "married_to",
	"work_as": "works_as", "worked_as": "works_as", "working_as": "works_as",
}

// CanonicalRelation lowercases a relation, joins its words with "_" and
// folds known variants ("lived in" -> "lives_in").
func CanonicalRelation(r string) string {
	r = strings.ToLower(strings.TrimSpace(r))
	r = strings.Join(strings.FieldsFunc(r, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }), "_")
	if a, ok := relationAlias[r]; ok {
		return a
	}
	return r
}

// IsSingleValued reports whether the built-in list marks a relation as
// holding one object at a time.
func IsSingleValued(rel string) bool { return singleValued[CanonicalRelation(rel)] }
