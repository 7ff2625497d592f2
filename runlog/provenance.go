package runlog

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench/internal/badinput"
)

// Run states in Manifest.Status.
const (
	StateComplete   = "complete"
	StateIncomplete = "incomplete"
)

// Status says whether a run finished: every question answered and judged
// by every judge of the run.
type Status struct {
	State     string         `json:"state"` // complete | incomplete
	Questions int            `json:"questions"`
	Answered  int            `json:"answered"`
	Judged    map[string]int `json:"judged,omitempty"` // judge -> answered questions it judged
}

// String is "complete" or "incomplete (3/10 answered; llm judged 2)".
func (s Status) String() string {
	if s.State == StateComplete {
		return StateComplete
	}
	out := fmt.Sprintf("%s (%d/%d answered", StateIncomplete, s.Answered, s.Questions)
	for _, j := range slices.Sorted(maps.Keys(s.Judged)) {
		if s.Judged[j] < s.Answered {
			out += fmt.Sprintf("; %s judged %d", j, s.Judged[j])
		}
	}
	return out + ")"
}

// Status recomputes the run's status from its records (the manifest's
// own status is only as fresh as the last write): complete when every
// question of the manifest is answered and every judge of the manifest
// judged every answer.
func (r *Run) Status() Status {
	s := computeStatus(r.Manifest, r.Answers, r.Judgments)
	if ms := r.Manifest.Status; ms != nil && ms.State == StateIncomplete && s.State == StateComplete && r.Manifest.Finished.IsZero() {
		s.State = StateIncomplete // stopped before it could say otherwise
	}
	return s
}

// StatusOf computes the status of the run in dir from its records.
func StatusOf(dir string, m Manifest) (Status, error) {
	ans, err := ReadJSONL[AnswerRecord](filepath.Join(dir, AnswersFile))
	if err != nil {
		return Status{}, err
	}
	js, err := ReadJSONL[Judgment](filepath.Join(dir, JudgmentsFile))
	if err != nil {
		return Status{}, err
	}
	return Lines{Answers: ans, Judgments: js}.Status(m), nil
}

func computeStatus(m Manifest, answers []AnswerRecord, judgments []Judgment) Status {
	s := Status{Questions: m.Questions, Answered: len(answers), Judged: map[string]int{}}
	answered := map[string]bool{}
	for _, a := range answers {
		answered[a.QuestionID] = true
	}
	for _, j := range judgments {
		if answered[j.QuestionID] {
			s.Judged[j.Judge]++
		}
	}
	if s.Questions == 0 {
		s.Questions = s.Answered // manifests that do not say how many were asked
	}
	s.State = StateComplete
	if s.Questions == 0 || s.Answered < s.Questions {
		s.State = StateIncomplete
	}
	for _, j := range m.Judges {
		if m.loggedLater(j) {
			continue // human grades and imported verdicts may cover part of a run
		}
		if s.Judged[j] < s.Answered {
			s.State = StateIncomplete
			s.Judged[j] += 0 // listed with its count, even when none
		}
	}
	return s
}

// OfflineList names the parts of a run served by the offline backend's
// heuristics: model roles ("answer model") and model judges ("judge llm").
// Empty when nothing is offline.
func (m Manifest) OfflineList() []string {
	var out []string
	for _, role := range slices.Sorted(maps.Keys(m.Models)) {
		if m.Models[role].Backend != "offline" {
			continue
		}
		if role == "judge" && !m.judgeModelUsed() {
			continue // no judge of this run calls the run's judge model
		}
		out = append(out, role+" model")
	}
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && in.Model.Backend == "offline" && !contains(out, "judge model") {
			out = append(out, "judge "+in.Name)
		}
	}
	if len(out) == 0 && m.Offline {
		out = []string{"every model"} // old manifests: only the flag
	}
	return out
}

// judgeModelUsed: some judge of the run calls the run's judge model (a
// judge with its own model spec calls that one instead).
func (m Manifest) judgeModelUsed() bool {
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && *in.Model == m.Models["judge"] {
			return true
		}
	}
	return len(m.JudgeSpecs) == 0 // old manifests: assume it was
}

// hasRealModel: some role or judge calls a real model.
func (m Manifest) hasRealModel() bool {
	for _, id := range m.Models {
		if id.Backend != "" && id.Backend != "offline" {
			return true
		}
	}
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && in.Model.Backend != "offline" {
			return true
		}
	}
	return false
}

