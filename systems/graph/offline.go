package graph

import (
	"strings"
	"unicode"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/flat"
)

// Task kinds of the graph system (offline heuristics registered below).
const (
	TaskExtract  = "graph.extract"
	TaskConflict = "graph.conflict"
	TaskEntities = "graph.entities"
)

// ExtractInput is what graph_extract.tmpl renders and the offline
// "graph.extract" heuristic reads.
type ExtractInput struct {
	Speakers []string
	Previous string
	Messages []flat.MessageIn
	Session  bool
}

// ConflictInput is what graph_conflict.tmpl renders and the offline
// "graph.conflict" heuristic reads: the batch's new triples and the stored
// live triples about the same entities, under short ids.
type ConflictInput struct {
	Date     string
	New      []TripleIn
	Existing []TripleIn
}

// TripleIn is one triple shown to a prompt (ID empty for new triples).
type TripleIn struct {
	ID, Subject, Relation, Object, Date string
	Single                              bool
}

// EntitiesInput is what graph_entities.tmpl renders and the offline
// "graph.entities" heuristic reads.
type EntitiesInput struct {
	Question string
	Speakers []string
}

// Reply shapes shared by the real model and the heuristics.
type extractReply struct {
	Entities []entityOut `json:"entities"`
	Triples  []tripleOut `json:"triples"`
}

type entityOut struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type tripleOut struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
	Single   bool   `json:"single"`
	Turn     string `json:"turn,omitempty"`
}

type conflictReply struct {
	Obsolete []flat.FlexString `json:"obsolete"`
}

type entitiesReply struct {
	Entities []string `json:"entities"`
}

func init() {
	systems.Offline(TaskExtract, offlineExtract)
	systems.Offline(TaskConflict, offlineConflict)
	systems.Offline(TaskEntities, offlineEntities)
}

var (
	determiners  = map[string]bool{"a": true, "an": true, "the": true, "my": true, "his": true, "her": true, "their": true, "our": true, "your": true, "some": true, "this": true, "that": true, "these": true, "those": true, "two": true, "three": true, "new": true, "few": true}
	auxiliaries  = map[string]bool{"is": true, "was": true, "are": true, "were": true, "has": true, "have": true, "had": true, "will": true, "would": true, "just": true, "also": true, "really": true, "finally": true, "recently": true, "been": true, "be": true, "always": true, "never": true, "still": true, "can": true, "could": true, "did": true, "does": true, "do": true, "to": true, "going": true}
	prepositions = map[string]bool{"in": true, "at": true, "to": true, "for": true, "with": true, "from": true, "on": true, "about": true, "as": true, "into": true, "of": true, "over": true, "under": true, "near": true, "by": true, "after": true, "before": true, "during": true, "around": true, "through": true, "across": true, "behind": true, "since": true, "until": true}
	timeWords    = map[string]bool{"last": true, "next": true, "yesterday": true, "today": true, "tomorrow": true, "ago": true, "week": true, "weekend": true, "month": true, "year": true, "now": true, "soon": true, "recently": true, "tonight": true}
)

