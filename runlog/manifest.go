package runlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// JudgeInfo is one judge as the manifest describes it (judge_specs): a
// reader learns from it alone how to read the judge's scores, so a run is
// read the same by any later binary, whatever judges that binary knows.
// The harness fills it from the judge's own description (judge.Info).
type JudgeInfo struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`  // the judge registry's name when the run was made: f1 | bleu1 | em | lexical | llm | ...
	Class       string            `json:"class"` // JudgeMetric or JudgeVerdict; empty in manifests written before it was recorded
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

// The classes of judge a manifest names.
const (
	// JudgeMetric judges give a graded score in [0,1]; tables report its
	// mean.
	JudgeMetric = "metric"
	// JudgeVerdict judges say correct or wrong; tables report accuracy.
	JudgeVerdict = "verdict"
)

// shippedJudges are the judge kinds membench has shipped, for manifests
// written before judge_specs gave each judge's class and who adds it:
// such a run is read by this table, never by the reading binary's
// registry, so every later binary reads it alike.
var shippedJudges = map[string]struct {
	class string
	later bool // logged after the run (grade, peers), never built by it
}{
	"f1":       {JudgeMetric, false},
	"bleu1":    {JudgeMetric, false},
	"em":       {JudgeMetric, false},
	"lexical":  {JudgeVerdict, false},
	"llm":      {JudgeVerdict, false},
	"human":    {JudgeVerdict, true},
	"peer-llm": {JudgeVerdict, true},
}

// specKind is the judge kind an old manifest's --judge spec names
// ("f1,threshold=0.3" is f1, "gpt4o=openai:gpt-4o-mini" an llm judge).
func specKind(spec string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(spec), ",")
	if strings.Contains(first, "=") {
		return "llm"
	}
	return strings.ToLower(strings.TrimSpace(first))
}

// AddJudges lists judges added to a finished run (by `membench judge` or
// `grade`) in its manifest: their names in judges and their descriptions
// in judge_specs. Fields this binary does not know survive, and the run's
// config, and so its resume hash, is left alone.
func AddJudges(dir string, judges []JudgeInfo) error {
	mp := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(mp)
	if err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("%s: %v", mp, err)
	}
	var names []string
	var specs []JudgeInfo
	if j, ok := raw["judges"]; ok {
		if err := json.Unmarshal(j, &names); err != nil {
			return fmt.Errorf("%s: judges: %v", mp, err)
		}
	}
	if j, ok := raw["judge_specs"]; ok {
		if err := json.Unmarshal(j, &specs); err != nil {
			return fmt.Errorf("%s: judge_specs: %v", mp, err)
		}
	}
	changed := false
	for _, in := range judges {
		if !contains(names, in.Name) {
			names = append(names, in.Name)
			changed = true
		}
		if !hasSpec(specs, in.Name) {
			specs = append(specs, in)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	raw["judges"], _ = json.Marshal(names)
	raw["judge_specs"], _ = json.Marshal(specs)
	// The primary judge by the rule over the judges now listed (a verdict
	// judge added to a run of metrics becomes its primary), recorded so
	// readers need no rule of their own.
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %v", mp, err)
	}
	m.Judges, m.JudgeSpecs = names, specs
	raw["primary_judge"], _ = json.Marshal(m.PrimaryByRule())
	return WriteJSON(mp, raw)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func hasSpec(specs []JudgeInfo, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}

// JudgeClass says whether the judge named name in this run is a metric
// (mean score, JudgeMetric) or gives verdicts (accuracy, JudgeVerdict), as
// the manifest says. Manifests written before judge_specs carried the
// class are read through the kinds membench shipped: the judge's spec,
// its spec in the config, then its name. Anything else gives verdicts.
func (m Manifest) JudgeClass(name string) string {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			if in.Class != "" {
				return in.Class
			}
			if k, ok := shippedJudges[strings.ToLower(in.Kind)]; ok {
				return k.class
			}
		}
	}
	// Older manifests: names are parallel to the config's specs.
	if len(m.Config.Judges) == len(m.Judges) {
		for i, n := range m.Judges {
			if n == name {
				if k, ok := shippedJudges[specKind(m.Config.Judges[i])]; ok {
					return k.class
				}
			}
		}
	}
	if k, ok := shippedJudges[strings.ToLower(name)]; ok {
		return k.class
	}
	return JudgeVerdict
}

// IsMetric reports whether the judge named name reports a mean score.
func (m Manifest) IsMetric(name string) bool { return m.JudgeClass(name) == JudgeMetric }

// loggedLater: no run builds the judge; its verdicts are added after the
// run (human grades, imported peers' results) and may cover part of it.
func (m Manifest) loggedLater(name string) bool {
	kind := name
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			if in.AddedBy != "" {
				return true
			}
			kind = in.Kind
		}
	}
	return shippedJudges[strings.ToLower(kind)].later
}

// PrimaryJudge is the judge whose verdicts a reader uses when none is
// named: the one the manifest records (primary_judge), else by the rule
// writers record it with (PrimaryByRule).
func (m Manifest) PrimaryJudge() string {
	if m.Primary != "" && contains(m.Judges, m.Primary) {
		return m.Primary
	}
	return m.PrimaryByRule()
}

// PrimaryByRule is the primary judge as writers choose it: the run's
// first verdict judge; with metric judges only, f1 if present, else the
// first. Writers record it (Manifest.Primary) when they write or change
// the judges, so a later binary with another rule reads the run alike.
func (m Manifest) PrimaryByRule() string {
	for _, j := range m.Judges {
		if !m.IsMetric(j) {
			return j
		}
	}
	if contains(m.Judges, "f1") {
		return "f1" // LoCoMo's headline metric
	}
	if len(m.Judges) > 0 {
		return m.Judges[0]
	}
	return ""
}
