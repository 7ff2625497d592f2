package runlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/membench/membench"
)

// AddJudges lists judges added to a finished run (by `membench judge` or
// `grade`) in its manifest: their names in judges and their descriptions
// in judge_specs. Fields this binary does not know survive, and the run's
// config, and so its resume hash, is left alone.
func AddJudges(dir string, judges []membench.JudgeInfo) error {
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
	var specs []membench.JudgeInfo
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
		if !slices.Contains(names, in.Name) {
			names = append(names, in.Name)
			changed = true
		}
		if !slices.ContainsFunc(specs, func(s membench.JudgeInfo) bool { return s.Name == in.Name }) {
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
	raw["primary_judge"], _ = json.Marshal(m.JudgeSet().PrimaryByRule())
	return WriteJSON(mp, raw)
}

// JudgeSet is the run's judges with their descriptions, as membench reads
// them (class, primary judge, spec).
func (m Manifest) JudgeSet() membench.JudgeSet {
	return membench.JudgeSet{Names: m.Judges, Infos: m.JudgeSpecs}
}

// PrimaryJudge is the judge whose verdicts a reader uses when none is
// named: the one the manifest records (primary_judge), else by the rule
// writers record it with (JudgeSet.PrimaryByRule).
func (m Manifest) PrimaryJudge() string {
	if m.Primary != "" && slices.Contains(m.Judges, m.Primary) {
		return m.Primary
	}
	return m.JudgeSet().PrimaryByRule()
}
