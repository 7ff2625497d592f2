package prereg

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// Protocol is what a plan registers of how its runs are made, beside
// which runs it tests: a run that differs in any of it answers another
// question than the one registered. Lock records it resolved (prompt
// names and files as sha256s, options with the systems' defaults) and
// Test checks every run it reads against that record.
type Protocol struct {
	// Judge is the --judge-spec of the tested judge (its name is the
	// plan's judge), e.g. "llm,name=lenient,prompt=lenient".
	Judge string `yaml:"judge"`
	// AnswerPrompt is "membench" (our answer template) or a prompt file.
	AnswerPrompt string `yaml:"answer_prompt"`
	// Models are the role models (answer, judge, build, decide) as model
	// specs; every role must be named.
	Models map[string]string `yaml:"models"`
	// Embedder is the embedder (openai:MODEL, use-lite, hashed).
	Embedder string `yaml:"embedder"`
	// AnswerKey is published, audited or a key file.
	AnswerKey string `yaml:"answer_key"`
	// SystemOptions are, per membench system the plan's runs use, its
	// options apart from k (over the system's defaults); every system a
	// tested run uses must be listed, {} for its defaults.
	SystemOptions map[string]map[string]string `yaml:"system_options"`
}

// Roles every protocol names a model for, and distinct_models may name.
var protocolRoles = []string{"answer", "judge", "build", "decide"}

// Locked is the protocol as Lock resolved and recorded it (LockInfo).
type Locked struct {
	Judge string `json:"judge"` // the judge spec
	// JudgeKind is the judge's kind (llm, lexical, ...); JudgeModel its
	// model ("" for a judge that asks none).
	JudgeKind  string `json:"judge_kind"`
	JudgeModel string `json:"judge_model,omitempty"`
	// JudgeTemplate is the manifest's name of the judge's main prompt
	// (judge_lenient, judge, judge@NAME for a file) and JudgePromptSHA256
	// its sha256; empty for a judge with no prompt.
	JudgeTemplate      string `json:"judge_template,omitempty"`
	JudgePromptSHA256  string `json:"judge_prompt_sha256,omitempty"`
	AnswerPrompt       string `json:"answer_prompt"`
	AnswerPromptSHA256 string `json:"answer_prompt_sha256"`
	// Models: role -> "backend:model".
	Models    map[string]string `json:"models"`
	Embedder  string            `json:"embedder"`
	AnswerKey string            `json:"answer_key"` // published, audited, or sha256:HEX of a key file
	// SystemOptions: system -> every option but k, defaults filled.
	SystemOptions map[string]map[string]string `json:"system_options"`
	// PaperPrompts is how the registered prompts stand against the
	// paper's the plan pins (nil: it pins none).
	PaperPrompts *membench.PromptCheck `json:"paper_prompts,omitempty"`
}

// modelName is a model spec as "backend:model".
func modelName(spec string) (string, error) {
	s, err := llm.ParseSpec(spec)
	if err != nil {
		return "", err
	}
	return idName(s.Backend, s.Model), nil
}

// idName is a model as the protocol names it: "backend:model", or
// "offline" for the offline heuristics, whatever model name they carry.
func idName(backend, model string) string {
	if backend == "offline" {
		return "offline"
	}
	return backend + ":" + model
}

