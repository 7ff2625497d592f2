package judge

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/internal/suggest"
	"github.com/membench/membench/llm"
)

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

// judge-level keys; every other key goes to the model spec.
var judgeKeys = map[string]bool{"name": true, "prompt": true, "threshold": true, "decline": true, "repeats": true}

// Parse builds a judge from a --judge-spec value:
//
//	f1 | bleu1 | em          LoCoMo lexical metrics (Correct when score >= 0.5; em exact)
//	lexical                  the offline lexical judge, no model
//	llm                      LLM judge on Deps.DefaultModel
//	NAME=BACKEND:MODEL       LLM judge NAME on that model (gpt4o=openai:gpt-4o-mini)
//	name=N,backend=B,model=M,base-url=U,prompt=FILE
//	                         LLM judge N on a model built from the other keys
//
// A bare kind may be followed by options: "f1,threshold=0.3",
// "llm,name=strict,prompt=FILE", "em,decline=not known|no idea"; a model
// judge takes repeats=N (each answer judged N times, see Repeats).
func Parse(spec string, deps Deps) (Judge, error) {
	j, err := parse(spec, deps)
	return j, llm.RedactErr(err) // the spec may hold base-url=http://user:password@...
}

// specParts is a --judge value split into its kind, judge-level and
// model keys, before anything is built.
type specParts struct {
	kind       string
	opts       map[string]string
	order      []string // model keys in the order given
	shortModel string   // NAME=BACKEND:MODEL's BACKEND:MODEL
}

func splitSpec(spec string) (specParts, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return specParts{}, fmt.Errorf("--judge-spec: empty value; use one of %s, NAME=BACKEND:MODEL or name=N,backend=B,model=M", strings.Join(Known(), ", "))
	}
	p := specParts{opts: map[string]string{}}
	for i, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		k, v, hasEq := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !hasEq && i == 0:
			p.kind = strings.ToLower(k)
			continue
		case !hasEq:
			return p, fmt.Errorf("--judge-spec %q: %q is not key=value; write options as key=value after the judge kind", spec, part)
		case k == "" || v == "":
			return p, fmt.Errorf("--judge-spec %q: %q needs both a key and a value", spec, part)
		}
		k = strings.ToLower(k)
		// NAME=BACKEND:MODEL shorthand, only as the first item.
		if i == 0 && !judgeKeys[k] && !isModelKey(k) && (strings.Contains(v, ":") || v == "offline") {
			p.opts["name"] = k
			p.shortModel = v
			continue
		}
		if _, dup := p.opts[k]; dup {
			return p, fmt.Errorf("--judge-spec %q: key %q given twice", spec, k)
		}
		p.opts[k] = v
		if !judgeKeys[k] {
			p.order = append(p.order, k)
		}
	}
	if p.kind == "" {
		p.kind = "llm"
	}
	return p, nil
}

// name is the judge's name in the run: name=, else the kind, except that
// an llm judge given model= in keys is named after that model.
func (p specParts) name() string {
	name := cmp.Or(p.opts["name"], p.kind)
	if name == "llm" && p.shortModel == "" && p.opts["model"] != "" {
		name = p.opts["model"]
	}
	return name
}

// SpecName is the name the judge a --judge value builds has in a run,
// found without building it; "" when the value does not parse.
func SpecName(spec string) string {
	p, err := splitSpec(spec)
	if err != nil {
		return ""
	}
	return p.name()
}

// SpecPrompt reads a --judge-spec value without building its judge: the
// name the judge gets, its kind, and the prompt it judges with (its
// prompt=, else promptFile, the run's --judge-prompt, for a judge that asks
// a model; "" = membench's strict prompt).
func SpecPrompt(spec, promptFile string) (name, kind, prompt string, err error) {
	sp, err := splitSpec(spec)
	if err != nil {
		return "", "", "", err
	}
	prompt = sp.opts["prompt"]
	if s, err := Lookup(sp.kind); err == nil && s.TakesModel && prompt == "" {
		prompt = promptFile
	}
	return sp.name(), sp.kind, prompt, nil
}