func clean(w string) string {
	return strings.TrimFunc(strings.ReplaceAll(w, "’", "'"), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

func isCap(w string) bool {
	r := []rune(w)
	return len(r) > 0 && unicode.IsUpper(r[0])
}

// OfflineTriples is the offline extraction for one message: entities are
// the speaker and capitalised words (not sentence-initial unless a
// speaker); triples follow "Name verb [prep] [det] object" in each
// sentence after first-person resolution ("I live in Boston" ->
// melanie —lives_in→ boston).
func OfflineTriples(speaker, text string, speakers []string) (entities []string, triples []tripleOut) {
	isSpeaker := map[string]bool{}
	for _, s := range append([]string{speaker}, speakers...) {
		isSpeaker[strings.ToLower(s)] = true
	}
	seen := map[string]bool{}
	addEnt := func(e string) {
		if n := Normalize(e); n != "" && !seen[n] {
			seen[n] = true
			entities = append(entities, e)
		}
	}
	addEnt(speaker)
	for _, s := range lexical.Sentences(text) {
		if _, img := lexical.Caption(s); img || strings.HasSuffix(s, "?") {
			continue
		}
		words := strings.Fields(lexical.ResolveFirstPerson(s, speaker))
		for i, w := range words {
			c := clean(w)
			if isCap(c) && c != "I" && (i > 0 || isSpeaker[strings.ToLower(strings.TrimSuffix(c, "'s"))]) && !lexical.IsStopword(strings.ToLower(c)) {
				addEnt(strings.TrimSuffix(c, "'s"))
			}
		}
		if t, ok := svo(words, isSpeaker); ok {
			triples = append(triples, t)
			addEnt(t.Object)
		}
	}
	return entities, triples
}

// svo reads "Subject verb [prep] object" from a sentence whose first word
// is a name (a possessive "Melanie's kids" is not a subject).
func svo(words []string, isSpeaker map[string]bool) (tripleOut, bool) {
	if len(words) < 3 {
		return tripleOut{}, false
	}
	subj := clean(words[0])
	if !isCap(subj) || strings.HasSuffix(subj, "'s") || lexical.IsStopword(strings.ToLower(subj)) {
		return tripleOut{}, false
	}
	i := 1
	verb := ""
	for ; i < len(words); i++ {
		w := strings.ToLower(clean(words[i]))
		if auxiliaries[w] || strings.HasSuffix(w, "ly") {
			if verb == "" && (w == "is" || w == "was" || w == "has" || w == "had") {
				verb = w // kept if no main verb follows
			}
			continue
		}
		if determiners[w] {
			break // "Melanie is a nurse": the aux is the verb
		}
		verb = w
		i++
		break
	}
	if verb == "" || i >= len(words) {
		return tripleOut{}, false
	}
	rel := verb
	if p := strings.ToLower(clean(words[i])); prepositions[p] {
		rel += "_" + p
		i++
	}
	var obj []string
	for ; i < len(words) && len(obj) < 3; i++ {
		raw := words[i]
		w := clean(raw)
		lw := strings.ToLower(w)
		if len(obj) == 0 && (determiners[lw] || strings.HasSuffix(lw, "'s")) {
			continue
		}
		if lw == "" || lw == "named" || lw == "called" || timeWords[lw] || prepositions[lw] || (lexical.IsStopword(lw) && !isCap(w)) {
			break
		}
		obj = append(obj, lw)
		if strings.ContainsAny(raw[len(raw)-1:], ",.;:!") {
			break
		}
	}
	if len(obj) == 0 {
		return tripleOut{}, false
	}
	rel = CanonicalRelation(rel)
	return tripleOut{Subject: subj, Relation: rel, Object: strings.Join(obj, " "), Single: IsSingleValued(rel)}, true
}

func offlineExtract(in ExtractInput) any {
	var out extractReply
	out.Triples = []tripleOut{}
	seen := map[string]bool{}
	for _, m := range in.Messages {
		ents, trs := OfflineTriples(m.Speaker, m.Text, in.Speakers)
		for _, e := range ents {
			if !seen[Normalize(e)] {
				seen[Normalize(e)] = true
				typ := "thing"
				if isCap(e) {
					typ = "name"
				}
				out.Entities = append(out.Entities, entityOut{e, typ})
			}
		}
		for _, t := range trs {
			if in.Session {
				t.Turn = m.TurnID
			}
			out.Triples = append(out.Triples, t)
		}
	}
	return out
}

// OfflineObsolete is the offline conflict rule: a stored triple is obsolete
// when a new one has the same subject and relation but another object, and
// either side is single-valued (flagged by the extractor or on the
// built-in list: lives_in, works_at, married_to, ...).
func OfflineObsolete(in ConflictInput) []string {
	out := []string{}
	for _, e := range in.Existing {
		for _, n := range in.New {
			if Normalize(n.Subject) == Normalize(e.Subject) && CanonicalRelation(n.Relation) == CanonicalRelation(e.Relation) &&
				Normalize(n.Object) != Normalize(e.Object) && (n.Single || e.Single || IsSingleValued(n.Relation)) {
				out = append(out, e.ID)
				break
			}
		}
	}
	return out
}

func offlineConflict(in ConflictInput) any {
	out := conflictReply{Obsolete: []flat.FlexString{}}
	for _, id := range OfflineObsolete(in) {
		out.Obsolete = append(out.Obsolete, flat.FlexString(id))
	}
	return out
}

var questionWords = map[string]bool{"what": true, "when": true, "where": true, "who": true, "why": true, "how": true, "which": true, "did": true, "does": true, "do": true, "is": true, "was": true, "are": true, "would": true, "could": true, "has": true, "have": true, "kind": true, "many": true, "much": true, "long": true}

// OfflineQuestionEntities picks a question's entities: speakers it names,
// capitalised words (not the first word), then content words of four
// letters or more (they link to object nodes such as "painting").
func OfflineQuestionEntities(q string, speakers []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if n := Normalize(s); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, s)
		}
	}
	lq := strings.ToLower(q)
	for _, s := range speakers {
		if strings.Contains(lq, strings.ToLower(s)) {
			add(s)
		}
	}
	words := strings.Fields(q)
	for i, w := range words {
		c := strings.TrimSuffix(clean(w), "'s")
		if i > 0 && isCap(c) && !lexical.IsStopword(strings.ToLower(c)) {
			add(c)
		}
	}
	for _, w := range lexical.Words(q) {
		w = strings.TrimSuffix(w, "'s")
		if len(w) >= 4 && !lexical.IsStopword(w) && !questionWords[w] {
			add(w)
		}
	}
	return out
}

func offlineEntities(in EntitiesInput) any {
	ents := OfflineQuestionEntities(in.Question, in.Speakers)
	if ents == nil {
		ents = []string{}
	}
	return entitiesReply{Entities: ents}
}
