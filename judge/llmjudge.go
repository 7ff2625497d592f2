package judge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
)

// Embedded judge templates. LongMemEval question types with their own
// grading rules get a variant; everything else uses "judge".
const (
	TemplateJudge = "judge"
	// TemplateLenient is our lenient judge prompt (prompt=lenient): an
	// answer on the gold's topic that does not contradict it is CORRECT.
	TemplateLenient = "judge_lenient"
	// TemplateCognitive is our cognitive judge prompt (prompt=cognitive,
	// and the default for questions whose Sample.Prompt names it): the cue
	// dialogue is the evidence, and a reply that links the trigger to it
	// is CORRECT, one that only touches its topic PARTIAL.
	TemplateCognitive = "judge_cognitive"
)

// BuiltinPrompts are the judge prompts prompt= (and --judge-prompt) accept
// by name instead of a file: strict is our default set (with LongMemEval's
// per-type variants), lenient and cognitive one template for every
// question. Write a path with a directory (./lenient) to read a file of
// that name.
var BuiltinPrompts = map[string]string{"strict": "", "lenient": TemplateLenient, "cognitive": TemplateCognitive}

// BuiltinPromptNames lists BuiltinPrompts' names, sorted.
func BuiltinPromptNames() []string { return slices.Sorted(maps.Keys(BuiltinPrompts)) }

var lmeTemplates = map[string]string{
	"temporal-reasoning":        "judge_lme_temporal",
	"knowledge-update":          "judge_lme_update",
	"single-session-preference": "judge_lme_preference",
}

const lmeAbstentionTemplate = "judge_lme_abstention"

// templateFor picks the embedded template for a question.
func templateFor(q *datasets.Question) string {
	if q.Type == "" {
		return TemplateJudge // LoCoMo; judge.tmpl handles abstention itself
	}
	if q.Abstains() {
		return lmeAbstentionTemplate
	}
	if t, ok := lmeTemplates[q.Type]; ok {
		return t
	}
	return TemplateJudge
}

var llmSpec = Spec{Name: "llm", Kind: membench.JudgeVerdict, TakesModel: true,
	Description: "a real model asked for CORRECT or WRONG with our strict judge prompt, prompt=lenient for our lenient one, prompt=cognitive for CORRECT/PARTIAL/WRONG against the evidence, or prompt=FILE",
	New: func(c Config) (Judge, error) {
		j, err := NewLLMJudge(c.Name, c.Model, c.Prompt)
		if err != nil {
			return nil, err
		}
		// The name "llm" means a real model: on the offline backend its
		// verdicts would be the lexical heuristic under a model's name.
		// (A model judge the user names, e.g. cheap=offline, says in the
		// manifest that its model is offline.)
		if c.Name == "llm" && c.Model.ID().Backend == "offline" {
			return nil, fmt.Errorf("judge llm: the judge model is the offline backend, whose verdicts are the lexical heuristic, not a model's; use --judge-spec lexical for that heuristic, or give a real model with --judge-model (or NAME=BACKEND:MODEL)")
		}
		return j, nil
	}}

// LLMJudge asks a model for a verdict: CORRECT or WRONG, or PARTIAL too
// when its prompt offers it.
type LLMJudge struct {
	name  string
	model llm.Model
	// file is this judge's own prompt, read from its prompt file or named
	// (prompt=lenient); nil = the strict embedded templates. It replaces
	// every variant; a built-in one yields to the prompt a question asks
	// for (Sample.Prompt), a file does not.
	file *prompts.Template
	// repeats is judgments per answer (repeats=N); 0 or 1 = one.
	repeats int
}

// Repeats is how many times the judge judges each answer.
func (j *LLMJudge) Repeats() int { return max(1, j.repeats) }

// NewLLMJudge makes an LLM judge. promptFile, if not "", replaces the
// embedded prompts for this judge only (other judges keep theirs).
func NewLLMJudge(name string, m llm.Model, promptFile string) (*LLMJudge, error) {
	if m == nil {
		return nil, fmt.Errorf("judge %s: no model", name)
	}
	j := &LLMJudge{name: name, model: m}
	if tmpl, ok := BuiltinPrompts[promptFile]; ok {
		if tmpl != "" {
			t, err := prompts.Embedded(tmpl)
			if err != nil {
				return nil, fmt.Errorf("judge %s: %w", name, err)
			}
			j.file = t // one template for every question, like a file
		}
		return j, nil
	}
	if promptFile != "" {
		// Named per judge, so two judges can use two files and each file's
		// hash lands in the manifest under its judge (PromptHashes).
		t, err := prompts.FromFile("judge@"+name, promptFile)
		if err != nil {
			return nil, fmt.Errorf("judge %s: prompt=%s: %w (give a readable template file: system text, a line ---user---, user text)", name, promptFile, err)
		}
		if _, err := LabelsOf(t); err != nil {
			return nil, fmt.Errorf("judge %s: prompt=%s: %w", name, promptFile, err)
		}
		j.file = t
	}
	return j, nil
}

func (j *LLMJudge) Name() string { return j.name }

// Describe records the judge's model (never credentials) and prompts.
func (j *LLMJudge) Describe() membench.JudgeInfo {
	id := j.model.ID()
	return membench.JudgeInfo{Name: j.name, Kind: "llm", Model: &id, Prompts: j.PromptHashes()}
}

// Model is the judge's model.
func (j *LLMJudge) Model() llm.Model { return j.model }

