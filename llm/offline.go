package llm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"
)

// The offline backend answers each task with a deterministic heuristic
// registered for that task kind. Packages that define a task register its
// heuristic next to its prompt (init functions), so the backend stays small
// and each heuristic lives beside the code that asks for it.

// ChatHandler answers a chat task from the request's structured Inputs.
type ChatHandler func(req Request) (string, error)

// DecideHandler returns a probability per choice from the request's Inputs.
type DecideHandler func(req DecideRequest) (map[string]float64, error)

var (
	regMu          sync.RWMutex
	chatHandlers   = map[string]ChatHandler{}
	decideHandlers = map[string]DecideHandler{}
)

// RegisterOffline installs the offline heuristic for a chat task.
func RegisterOffline(task string, h ChatHandler) { registerTask(chatHandlers, "chat", task, h) }

// RegisterOfflineDecide installs the offline heuristic for a decision task.
func RegisterOfflineDecide(task string, h DecideHandler) {
	registerTask(decideHandlers, "decide", task, h)
}

func registerTask[H any](handlers map[string]H, kind, task string, h H) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := handlers[task]; dup {
		panic("llm: offline " + kind + " handler registered twice: " + task)
	}
	handlers[task] = h
}

// OfflineTasks lists the registered task kinds (for docs and errors).
func OfflineTasks() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := slices.Collect(maps.Keys(chatHandlers))
	for k := range decideHandlers {
		out = append(out, k+" (decide)")
	}
	slices.Sort(out)
	return out
}

// Offline is the deterministic, network-free backend. It reports token
// counts of the real rendered prompts and of its own outputs, so cost
// figures are comparable in shape (not in quality) to a real model's.
type Offline struct{ Name string }

// NewOffline returns the offline backend; name defaults to "offline-heuristic".
func NewOffline() *Offline { return &Offline{Name: "offline-heuristic"} }

func (o *Offline) ID() membench.ModelID { return membench.ModelID{Backend: "offline", Model: o.Name} }

func (o *Offline) Chat(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	regMu.RLock()
	h, ok := chatHandlers[req.Task]
	regMu.RUnlock()
	if !ok {
		return Response{}, fmt.Errorf("offline backend: no heuristic for task %q (known: %v); use --llm openai for this task", req.Task, OfflineTasks())
	}
	text, err := h(req)
	if err != nil {
		return Response{}, fmt.Errorf("offline backend, task %s: %w", req.Task, err)
	}
	return Response{Text: text, Usage: membench.Usage{InputTokens: PromptTokens(req.Messages), OutputTokens: tokens.Count(text)}}, nil
}

func (o *Offline) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	if err := ctx.Err(); err != nil {
		return DecideResponse{}, err
	}
	regMu.RLock()
	h, ok := decideHandlers[req.Task]
	regMu.RUnlock()
	if !ok {
		return DecideResponse{}, fmt.Errorf("offline backend: no decision heuristic for task %q (known: %v)", req.Task, OfflineTasks())
	}
	p, err := h(req)
	if err != nil {
		return DecideResponse{}, fmt.Errorf("offline backend, task %s: %w", req.Task, err)
	}
	// A decision is one generated token.
	return DecideResponse{Probs: p, Usage: membench.Usage{InputTokens: PromptTokens(req.Messages), OutputTokens: 1}}, nil
}

// PromptTokens counts a chat prompt with the program's one token counter.
func PromptTokens(msgs []membench.Message) int {
	cs := make([]string, len(msgs))
	for i, m := range msgs {
		cs[i] = m.Content
	}
	return tokens.CountMessages(cs...)
}
