package structmem

import (
	"context"
	"errors"
	"fmt"

	"github.com/membench/membench/internal/prompts"
	"github.com/membench/membench/llm"
)

// Task names of the offline heuristics and of every request this package
// sends; labels split the build meter by stage.
const (
	TaskFact        = "structmem.extract_fact"
	TaskRel         = "structmem.extract_rel"
	TaskConsolidate = "structmem.consolidate"

	LabelFact        = "extract_fact"
	LabelRel         = "extract_rel"
	LabelConsolidate = "consolidate"
)

// reply is the outcome of one logical request (one try plus, if needed,
// one repair).
type reply struct {
	raw       string
	repairRaw string
	calls     int
	repaired  bool
	tokens    int   // input+output over both tries
	failure   error // non-nil: unusable even after the repair
}

// ask sends one request; when parse rejects the answer as malformed it asks
// once more with the bad answer and a repair instruction appended. Transport
// errors (after the decorators' own retries) are returned as errors: they
// mean a broken setup, not a bad answer.
func ask(ctx context.Context, model llm.Model, task, label string, msgs []llm.Message, inputs any, shape string, parse func(string) error) (reply, error) {
	req := llm.Request{Task: task, Messages: msgs, Temperature: 0, JSON: true, Inputs: inputs, Stage: llm.StageBuild, Label: label}
	var r reply
	resp, err := model.Chat(ctx, req)
	if err != nil {
		return r, fmt.Errorf("%s call: %w", label, err)
	}
	r.calls++
	r.tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	r.raw = resp.Text
	perr := parse(resp.Text)
	if perr == nil {
		return r, nil
	}
	if !errors.Is(perr, errMalformed) {
		r.failure = perr
		return r, nil
	}
	fix, err := prompts.Render("structmem_repair", map[string]string{"Problem": perr.Error(), "Shape": shape})
	if err != nil {
		return r, err
	}
	req.Messages = append(append(append([]llm.Message{}, msgs...), llm.Message{Role: "assistant", Content: resp.Text}), fix...)
	resp, err = model.Chat(ctx, req)
	if err != nil {
		return r, fmt.Errorf("%s repair call: %w", label, err)
	}
	r.calls++
	r.repaired = true
	r.tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	r.repairRaw = resp.Text
	if perr = parse(resp.Text); perr != nil {
		r.failure = perr
	}
	return r, nil
}