// template picks the prompt for a sample: the judge's own file, else the
// prompt the question asks for, else the judge's built-in one.
func (j *LLMJudge) template(s Sample) (*prompts.Template, error) {
	if j.file != nil && j.file.FromFile() {
		return j.file, nil
	}
	if s.Prompt != "" {
		name, ok := BuiltinPrompts[s.Prompt]
		if !ok {
			return nil, fmt.Errorf("question %s asks for judge prompt %q, which this membench does not have (known: %s)", s.Question.ID, s.Prompt, strings.Join(BuiltinPromptNames(), ", "))
		}
		if name != "" { // "strict" asks for nothing special: the judge's own
			return prompts.Embedded(name)
		}
	}
	if j.file != nil {
		return j.file, nil
	}
	return prompts.Embedded(templateFor(s.Question))
}

// PromptHashes maps each template this judge may use to its sha256 (with
// the source file when the judge has its own), for the run manifest.
func (j *LLMJudge) PromptHashes() map[string]string {
	if j.file != nil && j.file.FromFile() {
		return map[string]string{j.file.Name(): j.file.ManifestHash()}
	}
	// A built-in prompt yields to the one a question asks for.
	names := []string{TemplateCognitive}
	if j.file != nil {
		names = append(names, j.file.Name())
	} else {
		names = slices.AppendSeq(append(names, TemplateJudge, lmeAbstentionTemplate), maps.Values(lmeTemplates))
	}
	out := map[string]string{}
	for _, n := range names {
		if h, err := prompts.Hash(n); err == nil {
			out[n] = h
		}
	}
	return out
}

// Input builds the judge input for a sample under a prompt offering set.
func Input(s Sample, set Labels) LLMJudgeInput {
	q := s.Question
	return LLMJudgeInput{
		Question:   q.Text,
		Gold:       q.Gold,
		Prediction: s.Prediction,
		Category:   q.Category,
		Abstention: q.Abstains(),
		Type:       q.Type,
		Evidence:   s.Evidence,
		Partial:    set == Graded,
	}
}

// Reasks is how many times an unparseable reply is asked again, past the
// cache, before the verdict is logged as invalid.
const Reasks = 2

// Judge asks the model for a verdict. A reply with no verdict is never
// cached and is asked again (at most Reasks times, skipping the cache); if
// it stays unparseable the verdict is Invalid and carries the last raw
// reply, so one bad reply neither stops a run nor poisons the cache.
func (j *LLMJudge) Judge(ctx context.Context, s Sample) (Verdict, error) {
	q := s.Question
	tmpl, err := j.template(s)
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %s: %w", j.name, err)
	}
	set, err := LabelsOf(tmpl)
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %s: %w", j.name, err)
	}
	in := Input(s, set)
	msgs, err := tmpl.Render(in)
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %s: %w", j.name, err)
	}
	req := llm.Request{
		Task:        "judge",
		Messages:    msgs,
		Temperature: 0,
		// OpenAI's JSON mode refuses prompts that never say "json", which a
		// user's prompt file may not; then the reply is parsed as text.
		JSON:   mentionsJSON(msgs),
		Inputs: in,
		Stage:  membench.StageJudge,
		Label:  tmpl.Name(),
		Accept: func(text string) error { _, err := ParseReplyIn(text, set); return err },
	}
	if s.Repeat > 0 {
		// Repeat r's own request: its own cache entry, and a seed a
		// sampling server may honour. The first keeps no seed, so runs
		// judged before repeats existed share its cache entries.
		seed := s.Repeat
		req.Seed = &seed
	}
	// The transcript keeps the request and the usage of every attempt.
	out := Verdict{Request: msgs}
	for attempt := 0; attempt <= Reasks; attempt++ {
		req.Fresh = attempt > 0
		resp, err := j.model.Chat(ctx, req)
		if err != nil {
			return Verdict{}, fmt.Errorf("judge %s, question %s: %w", j.name, q.ID, err)
		}
		out.Raw, out.Cached = resp.Text, resp.Cached
		out.Usage.InputTokens += resp.Usage.InputTokens
		out.Usage.OutputTokens += resp.Usage.OutputTokens
		v, err := ParseReplyIn(resp.Text, set)
		if err != nil {
			continue
		}
		l := verdictOf(v.Label, v.Reason)
		out.Correct, out.Score, out.Reason = l.Correct, l.Score, l.Reason
		return out, nil
	}
	out.Invalid = true
	out.Reason = (&UnparsedError{Judge: j.name, QuestionID: q.ID, Raw: out.Raw, Labels: set}).Error()
	return out, nil
}

// mentionsJSON reports whether any message contains "json" in any letter
// case: what strings.Contains(strings.ToLower(content), "json") says,
// without lowering a copy of every judge prompt (no rune outside ASCII
// lowers to j, s, o or n: TestMentionsJSONEqualsToLower checks every rune).
func mentionsJSON(msgs []membench.Message) bool {
	for _, m := range msgs {
		s := m.Content
		for i := 0; i+4 <= len(s); i++ {
			// b|0x20 folds exactly 'J'/'j', 'S'/'s', 'O'/'o', 'N'/'n' onto
			// the lower-case letter and no other byte onto them.
			if s[i]|0x20 == 'j' && s[i+1]|0x20 == 's' && s[i+2]|0x20 == 'o' && s[i+3]|0x20 == 'n' {
				return true
			}
		}
	}
	return false
}

// UnparsedError is a judge reply with no recognisable verdict.
type UnparsedError struct {
	Judge, QuestionID, Raw string
	Labels                 Labels // what the prompt offered
}

func (e *UnparsedError) Error() string {
	return fmt.Sprintf("judge %s, question %s: no single %s verdict in the reply %q (the prompt must ask for one label, %s)", e.Judge, e.QuestionID, e.Labels, clip.To(e.Raw, 300), e.Labels)
}
