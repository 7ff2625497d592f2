// Package answer turns a retrieved context into a prediction with the
// answer model, and holds the offline extractive answerer.
package answer

import (
	"context"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// Task is the request kind of answer calls.
const Task = "answer"

// Prompt is the template name; --answer-prompt FILE replaces it for a run
// (the run passes its own template to Answer).
const Prompt = "answer"

// Abstain is what the answer prompt asks the model to say when the memories
// lack the answer; the adversarial check looks for it.
const Abstain = "Not mentioned in the conversation."

// Input is the structured form of an answer request (for the offline backend).
// It never carries the gold answer or the category.
type Input struct {
	Question string
	AskedAt  string
	Speakers []string
	Items    []systems.Item
	Context  string
}

// Result is one prediction with its cost.
type Result struct {
	Prediction string    `json:"prediction"`
	Usage      llm.Usage `json:"usage"`
	Cached     bool      `json:"cached,omitempty"`
	PromptSHA  string    `json:"prompt_sha256"`
	// Messages and Raw are the request and the reply before trimming, for
	// the run's transcripts.
	Messages []llm.Message `json:"-"`
	Raw      string        `json:"-"`
}

// Answer asks the model to answer q from ctx with the answer template tmpl
// (the run's: embedded, or its --answer-prompt file).
func Answer(c context.Context, model llm.Model, tmpl *prompts.Template, conv *datasets.Conversation, q *datasets.Question, ctx *systems.Context) (Result, error) {
	in := Input{Question: q.Text, Speakers: conv.Speakers, Items: ctx.Items, Context: ctx.Rendered}
	if !q.AskedAt.IsZero() {
		in.AskedAt = q.AskedAt.Format("2 January 2006")
	}
	msgs, err := tmpl.Render(in)
	if err != nil {
		return Result{}, err
	}
	resp, err := model.Chat(c, llm.Request{Task: Task, Messages: msgs, Temperature: 0, MaxTokens: 200, Inputs: in, Stage: llm.StageAnswer, Label: "answer"})
	if err != nil {
		return Result{}, err
	}
	return Result{Prediction: strings.TrimSpace(resp.Text), Usage: resp.Usage, Cached: resp.Cached, PromptSHA: llm.HashMessages(msgs), Messages: msgs, Raw: resp.Text}, nil
}
