package structmem

import (
	"context"
	"errors"
	"fmt"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
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
	llm.JSONReply
	failure error // non-nil: unusable even after the repair
}

// ask sends one request through llm.ChatJSON with this package's repair
// prompt (quoting the answer shape) and the same meter label for the
// repair. A reply still malformed after the repair is a failure to record,
// not an error; transport errors (after the decorators' own retries) are
// returned: they mean a broken setup, not a bad answer.
func ask(ctx context.Context, model llm.Model, task, label string, msgs []membench.Message, inputs any, shape string, parse func(string) error) (reply, error) {
	req := llm.Request{Task: task, Messages: msgs, Temperature: 0, Inputs: inputs, Stage: membench.StageBuild, Label: label}
	r, err := llm.ChatJSON(ctx, model, req, nil, llm.DecodeWith(parse),
		llm.RepairWith(label, func(problem error) ([]membench.Message, error) {
			return prompts.Render("structmem_repair", map[string]string{"Problem": problem.Error(), "Shape": shape})
		}))
	out := reply{JSONReply: r}
	var perr *llm.ParseError
	switch {
	case errors.As(err, &perr):
		out.failure = perr.Err // the parse problem, as recorded before the move to llm
	case err != nil && r.Calls == 0:
		return out, fmt.Errorf("%s call: %w", label, err)
	case err != nil:
		return out, fmt.Errorf("%s repair call: %w", label, err)
	}
	return out, nil
}
