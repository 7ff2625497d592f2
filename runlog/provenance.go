package runlog

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
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
// judged every answer. An invalid verdict counts as judged, as the run's
// own status (Lines.Status) counts it: the judge was asked and its reply
// is recorded and counted apart, and a rerun that asks again may get the
// same reply.
func (r *Run) Status() Status {
	s := computeStatus(r.Manifest, r.Answers, slices.Concat(r.Judgments, r.Invalid))
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
		if m.JudgeSet().LoggedLater(j) {
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
		if in.Model != nil && in.Model.Backend == "offline" && !slices.Contains(out, "judge model") {
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
	return len(m.JudgeSpecs) == 0 || // old manifests: assume it was
		slices.ContainsFunc(m.JudgeSpecs, func(in membench.JudgeInfo) bool { return in.Model != nil && *in.Model == m.Models["judge"] })
}

// hasRealModel: some role or judge calls a real model.
func (m Manifest) hasRealModel() bool {
	for _, id := range m.Models {
		if id.Backend != "" && id.Backend != "offline" {
			return true
		}
	}
	return slices.ContainsFunc(m.JudgeSpecs, func(in membench.JudgeInfo) bool { return in.Model != nil && in.Model.Backend != "offline" })
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

// PeerEmbedder is the embedder an imported peer's manifest names: the
// peer's retrieval is its own and unknown.
const PeerEmbedder = "none (imported peer results)"
