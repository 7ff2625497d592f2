package judge

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

// MetricJudge turns a lexical metric into a judge: Score is the metric's
// value, Correct is Score >= Threshold.
type MetricJudge struct {
	name, metric string // metric: f1 | bleu1 | em
	Threshold    float64
	// Phrases decide category-5/abstention questions; nil = LoCoMo's two.
	Phrases []string
}

func (m *MetricJudge) Name() string { return m.name }

func (m *MetricJudge) Judge(ctx context.Context, q *datasets.Question, prediction string) (Judgment, error) {
	var s float64
	switch {
	case m.metric == "f1":
		s = LoCoMoF1(q, prediction, m.Phrases)
	case q.Abstains(): // bleu1/em score abstention the way LoCoMo's F1 does
		if Declines(prediction, m.Phrases) {
			s = 1
		}
	case m.metric == "bleu1":
		s = BLEU1(prediction, ScoredGold(q))
	case m.metric == "em":
		if ExactMatch(prediction, ScoredGold(q)) {
			s = 1
		}
	default:
		return Judgment{}, fmt.Errorf("judge %s: unknown metric %q", m.name, m.metric)
	}
	return Judgment{QuestionID: q.ID, Judge: m.name, Correct: s >= m.Threshold, Score: s}, nil
}

// LexicalJudge is LexicalVerdict as a judge, with no model involved.
type LexicalJudge struct{ name string }

func (l *LexicalJudge) Name() string { return l.name }

func (l *LexicalJudge) Judge(ctx context.Context, q *datasets.Question, prediction string) (Judgment, error) {
	v := LexicalVerdict(Input(q, prediction))
	j := Judgment{QuestionID: q.ID, Judge: l.name, Correct: v.Label == LabelCorrect, Reason: v.Reason}
	if j.Correct {
		j.Score = 1
	}
	return j, nil
}

// Deps is what Parse needs from the harness.
type Deps struct {
	// DefaultModel is the run's judge model, used by "llm" and by specs
	// that set a name or prompt but no backend/model.
	DefaultModel llm.Model
	// NewModel builds a model from a model spec: either the short form
	// "BACKEND:MODEL" (e.g. "openai:gpt-4o-mini") or comma-separated
	// key=value pairs ("backend=openai,model=qwen2.5-32b-instruct,
	// base-url=http://localhost:8000/v1", plus any other keys the user gave
	// that the judge does not use itself).
	// When nil, Parse uses llm.ParseSpec and llm.Build with Build (its Role
	// defaulting to "judge:<name>").
	NewModel func(spec string) (llm.Model, error)
	Build    llm.BuildDeps
	// PromptFile is --judge-prompt: the prompt of LLM judges that set no
	// prompt= of their own.
	PromptFile string
	// DeclinePhrases decide category-5/abstention questions for the f1,
	// bleu1 and em judges; nil means LoCoMoDeclinePhrases.
	DeclinePhrases []string
}

// Known lists the judge names Parse accepts on their own.
func Known() []string { return []string{"bleu1", "em", "f1", "lexical", "llm"} }

// judge-level keys; every other key goes to the model spec.
var judgeKeys = map[string]bool{"name": true, "prompt": true, "threshold": true, "decline": true}