// SpecModel is the model spec a --judge value names for its judge
// ("openai:gpt-4o", "backend=openai,model=M"); "" when it names none and
// the judge asks the run's judge model.
func SpecModel(spec string) string {
	sp, err := splitSpec(spec)
	if err != nil {
		return ""
	}
	return sp.model()
}

// model is the spec's model part: NAME=BACKEND:MODEL's BACKEND:MODEL, else
// its model keys in the order given.
func (p specParts) model() string {
	if p.shortModel != "" {
		return p.shortModel
	}
	kv := make([]string, len(p.order))
	for i, k := range p.order {
		kv[i] = k + "=" + p.opts[k]
	}
	return strings.Join(kv, ",")
}

// WithPrompt is spec with its prompt= set to prompt (replacing one it
// has), every other key kept as written.
func WithPrompt(spec, prompt string) string {
	parts := strings.Split(strings.TrimSpace(spec), ",")
	for i, p := range parts {
		k, _, hasEq := strings.Cut(p, "=")
		if hasEq && strings.EqualFold(strings.TrimSpace(k), "prompt") {
			parts[i] = "prompt=" + prompt
			return strings.Join(parts, ",")
		}
	}
	return strings.Join(append(parts, "prompt="+prompt), ",")
}

// SpecOf writes a --judge value that builds the judge a manifest entry
// describes again: kind, name, model, threshold, prompt file, repeats.
// runModel is the run's judge model, which a spec need not name.
// Decline phrases are not recorded, so a judge given decline= gets the
// default ones. "" when no --judge builds the kind (human, peer-llm).
func SpecOf(in membench.JudgeInfo, runModel membench.ModelID) string {
	sp, err := Lookup(in.Kind)
	if err != nil || sp.New == nil {
		return ""
	}
	m := in.Model
	if !sp.TakesModel || (m != nil && *m == runModel) {
		m = nil
	}
	if m != nil && in.Name == "llm" && in.Kind == "llm" {
		// Written with model keys, a judge named llm would be named after
		// its model; only the short form keeps the name (it has no
		// base-url, so a judge on another server cannot be written).
		return "llm=" + m.Backend + ":" + m.Model + specTail(in, sp)
	}
	var parts []string
	if m == nil || in.Kind != "llm" {
		parts = append(parts, in.Kind)
	}
	if in.Name != in.Kind {
		parts = append(parts, "name="+in.Name)
	}
	if in.Threshold != 0 && slices.Contains(sp.Options, "threshold") {
		// Only a threshold other than the kind's own is worth writing.
		if j, err := sp.New(Config{Name: in.Name, Options: map[string]string{}}); err != nil || Describe(j).Threshold != in.Threshold {
			parts = append(parts, "threshold="+strconv.FormatFloat(in.Threshold, 'g', -1, 64))
		}
	}
	if m != nil {
		parts = append(parts, "backend="+m.Backend)
		if m.Backend != "offline" {
			parts = append(parts, "model="+m.Model)
		}
		if m.BaseURL != "" {
			parts = append(parts, "base-url="+m.BaseURL)
		}
	}
	return strings.Join(parts, ",") + specTail(in, sp)
}

// specTail is a model judge's prompt file and repeats as spec keys.
func specTail(in membench.JudgeInfo, sp Spec) string {
	if !sp.TakesModel {
		return ""
	}
	var tail string
	for _, h := range in.Prompts {
		// A prompt read from a file is recorded as "SHA256 (FILE)".
		if _, file, ok := strings.Cut(h, " ("); ok {
			tail += ",prompt=" + strings.TrimSuffix(file, ")")
			break
		}
	}
	if in.Repeats > 1 {
		tail += ",repeats=" + strconv.Itoa(in.Repeats)
	}
	return tail
}

