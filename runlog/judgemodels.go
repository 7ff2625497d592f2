package runlog

import "github.com/membench/membench"

// JudgeModel names the model a model judge asked, and whether it is the
// paid model that wrote the answers it judged (a model grading its own
// answers is a caveat readers should see; the offline heuristics are not
// a model).
type JudgeModel struct {
	Judge         string `json:"judge"`
	Model         string `json:"model"` // backend:model
	IsAnswerModel bool   `json:"is_answer_model,omitempty"`
}

// JudgeModels lists the run's model judges with their models, in the
// manifest's order; judges without a model (metrics, lexical) are left out.
func (m Manifest) JudgeModels() []JudgeModel {
	ans, hasAns := m.Models["answer"]
	var out []JudgeModel
	for _, j := range m.JudgeSpecs {
		if j.Model == nil || j.Model.Backend == "" {
			continue
		}
		out = append(out, JudgeModel{Judge: j.Name, Model: membench.ModelName(*j.Model), IsAnswerModel: hasAns && j.Model.Backend != "offline" && sameModel(*j.Model, ans)})
	}
	return out
}

func sameModel(a, b membench.ModelID) bool {
	return a.Backend == b.Backend && a.Model == b.Model && a.BaseURL == b.BaseURL
}
