package audit

import (
	"bytes"
	"encoding/json"

	"github.com/membench/membench/datasets"

	"github.com/membench/membench/internal/badinput"
)

// ReadRates reads judges' false-accept rates from path: the JSON of
// `membench audit judge --json`, or a file of known-wrong answers whose
// recorded verdicts (llm_judgments) are then tallied as the judge
// RecordedJudge. No judge is run.
func ReadRates(path string) (*JudgeAudit, error) {
	data, err := datasets.ReadInputFile(path, "--false-accept: give the JSON of membench audit judge --json, or a wrong-answer file with recorded verdicts")
	if err != nil {
		return nil, err
	}
	return ParseRates(data, path)
}

// ParseRates is ReadRates on a file's bytes.
func ParseRates(data []byte, path string) (*JudgeAudit, error) {
	var probe struct {
		Judges json.RawMessage `json:"judges"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &probe) == nil && len(probe.Judges) > 0 {
		var a JudgeAudit
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, badinput.Errorf("--false-accept %s: not the JSON of membench audit judge --json (%v); write it again with that command", path, err)
		}
		for _, j := range a.Judges {
			if j.Judge == "" || len(j.Rows) == 0 {
				return nil, badinput.Errorf("--false-accept %s: a judge entry without a name or rows; write the file again with membench audit judge --json", path)
			}
			o := j.Overall()
			if !(o.Rate >= 0 && o.Rate <= 1 && o.Lo >= 0 && o.Hi <= 1) {
				return nil, badinput.Errorf("--false-accept %s: judge %s's overall rate %v [%v, %v] is not a fraction in [0, 1]; write the file again with membench audit judge --json", path, j.Judge, o.Rate, o.Lo, o.Hi)
			}
		}
		return &a, nil
	}
	w, err := ParseWrong(data, path)
	if err != nil {
		return nil, err
	}
	if w.NeedsData() {
		return nil, badinput.Errorf("--false-accept %s: some answers lack question, gold or category; run membench audit judge --recorded --data LOCOMO --json on it and give that JSON", path)
	}
	jr, err := Recorded(w)
	if err != nil {
		return nil, err
	}
	return &JudgeAudit{File: path, Format: w.Format, Answers: len(w.Answers), Published: w.Accuracy, Judges: []JudgeRates{jr}}, nil
}
