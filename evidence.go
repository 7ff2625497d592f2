package membench

// ItemRef is a retrieved item without its text (the text is in the context).
type ItemRef struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind,omitempty"`
	Sources []string `json:"sources,omitempty"`
	Score   float64  `json:"score"`
}

// EvidenceCount is one retrieval's evidence: the distinct evidence turn
// ids, and how many of them are among the candidates' and the rendered
// items' sources.
type EvidenceCount struct {
	Evidence, InCandidates, InContext int
}

// CountEvidence is the one definition of a retrieval's evidence hits,
// used by the summary's evidence recall and by diagnose: an evidence turn
// is hit when it is among the sources of an item read (or a candidate).
// Systems list as an item's sources only the turns it cites
// (docs/runs.md, "Evidence recall"), so a synthesis that cites whole
// sessions adds none. hit is the harness's own count of evidence found,
// trusted for items recorded without sources.
func CountEvidence(evidence []string, candidates, items []ItemRef, hit int) EvidenceCount {
	ev := map[string]bool{}
	for _, e := range evidence {
		if e != "" {
			ev[e] = true
		}
	}
	c := EvidenceCount{Evidence: len(ev)}
	cands, ctx := sources(candidates), sources(items)
	for e := range ev {
		if cands[e] {
			c.InCandidates++
		}
		if ctx[e] {
			c.InContext++
		}
	}
	if len(ctx) == 0 && hit > 0 {
		c.InContext = min(hit, c.Evidence)
	}
	return c
}

// CountsForRecall says whether a question enters evidence recall: it has
// evidence and is not an abstention question (LoCoMo category 5 and
// LongMemEval _abs, whose evidence points at a premise, not an answer),
// the same questions the overall score counts.
func CountsForRecall(abstains bool, c EvidenceCount) bool {
	return c.Evidence > 0 && !abstains
}

func sources(items []ItemRef) map[string]bool {
	s := map[string]bool{}
	for _, it := range items {
		for _, src := range it.Sources {
			s[src] = true
		}
	}
	return s
}