// Parse builds a judge from a --judge value:
//
//	f1 | bleu1 | em          LoCoMo lexical metrics (Correct when score >= 0.5; em exact)
//	lexical                  the offline lexical judge, no model
//	llm                      LLM judge on Deps.DefaultModel
//	NAME=BACKEND:MODEL       LLM judge NAME on that model (gpt4o=openai:gpt-4o-mini)
//	name=N,backend=B,model=M,base-url=U,prompt=FILE
//	                         LLM judge N on a model built from the other keys
//
// A bare kind may be followed by options: "f1,threshold=0.3",
// "llm,name=strict,prompt=FILE", "em,decline=not known|no idea".
func Parse(spec string, deps Deps) (Judge, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("--judge: empty value; use one of %s, NAME=BACKEND:MODEL or name=...,backend=...,model=...", strings.Join(Known(), ", "))
	}
	parts := strings.Split(spec, ",")
	kind := ""
	opts := map[string]string{}
	var order []string // model keys in the order given
	shortModel := ""
	for i, p := range parts {
		p = strings.TrimSpace(p)
		k, v, hasEq := strings.Cut(p, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !hasEq && i == 0:
			kind = strings.ToLower(k)
			continue
		case !hasEq:
			return nil, fmt.Errorf("--judge %q: %q is not key=value; write options as key=value after the judge kind", spec, p)
		case k == "" || v == "":
			return nil, fmt.Errorf("--judge %q: %q needs both a key and a value", spec, p)
		}
		k = strings.ToLower(k)
		// NAME=BACKEND:MODEL shorthand, only as the first item.
		if i == 0 && !judgeKeys[k] && !isModelKey(k) && (strings.Contains(v, ":") || v == "offline") {
			opts["name"] = k
			shortModel = v
			continue
		}
		if _, dup := opts[k]; dup {
			return nil, fmt.Errorf("--judge %q: key %q given twice", spec, k)
		}
		opts[k] = v
		if !judgeKeys[k] {
			order = append(order, k)
		}
	}
	if kind == "" {
		kind = "llm"
	}
	name := opts["name"]
	if name == "" {
		name = kind
	}
	phrases := deps.DeclinePhrases
	if d, ok := opts["decline"]; ok {
		phrases = strings.Split(d, "|")
	}
	switch kind {
	case "f1", "bleu1", "em":
		if len(order) > 0 || shortModel != "" || opts["prompt"] != "" {
			return nil, fmt.Errorf("--judge %q: the %s metric takes no model or prompt (only name=, threshold=, decline=)", spec, kind)
		}
		th := 0.5
		if kind == "em" {
			th = 1
		}
		if s, ok := opts["threshold"]; ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f < 0 || f > 1 {
				return nil, fmt.Errorf("--judge %q: threshold=%s must be a number in [0,1]", spec, s)
			}
			th = f
		}
		return &MetricJudge{name: name, metric: kind, Threshold: th, Phrases: phrases}, nil
	case "lexical":
		if len(order) > 0 || shortModel != "" || len(opts) > boolInt(opts["name"] != "") {
			return nil, fmt.Errorf("--judge %q: the lexical judge takes only name=", spec)
		}
		return &LexicalJudge{name: name}, nil
	case "llm":
	default:
		return nil, fmt.Errorf("--judge %q: unknown judge %q; known: %s, or NAME=BACKEND:MODEL, or name=N,backend=B,model=M[,base-url=U][,prompt=FILE]", spec, kind, strings.Join(Known(), ", "))
	}
	if _, ok := opts["threshold"]; ok {
		return nil, fmt.Errorf("--judge %q: threshold= applies to f1 and bleu1 only", spec)
	}
	var m llm.Model
	switch {
	case shortModel != "" || len(order) > 0:
		ms := shortModel
		if ms == "" {
			kv := make([]string, len(order))
			for i, k := range order {
				kv[i] = k + "=" + opts[k]
			}
			ms = strings.Join(kv, ",")
			if name == "llm" && opts["model"] != "" {
				name = opts["model"]
			}
		}
		newModel := deps.NewModel
		if newModel == nil {
			newModel = func(s string) (llm.Model, error) {
				sp, err := llm.ParseSpec(s)
				if err != nil {
					return nil, err
				}
				bd := deps.Build
				if bd.Role == "" {
					bd.Role = "judge:" + name
				}
				return llm.Build(sp, bd)
			}
		}
		var err error
		if m, err = newModel(ms); err != nil {
			return nil, fmt.Errorf("--judge %q: model: %w", spec, err)
		}
	default:
		if deps.DefaultModel == nil {
			return nil, fmt.Errorf("--judge %q: no judge model configured; set the run's judge model, name one (NAME=openai:MODEL), or use --judge lexical", spec)
		}
		m = deps.DefaultModel
	}
	prompt := opts["prompt"]
	if prompt == "" {
		prompt = deps.PromptFile
	}
	return NewLLMJudge(name, m, prompt)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isModelKey(k string) bool {
	switch k {
	case "backend", "model", "base-url", "base_url", "url", "api-key-env":
		return true
	}
	return false
}

// ParseAll parses several --judge values and rejects duplicate names.
func ParseAll(specs []string, deps Deps) ([]Judge, error) {
	var out []Judge
	seen := map[string]string{}
	for _, s := range specs {
		j, err := Parse(s, deps)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[j.Name()]; dup {
			return nil, fmt.Errorf("--judge %q and --judge %q both make a judge named %q; give one of them name=...", prev, s, j.Name())
		}
		seen[j.Name()] = s
		out = append(out, j)
	}
	return out, nil
}

// Info describes a configured judge for the run manifest.
type Info struct {
	Name      string            `json:"name"`
	Kind      string            `json:"kind"` // f1 | bleu1 | em | lexical | llm
	Model     *llm.ModelID      `json:"model,omitempty"`
	Threshold float64           `json:"threshold,omitempty"`
	Prompts   map[string]string `json:"prompts,omitempty"` // template -> sha256 [(file)]
}

// Describe returns the manifest entry of a judge made by Parse.
func Describe(j Judge) Info {
	switch x := j.(type) {
	case *MetricJudge:
		return Info{Name: x.name, Kind: x.metric, Threshold: x.Threshold}
	case *LexicalJudge:
		return Info{Name: x.name, Kind: "lexical"}
	case *LLMJudge:
		id := x.model.ID()
		return Info{Name: x.name, Kind: "llm", Model: &id, Prompts: x.PromptHashes()}
	}
	return Info{Name: j.Name(), Kind: fmt.Sprintf("%T", j)}
}