// resolveProtocol records p's protocol for its lock. Relative prompt and
// key files are read from the working directory, as the runs read them. allowMismatch registers a prompt file whose
// sha256 is not the one the plan pins (PaperPrompts), labelled.
func (p *Plan) resolveProtocol(path string, allowMismatch bool) (*Locked, error) {
	pr := p.Protocol
	if pr == nil {
		return nil, nil
	}
	where := path + ": protocol."
	l := &Locked{Judge: pr.Judge, Models: map[string]string{}, SystemOptions: map[string]map[string]string{}}
	for _, role := range protocolRoles {
		spec := strings.TrimSpace(pr.Models[role])
		if spec == "" {
			return nil, fmt.Errorf("%smodels.%s is empty: name the %s model every run will use (e.g. openai:gpt-4o-mini, or backend=openai,model=M,base-url=U) before locking", where, role, role)
		}
		name, err := modelName(spec)
		if err != nil {
			return nil, fmt.Errorf("%smodels.%s: %v", where, role, err)
		}
		l.Models[role] = name
	}
	for role := range pr.Models {
		if !slices.Contains(protocolRoles, role) {
			return nil, fmt.Errorf("%smodels.%s: not a role; name answer, judge, build and decide", where, role)
		}
	}
	name, kind, prompt, err := judge.SpecPrompt(pr.Judge, "")
	if err != nil {
		return nil, fmt.Errorf("%sjudge: %v", where, err)
	}
	if name != p.Judge {
		return nil, fmt.Errorf("%sjudge %q makes a judge named %s, but the plan tests judge %s; give it name=%s", where, pr.Judge, name, p.Judge, p.Judge)
	}
	sp, err := judge.Lookup(kind)
	if err != nil {
		return nil, fmt.Errorf("%sjudge %q: unknown judge kind %s (known: %s)", where, pr.Judge, kind, strings.Join(judge.Known(), ", "))
	}
	l.JudgeKind = kind
	if sp.TakesModel {
		l.JudgeModel = l.Models["judge"]
		if own := judge.SpecModel(pr.Judge); own != "" {
			if l.JudgeModel, err = modelName(own); err != nil {
				return nil, fmt.Errorf("%sjudge %q: model: %v", where, pr.Judge, err)
			}
		}
		tmpl, builtin := judge.BuiltinPrompts[prompt]
		switch {
		case prompt == "" || builtin:
			if tmpl == "" {
				tmpl = judge.TemplateJudge // strict
			}
			l.JudgeTemplate = tmpl
			l.JudgePromptSHA256, _ = prompts.Hash(tmpl)
		default:
			l.JudgeTemplate = "judge@" + name
			if l.JudgePromptSHA256, err = prompts.FileSHA256(prompt); err != nil {
				return nil, fmt.Errorf("%sjudge %q: prompt=%s: %v", where, pr.Judge, prompt, err)
			}
		}
	}
	l.AnswerPrompt = pr.AnswerPrompt
	switch pr.AnswerPrompt {
	case "", "membench":
		l.AnswerPrompt = "membench"
		l.AnswerPromptSHA256, _ = prompts.Hash("answer")
	default:
		if l.AnswerPromptSHA256, err = prompts.FileSHA256(pr.AnswerPrompt); err != nil {
			return nil, fmt.Errorf("%sanswer_prompt: %v (give a prompt file, or membench for membench's own)", where, err)
		}
	}
	switch e := strings.TrimSpace(pr.Embedder); {
	case e == "":
		return nil, fmt.Errorf("%sembedder is empty: name the embedder every run will use (e.g. openai:text-embedding-3-small, use-lite, hashed) before locking", where)
	case strings.HasPrefix(e, "openai:"):
		l.Embedder = e
	default:
		n, ok := embedder.Canonical(e)
		if !ok {
			return nil, fmt.Errorf("%sembedder %q: give openai:MODEL, use-lite or hashed", where, e)
		}
		l.Embedder = n
	}
	switch k := strings.TrimSpace(pr.AnswerKey); k {
	case "", "published", "audited":
		l.AnswerKey = cmp.Or(k, "published")
	default:
		sum, err := prompts.FileSHA256(k)
		if err != nil {
			return nil, fmt.Errorf("%sanswer_key: %v (give published, audited or a key file)", where, err)
		}
		l.AnswerKey = "sha256:" + sum
	}
	// The systems' options, over their defaults, k apart.
	if len(pr.SystemOptions) == 0 {
		return nil, fmt.Errorf("%ssystem_options: list every membench system the plan's runs use, with its options ({} for its defaults)", where)
	}
	for sys, opts := range pr.SystemOptions {
		spec, err := systems.Lookup(sys)
		if err != nil {
			return nil, fmt.Errorf("%ssystem_options.%s: %v", where, sys, err)
		}
		o := membench.Options{}
		for k, v := range opts {
			if k == "k" {
				return nil, fmt.Errorf("%ssystem_options.%s.k: the budget is each test's (k* or its run's k), not the protocol's; leave k out", where, sys)
			}
			o[k] = v
		}
		if err := o.Check(sys, spec.Defaults); err != nil {
			return nil, fmt.Errorf("%ssystem_options.%s: %v", where, sys, err)
		}
		full := o.Merge(spec.Defaults) // a new map
		delete(full, "k")
		l.SystemOptions[sys] = full
	}
	if p.PaperPrompts != nil {
		if l.PaperPrompts, err = p.checkPaperPrompts(l, pr, allowMismatch); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// checkPaperPrompts holds the registered prompts against the plan's pins
// as a run config's are (harness): another sha256 is refused unless
// allowMismatch; membench's own are labelled.
func (p *Plan) checkPaperPrompts(l *Locked, pr *Protocol, allowMismatch bool) (*membench.PromptCheck, error) {
	pp := p.PaperPrompts
	check := &membench.PromptCheck{Paper: pp.Paper}
	var refused []string
	add := func(what, file, sum string, pin *membench.PromptPin) {
		v := membench.PromptVerdict{Prompt: what, Status: membench.PromptsOwn, File: file}
		if pin != nil {
			v.Pinned, v.Source = pin.SHA256, pin.File
		}
		if file != "" {
			v.SHA256 = sum
			switch {
			case pin == nil:
			case pin.SHA256 == "":
				v.Status = membench.PromptsUnverified
			case strings.EqualFold(pin.SHA256, sum):
				v.Status = membench.PromptsPaper
			default:
				v.Status = membench.PromptsMismatch
				if !allowMismatch {
					refused = append(refused, fmt.Sprintf("%s %s: sha256 %.12s…, not the paper's %.12s… (%s)", what, file, sum, pin.SHA256, pin.File))
				}
			}
		}
		check.Add(v)
	}
	answerFile := l.AnswerPrompt
	if answerFile == "membench" {
		answerFile = ""
	}
	// Every system of the plan answers with the one registered prompt.
	seen := map[*membench.PromptPin]bool{}
	for _, s := range slices.Sorted(maps.Keys(l.SystemOptions)) {
		pin := pp.AnswerPin(s)
		if pin != nil {
			if seen[pin] {
				continue
			}
			seen[pin] = true
		}
		what := "answer"
		if pin == nil {
			what = "answer (" + s + ")"
		}
		add(what, answerFile, l.AnswerPromptSHA256, pin)
	}
	for i, pin := range pp.Judge {
		if pin.Judge != p.Judge {
			continue
		}
		file := ""
		if strings.HasPrefix(l.JudgeTemplate, "judge@") {
			_, _, file, _ = judge.SpecPrompt(pr.Judge, "")
		}
		add("judge "+pin.Judge, file, l.JudgePromptSHA256, &pp.Judge[i])
	}
	if len(refused) > 0 {
		return nil, badinput.Errorf("the protocol registers prompts that are not the paper's: %s; register the authors' files (docs/prompts.md, Bringing the papers' prompt files), or membench's own (labelled), or lock with --allow-prompt-mismatch to register them labelled", strings.Join(refused, "; "))
	}
	return check, nil
}

// ProtocolError is a run that differs from the locked protocol (exit 2).
type ProtocolError struct {
	Run, Field, Has, Registered string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("run %s differs from the locked protocol in %s: the run has %s, the plan registered %s; a pre-registered test reads only runs made as registered: rerun it as registered, or register a new plan", e.Run, e.Field, e.Has, e.Registered)
}

// BadInput marks the refusal as the user's input (exit code 2).
func (e *ProtocolError) BadInput() bool { return true }

// check refuses the run at dir when its manifest differs from l in any
// registered field, naming the first.
func (l *Locked) check(dir, judgeName string) error {
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		return badinput.Errorf("protocol: %s has no readable manifest (%v); the registered protocol can be checked only on run directories", dir, err)
	}
	differ := func(field, has, want string) error {
		return &ProtocolError{Run: filepath.Base(dir), Field: field, Has: cmp.Or(has, "none"), Registered: cmp.Or(want, "none")}
	}
	var info *membench.JudgeInfo
	for i := range m.JudgeSpecs {
		if m.JudgeSpecs[i].Name == judgeName {
			info = &m.JudgeSpecs[i]
		}
	}
	if info == nil {
		return differ("judge", "no judge "+judgeName, l.Judge)
	}
	if info.Kind != l.JudgeKind {
		return differ("judge "+judgeName+" kind", info.Kind, l.JudgeKind)
	}
	if l.JudgeModel != "" {
		has := ""
		if info.Model != nil {
			has = idName(info.Model.Backend, info.Model.Model)
		}
		if has != l.JudgeModel {
			return differ("judge "+judgeName+" model", has, l.JudgeModel)
		}
	}
	if l.JudgeTemplate != "" {
		got := firstWord(info.Prompts[l.JudgeTemplate])
		if got == "" {
			// The judge ran another prompt: say which.
			var names []string
			for _, n := range slices.Sorted(maps.Keys(info.Prompts)) {
				names = append(names, n+" "+shortHash(firstWord(info.Prompts[n])))
			}
			return differ("judge "+judgeName+" prompt", strings.Join(names, ", "), l.JudgeTemplate+" "+shortHash(l.JudgePromptSHA256))
		}
		if got != l.JudgePromptSHA256 {
			return differ("judge "+judgeName+" prompt sha256", got, l.JudgePromptSHA256)
		}
	}
	if got := firstWord(m.Prompts["answer"]); got != l.AnswerPromptSHA256 {
		return differ("answer prompt sha256", got, l.AnswerPromptSHA256+" ("+l.AnswerPrompt+")")
	}
	for _, role := range protocolRoles {
		id, ok := m.Models[role]
		has := ""
		if ok {
			has = idName(id.Backend, id.Model)
		}
		if has != l.Models[role] {
			return differ(role+" model", has, l.Models[role])
		}
	}
	// A run may record an OpenAI embedder as openai:MODEL@SUFFIX.
	if want := l.Embedder; m.Embedder != want && !(strings.HasPrefix(want, "openai:") && strings.HasPrefix(m.Embedder, want+"@")) {
		return differ("embedder", m.Embedder, want)
	}
	has := "published"
	if m.AnswerKey != nil && m.AnswerKey.Key != "" && m.AnswerKey.Key != "published" {
		has = m.AnswerKey.Key
	}
	switch want := l.AnswerKey; {
	case want == "published" && has != "published",
		want == "audited" && !strings.HasPrefix(has, "audited "),
		strings.HasPrefix(want, "sha256:") && !strings.HasSuffix(has, " "+want):
		return differ("answer key", has, want)
	}
	sys := m.Config.System
	want, ok := l.SystemOptions[sys]
	if !ok {
		listed := slices.Sorted(maps.Keys(l.SystemOptions))
		return differ("system", sys, "one of "+strings.Join(listed, ", ")+" (protocol.system_options)")
	}
	got := maps.Clone(m.SystemOptions)
	delete(got, "k")
	keys := slices.Concat(slices.Collect(maps.Keys(got)), slices.Collect(maps.Keys(want)))
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if got[k] != want[k] {
			return differ("system option "+sys+"."+k, got[k], want[k])
		}
	}
	return nil
}

// Summary is the locked protocol in one line, for the lock's output and
// the test's notes.
func (l *Locked) Summary() string {
	var models []string
	for _, role := range protocolRoles {
		models = append(models, role+" "+l.Models[role])
	}
	sys := slices.Sorted(maps.Keys(l.SystemOptions))
	judgePrompt := "none"
	if l.JudgeTemplate != "" {
		judgePrompt = l.JudgeTemplate + " " + shortHash(l.JudgePromptSHA256)
	}
	return fmt.Sprintf("judge %s (prompt %s), answer prompt %s %s, models %s, embedder %s, answer key %s, options of %s",
		l.Judge, judgePrompt, l.AnswerPrompt, shortHash(l.AnswerPromptSHA256), strings.Join(models, ", "), l.Embedder, l.AnswerKey, strings.Join(sys, ", "))
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