func parse(spec string, deps Deps) (Judge, error) {
	spec = strings.TrimSpace(spec)
	p, err := splitSpec(spec)
	if err != nil {
		return nil, err
	}
	kind, opts, order, shortModel := p.kind, p.opts, p.order, p.shortModel
	name := p.name()
	phrases := deps.DeclinePhrases
	if d, ok := opts["decline"]; ok {
		phrases = strings.Split(d, "|")
	}
	sp, err := Lookup(kind)
	if err != nil {
		// Not the registry's error: the hint and list name only the
		// judges a spec can build, and the spec's other spellings.
		return nil, fmt.Errorf("--judge-spec %q: unknown judge %q%s; known: %s, or NAME=BACKEND:MODEL, or name=N,backend=B,model=M[,base-url=U][,prompt=FILE]", spec, kind, suggest.Hint(kind, Known()), strings.Join(Known(), ", "))
	}
	if sp.New == nil {
		return nil, fmt.Errorf("--judge-spec %q: judge %s cannot be configured with --judge-spec; %s adds it", spec, kind, sp.AddedBy)
	}
	allowed := lexical.Set(append([]string{"name"}, sp.Options...))
	if sp.TakesModel {
		allowed["prompt"] = true
		allowed["repeats"] = true // metrics and the lexical judge are deterministic
	}
	c := Config{Name: name, Options: map[string]string{}, Phrases: phrases}
	for k, v := range opts {
		if !judgeKeys[k] {
			continue
		}
		if !allowed[k] {
			return nil, fmt.Errorf("--judge-spec %q: %s= does not apply to the %s judge (it takes %s)", spec, k, kind, strings.Join(keysOf(allowed), ", "))
		}
		c.Options[k] = v
	}
	if !sp.TakesModel {
		if len(order) > 0 || shortModel != "" {
			return nil, fmt.Errorf("--judge-spec %q: the %s judge takes no model (only %s)", spec, kind, strings.Join(keysOf(allowed), ", "))
		}
		j, err := sp.New(c)
		if err != nil {
			return nil, fmt.Errorf("--judge-spec %q: %v", spec, err)
		}
		return j, nil
	}
	var m llm.Model
	switch {
	case shortModel != "" || len(order) > 0:
		newModel := deps.NewModel
		if newModel == nil {
			newModel = func(s string) (llm.Model, error) {
				sp, err := llm.ParseSpec(s)
				if err != nil {
					return nil, err
				}
				bd := deps.Build
				bd.Role = cmp.Or(bd.Role, "judge:"+name)
				return llm.Build(sp, bd)
			}
		}
		var err error
		if m, err = newModel(p.model()); err != nil {
			return nil, fmt.Errorf("--judge-spec %q: model: %w", spec, err)
		}
	default:
		if deps.DefaultModel == nil {
			return nil, fmt.Errorf("--judge-spec %q: no judge model configured; set the run's judge model, name one (NAME=openai:MODEL), or use --judge-spec lexical", spec)
		}
		m = deps.DefaultModel
	}
	c.Name, c.Model, c.Prompt = name, m, cmp.Or(opts["prompt"], deps.PromptFile)
	reps := 1
	if v, ok := opts["repeats"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxRepeats {
			return nil, fmt.Errorf("--judge-spec %q: repeats=%s: give a whole number of judgments per answer from 1 to %d", spec, v, MaxRepeats)
		}
		reps = n
	}
	j, err := sp.New(c)
	if err != nil || reps == 1 {
		return j, err
	}
	return WithRepeats(j, reps)
}

func keysOf(m map[string]bool) []string {
	out := slices.Sorted(maps.Keys(m))
	for i := range out {
		out[i] += "="
	}
	return out
}

func isModelKey(k string) bool {
	switch k {
	case "backend", "model", "base-url", "base_url", "url", "api-key-env":
		return true
	}
	return false
}

// Describer is implemented by judges that describe themselves beyond
// their kind (model, threshold, prompts).
type Describer interface {
	Describe() membench.JudgeInfo
}

// Describe returns the manifest entry of a judge: every field a reader
// needs (the class above all) is written down, so no reader has to ask a
// registry that may not know the judge.
func Describe(j Judge) membench.JudgeInfo {
	var in membench.JudgeInfo
	if d, ok := j.(Describer); ok {
		in = d.Describe()
	} else {
		in = membench.JudgeInfo{Name: j.Name(), Kind: j.Name()}
	}
	if sp, err := Lookup(in.Kind); err == nil {
		in.Class = sp.Kind
		if in.Description == "" {
			in.Description = sp.Description
		}
		if in.AddedBy == "" {
			in.AddedBy = sp.AddedBy
		}
	}
	if n := Repeats(j); n > 1 {
		in.Repeats = n
	}
	return in
}
