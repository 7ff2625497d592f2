package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/prompts"
)

// PaperPromptsDoc is where a user reads how to bring a paper's prompt
// files.
const PaperPromptsDoc = "docs/prompts.md (Bringing the papers' prompt files)"

// paperPrompts checks a paper config's prompts against its pins
// (membench.PaperPrompts). --judge-prompt goes to the pinned judges only,
// so the run's other judges keep their own prompts (our strict one beside
// the authors'). A file whose sha256 is not the pinned one is refused
// (bad input) unless AllowPromptMismatch; every other case is recorded
// for the labels (nil: the config pins nothing).
func paperPrompts(cfg membench.Config) (membench.Config, *membench.PromptCheck, error) {
	pp := cfg.PaperPrompts
	if pp == nil {
		return cfg, nil, nil
	}
	if cfg.JudgePrompt != "" && len(pp.Judge) > 0 {
		js := slices.Clone(cfg.Judges)
		routed := false
		for i, spec := range js {
			name, _, own, err := judge.SpecPrompt(spec, "")
			if err == nil && slices.ContainsFunc(pp.Judge, func(pin membench.PromptPin) bool { return pin.Judge == name }) {
				if _, builtin := judge.BuiltinPrompts[own]; own != "" && !builtin {
					continue // the judge names its own file: that is what runs
				}
				js[i] = judge.WithPrompt(spec, cfg.JudgePrompt)
				routed = true
			}
		}
		if routed {
			cfg.Judges, cfg.JudgePrompt = js, ""
		}
	}
	check := &membench.PromptCheck{Paper: pp.Paper}
	var refused []string
	add := func(v membench.PromptVerdict, flag string) {
		if v.Status == membench.PromptsMismatch && !cfg.AllowPromptMismatch {
			refused = append(refused, fmt.Sprintf("%s %s: its sha256 %.12s… is not the %s of %s (sha256 %.12s…: %s)", flag, v.File, v.SHA256, v.Prompt+" prompt", pp.Paper, v.Pinned, v.Source))
		}
		check.Add(v)
	}
	v, err := verdictFor("answer", pp.AnswerPin(cfg.System), cfg.AnswerPrompt)
	if err != nil {
		return cfg, nil, badinput.Errorf("--answer-prompt: %v", err)
	}
	add(v, "--answer-prompt")
	for _, pin := range pp.Judge {
		file, found := "", false
		for _, spec := range cfg.Judges {
			name, _, prompt, err := judge.SpecPrompt(spec, cfg.JudgePrompt)
			if err != nil || name != pin.Judge {
				continue
			}
			found = true
			if _, builtin := judge.BuiltinPrompts[prompt]; !builtin {
				file = prompt
			}
		}
		what := "judge " + pin.Judge
		if !found {
			// The paper's judge is not among the run's: its figures come
			// from judges of membench's own.
			check.Add(membench.PromptVerdict{Prompt: what + " (not in this run)", Status: membench.PromptsOwn, Pinned: pin.SHA256, Source: pin.File})
			continue
		}
		v, err := verdictFor(what, &pin, file)
		if err != nil {
			return cfg, nil, badinput.Errorf("judge %s: prompt=%s: %v", pin.Judge, file, err)
		}
		add(v, "judge "+pin.Judge+" prompt=")
	}
	if len(refused) > 0 {
		return cfg, nil, badinput.Errorf("%s; save the authors' text byte for byte as %s says (or give no file to run membench's own prompts, labelled as such), or pass --allow-prompt-mismatch to run it with every figure labelled %q",
			strings.Join(refused, "; "), PaperPromptsDoc, membench.MismatchPromptsLabel)
	}
	return cfg, check, nil
}

// verdictFor is one prompt's standing: file is the prompt file given (""
// = membench's own), pin the paper's (nil = none known for this run).
func verdictFor(what string, pin *membench.PromptPin, file string) (membench.PromptVerdict, error) {
	v := membench.PromptVerdict{Prompt: what, File: file, Status: membench.PromptsOwn}
	if pin != nil {
		v.Pinned, v.Source = pin.SHA256, pin.File
	}
	if file == "" {
		return v, nil
	}
	sum, err := prompts.FileSHA256(file)
	if err != nil {
		return v, err
	}
	v.SHA256 = sum
	switch {
	case pin == nil:
		v.Status = membench.PromptsOwn // no paper prompt is known for it: not the paper's
	case pin.SHA256 == "":
		v.Status = membench.PromptsUnverified
	case strings.EqualFold(pin.SHA256, sum):
		v.Status = membench.PromptsPaper
	default:
		v.Status = membench.PromptsMismatch
	}
	return v, nil
}

// CheckPaperPrompts refuses a config whose prompt files are not the ones
// its paper_prompts: pins (without AllowPromptMismatch), before any work:
// a sweep checks every point first.
func CheckPaperPrompts(cfg membench.Config) error {
	_, _, err := paperPrompts(withDefaults(cfg))
	return err
}
