package runlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/membench/membench/judge"
)

// AddJudges lists judges added to a finished run (by `membench judge` or
// `grade`) in its manifest: their names in judges and their descriptions
// in judge_specs. Fields this binary does not know survive, and the run's
// config, and so its resume hash, is left alone.
func AddJudges(dir string, judges []judge.Info) error {
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
	var specs []judge.Info
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

func hasSpec(specs []judge.Info, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}

// JudgeKind says whether the judge named name in this run is a metric
// (mean score) or gives verdicts (accuracy), as the judge registry
// defines its kind. The manifest's judge_specs name the kind; manifests
// written before them are read through the judge's spec in the config,
// then its name. A judge the registry does not know gives verdicts.
func (m Manifest) JudgeKind(name string) judge.Kind {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			if k, ok := judge.KindOf(in.Kind); ok {
				return k
			}
			if in.Class != "" {
				return in.Class
			}
		}
	}
	// Older manifests: names are parallel to the config's specs.
	if len(m.Config.Judges) == len(m.Judges) {
		for i, n := range m.Judges {
			if n == name {
				if k, ok := judge.KindOf(judge.SpecKind(m.Config.Judges[i])); ok {
					return k
				}
			}
		}
	}
	if k, ok := judge.KindOf(name); ok {
		return k
	}
	return judge.KindVerdict
}

// IsMetric reports whether the judge named name reports a mean score.
func (m Manifest) IsMetric(name string) bool { return m.JudgeKind(name) == judge.KindMetric }

// PrimaryJudge is the judge whose verdicts a reader uses when none is
// named: the run's first verdict judge; with metric judges only, f1 if
// present, else the first.
func (m Manifest) PrimaryJudge() string {
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
