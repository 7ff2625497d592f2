package llmtest

import (
	"hash/fnv"
	"strings"
)

// Plausible answers as a model asked by membench would, cheaply and
// deterministically (a WithChat function): a relevance decision gets
// first-token logprobs that vary with the request, a judge request (its
// prompt names a judge or a gold answer) a JSON verdict that is WRONG for a
// third of the requests, anything else a short answer. Tests that compare a
// faulty run with a clean one use it on both servers.
func Plausible(_ int, r ChatRequest) Reply {
	u := r.LastUser()
	h := fnv.New32a()
	h.Write([]byte(u))
	if r.Logprobs {
		p := -0.1 - float64(h.Sum32()%30)/10
		return Reply{Text: "yes", TopLogprobs: []TopLogprob{{Token: "yes", Logprob: p}, {Token: "no", Logprob: -1.2}}}
	}
	if strings.Contains(strings.ToLower(r.Messages[0].Content+u), "judge") || strings.Contains(strings.ToLower(u), "gold") {
		if h.Sum32()%3 == 0 {
			return Reply{Text: `{"reason": "no", "label": "WRONG"}`}
		}
		return Reply{Text: `{"reason": "matches", "label": "CORRECT"}`}
	}
	return Reply{Text: "Biscuit"}
}