// Backends says which backends made the run: "offline", "real", or
// "mixed (offline: build model, decide model)"; "" when the manifest
// names no models (imported peers' results).
func (m Manifest) Backends() string {
	off := m.OfflineList()
	switch {
	case len(off) == 0 && !m.hasRealModel():
		return ""
	case len(off) == 0:
		return "real"
	case !m.hasRealModel():
		return "offline"
	}
	return "mixed (offline: " + strings.Join(off, ", ") + ")"
}

// OfflineNote is the line a statistic over this run carries when any of
// it comes from offline heuristics; "" when none does.
func (m Manifest) OfflineNote() string {
	off := m.OfflineList()
	if len(off) == 0 {
		return ""
	}
	return "offline heuristics (" + strings.Join(off, ", ") + "): measures the pipeline, not model quality"
}

// SyntheticNote is the line every figure computed from this run carries
// when its dataset is synthetic; "" otherwise.
func (m Manifest) SyntheticNote() string {
	if !m.Synthetic {
		return ""
	}
	return "SYNTHETIC dataset (" + m.Dataset + ", written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// SyntheticNotes is the SYNTHETIC line for runs of which any is on a
// synthetic dataset, naming them; "" when none is.
func SyntheticNotes(ms ...*Manifest) string {
	var names []string
	for _, m := range ms {
		if m != nil && m.Synthetic {
			names = append(names, m.RunID)
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if len(names) > 3 {
		list = fmt.Sprintf("%d runs, e.g. %s", len(names), strings.Join(names[:3], ", "))
	}
	return "SYNTHETIC dataset (" + list + ": written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// JudgeSpec is the judge's full description (kind, model, threshold,
// prompt hashes) as one comparable string; "" when the manifest has none.
func (m Manifest) JudgeSpec(name string) string {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			return SpecString(in)
		}
	}
	return ""
}

// SpecString is a judge's description as one comparable string: what
// decides its verdicts, not its wording or who added it.
func SpecString(in JudgeInfo) string {
	in.Description, in.AddedBy = "", ""
	if len(in.Prompts) > 0 {
		// A prompt's content, not the path it was read from.
		p := map[string]string{}
		for k, v := range in.Prompts {
			p[k], _, _ = strings.Cut(v, " ")
		}
		in.Prompts = p
	}
	b, _ := json.Marshal(in)
	return string(b)
}

// JudgeNameReuse refuses to log verdicts under a judge name the run
// already holds with another spec: the two kinds of verdicts would mix
// under one name. It names both specs.
func (m Manifest) JudgeNameReuse(in JudgeInfo) error {
	old := m.JudgeSpec(in.Name)
	if old == "" || old == SpecString(in) {
		return nil
	}
	return badinput.Errorf("judge name %q is already in this run with another spec (run: %s; now: %s); give the new judge another name (name=%s-2 in its spec) or judge a copy of the run", in.Name, old, SpecString(in), in.Name)
}

// Threshold is the metric judge's threshold for its correct/wrong
// outcome as the manifest records it (0 when not recorded).
func (m Manifest) Threshold(name string) float64 {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			return in.Threshold
		}
	}
	return 0
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
// (docs/runs.md, "Evidence recall"), so a synthesis that cites whole sessions adds none.
func CountEvidence(rec RetrievalRecord) EvidenceCount {
	ev := map[string]bool{}
	for _, e := range rec.Evidence {
		if e != "" {
			ev[e] = true
		}
	}
	c := EvidenceCount{Evidence: len(ev)}
	cands, ctx := sources(rec.Candidates), sources(rec.Items)
	for e := range ev {
		if cands[e] {
			c.InCandidates++
		}
		if ctx[e] {
			c.InContext++
		}
	}
	if len(ctx) == 0 && rec.EvidenceHit > 0 {
		// Items without sources: trust the harness's own count.
		c.InContext = min(rec.EvidenceHit, c.Evidence)
	}
	return c
}

// CountsForRecall says whether a question enters evidence recall: it has
// evidence and is not an abstention question (LoCoMo category 5 and
// LongMemEval _abs, whose evidence points at a premise, not an answer),
// the same questions the overall score counts.
func CountsForRecall(a AnswerRecord, c EvidenceCount) bool {
	return c.Evidence > 0 && !a.Abstains()
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

// PeerEmbedder is the embedder an imported peer's manifest names: the
// peer's retrieval is its own and unknown.
const PeerEmbedder = "none (imported peer results)"

// ImportedPeer reports whether the run is imported peer results; imports
// written before Peer was recorded are known by their embedder.
func (m Manifest) ImportedPeer() bool {
	return m.Peer || m.Embedder == PeerEmbedder
}
