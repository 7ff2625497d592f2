package membench

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/membench/membench/internal/badinput"
)

// JudgeInfo is one judge as a run describes it (the manifest's
// judge_specs): a reader learns from it alone how to read the judge's
// scores, so a run is read the same by any later binary, whatever judges
// that binary knows. The harness fills it from the judge's own description
// (judge.Describe).
type JudgeInfo struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`  // the judge registry's name when the run was made: f1 | bleu1 | em | lexical | llm | ...
	Class       string            `json:"class"` // JudgeMetric or JudgeVerdict
	Description string            `json:"description,omitempty"`
	Model       *ModelID          `json:"model,omitempty"` // backend, model and base URL (never credentials)
	Threshold   float64           `json:"threshold,omitempty"`
	Prompts     map[string]string `json:"prompts,omitempty"` // template -> sha256 [(file)]
	// AddedBy names the command that logs this judge's verdicts after a
	// run (human grades, imported results): no run builds it, so a run is
	// complete without its verdicts.
	AddedBy string `json:"added_by,omitempty"`
	// AnswerKey is the answer key a judge added under --answer-key judged
	// against ("NAME sha256:HEX"); "" = the run's own.
	AnswerKey string `json:"answer_key,omitempty"`
	// Repeats is the judgments per answer of a judge asked for more than
	// one (repeats=N); 0 means one.
	Repeats int `json:"repeats,omitempty"`
}

// KeyedJudge is the name under which judge's verdicts against answer key
// label are logged beside the run's own: "llm+audited".
func KeyedJudge(judge, label string) string { return judge + "+" + label }

// The classes of judge.
const (
	// JudgeMetric judges give a graded score in [0,1]; tables report its
	// mean.
	JudgeMetric = "metric"
	// JudgeVerdict judges say correct or wrong; tables report accuracy.
	JudgeVerdict = "verdict"
)

// JudgeSet is a run's judges as it records them: their names in order
// and the description of each.
type JudgeSet struct {
	Names []string
	Infos []JudgeInfo
}

// Info is the description of the judge named name.
func (s JudgeSet) Info(name string) (JudgeInfo, bool) {
	if i := slices.IndexFunc(s.Infos, func(in JudgeInfo) bool { return in.Name == name }); i >= 0 {
		return s.Infos[i], true
	}
	return JudgeInfo{}, false
}

// Class says whether the judge named name is a metric (mean score,
// JudgeMetric) or gives verdicts (accuracy, JudgeVerdict), as its
// description says. Anything else gives verdicts.
func (s JudgeSet) Class(name string) string {
	if in, ok := s.Info(name); ok && in.Class != "" {
		return in.Class
	}
	return JudgeVerdict
}

// IsMetric reports whether the judge named name reports a mean score.
func (s JudgeSet) IsMetric(name string) bool { return s.Class(name) == JudgeMetric }

// LoggedLater: no run builds the judge; its verdicts are added after the
// run (human grades, imported peers' results) and may cover part of it.
func (s JudgeSet) LoggedLater(name string) bool {
	in, _ := s.Info(name)
	return in.AddedBy != ""
}

// PrimaryByRule is the primary judge as writers choose it: the run's
// first verdict judge; with metric judges only, f1 if present, else the
// first. Writers record it (the manifest's primary_judge) when they write
// or change the judges, so a later binary with another rule reads the run
// alike.
func (s JudgeSet) PrimaryByRule() string {
	for _, j := range s.Names {
		if !s.IsMetric(j) {
			return j
		}
	}
	if slices.Contains(s.Names, "f1") {
		return "f1" // LoCoMo's headline metric
	}
	if len(s.Names) > 0 {
		return s.Names[0]
	}
	return ""
}

// Spec is the judge's full description (kind, model, threshold, prompt
// hashes) as one comparable string; "" when the run has none.
func (s JudgeSet) Spec(name string) string {
	if in, ok := s.Info(name); ok {
		return SpecString(in)
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

// NameReuse refuses to log verdicts under a judge name the run already
// holds with another spec: the two kinds of verdicts would mix under one
// name. It names both specs.
func (s JudgeSet) NameReuse(in JudgeInfo) error {
	old := s.Spec(in.Name)
	if old == "" || old == SpecString(in) {
		return nil
	}
	return badinput.Errorf("judge name %q is already in this run with another spec (run: %s; now: %s); give the new judge another name (name=%s-2 in its spec) or judge a copy of the run", in.Name, old, SpecString(in), in.Name)
}

// Threshold is the metric judge's threshold for its correct/wrong outcome
// as recorded (0 when not recorded).
func (s JudgeSet) Threshold(name string) float64 {
	in, _ := s.Info(name)
	return in.Threshold
}
