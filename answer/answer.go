// Package answer turns a retrieved context into a prediction with the
// answer model, and holds the offline extractive answerer.
package answer

import (
	"context"
	"fmt"
	"strings"

	"github.com/membench/membench"
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
	Items    []membench.Item
	Context  string
}

// Result is one prediction with its cost.
type Result struct {
	Prediction string         `json:"prediction"`
	Usage      membench.Usage `json:"usage"`
	Cached     bool           `json:"cached,omitempty"`
	PromptSHA  string         `json:"prompt_sha256"`
	// Messages and Raw are the request and the reply before trimming, for
	// the run's transcripts.
	Messages []membench.Message `json:"-"`
	Raw      string             `json:"-"`
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
	resp, err := model.Chat(c, llm.Request{Task: Task, Messages: msgs, Temperature: 0, MaxTokens: 200, Inputs: in, Stage: membench.StageAnswer, Label: "answer"})
	if err != nil {
		return Result{}, err
	}
	return Result{Prediction: strings.TrimSpace(resp.Text), Usage: resp.Usage, Cached: resp.Cached, PromptSHA: llm.HashMessages(msgs), Messages: msgs, Raw: resp.Text}, nil
}

// PromptField fills a paper's answer prompt kept as its code holds it
// (prompts.ForeignFields): the question, each speaker's name, the
// retrieved entries by speaker, the syntheses apart, or the whole context.
// An entry of no known speaker is listed under the first.
func (in Input) PromptField(name string) (string, bool) {
	speaker := func(i int) string {
		if i < len(in.Speakers) {
			return in.Speakers[i]
		}
		return fmt.Sprintf("Speaker %d", i+1)
	}
	switch name {
	case "question":
		return in.Question, true
	case "memories":
		return in.Context, true
	case "speaker_1_name", "speaker_1_user_id":
		return speaker(0), true
	case "speaker_2_name", "speaker_2_user_id":
		return speaker(1), true
	case "speaker_1_memories", "speaker_2_memories":
		want := 0
		if name == "speaker_2_memories" {
			want = 1
		}
		var lines []string
		for _, it := range in.Items {
			if it.Kind == "synthesis" {
				continue
			}
			who := 0
			if len(in.Speakers) > 1 && it.Speaker == in.Speakers[1] {
				who = 1
			}
			if who == want {
				lines = append(lines, itemLine(it))
			}
		}
		return orNone(lines), true
	case "session_summaries":
		var lines []string
		for _, it := range in.Items {
			if it.Kind == "synthesis" {
				lines = append(lines, it.Text)
			}
		}
		return orNone(lines), true
	}
	return "", false
}

// itemLine is one retrieved entry as a foreign prompt lists it: its time
// and its text.
func itemLine(it membench.Item) string {
	if it.Time.IsZero() {
		return it.Text
	}
	return it.Time.UTC().Format("2 January 2006 15:04") + ": " + it.Text
}

func orNone(lines []string) string {
	if len(lines) == 0 {
		return "(none)"
	}
	return strings.Join(lines, "\n")
}
