package turns

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
)

// ListwiseTask names the listwise request and its template.
const (
	ListwiseTask     = "listwise"
	listwiseTemplate = "turns_listwise"
)

var listwiseDefaults = membench.Options{"n": "30", "k": "10", "order": OrderTime}

func init() {
	systems.Register(systems.Spec{
		Name: "turns-llm",
		Description: "raw turns; cosine top n=30 reordered by one listwise request to the build model, " +
			"read the first k=10 (ids the model leaves out follow in cosine order)",
		Defaults: listwiseDefaults,
		New:      newListwise,
	})
	systems.Offline(ListwiseTask, offlineListwise)
}

// ListwiseInput is the listwise template's data and the offline input.
type ListwiseInput struct {
	Question     string
	QuestionDate string // "" if unknown
	Candidates   []ListCandidate
}

// ListCandidate is one numbered candidate (numbers start at 1).
type ListCandidate struct {
	N       int
	Line    string // "[2023-05-08 13:56] Caroline: text"
	Text    string
	Speaker string
	Time    string // "" if unknown
}

// Listwise is turns-llm. It uses env.Build: the listwise reranker is a
// generative chat request (the study used gpt-4o-mini), not a decision.
type Listwise struct {
	base
	model llm.Model
	n, k  int
}

func newListwise(env systems.Env) (systems.System, error) {
	if env.Build == nil {
		return nil, errors.New("turns-llm needs a build model (--build-model) for its listwise reranker")
	}
	r := systems.Read(env.Options)
	n, k := r.Min("n", 30, 1), r.Min("k", 10, 1)
	b, err := newBase(env, r)
	if err != nil {
		return nil, err
	}
	return &Listwise{base: b, model: env.Build, n: n, k: k}, nil
}

func (l *Listwise) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	k := b.KOr(l.k)
	cands, err := l.st.search(ctx, q, l.n)
	if err != nil {
		return nil, err
	}
	in := ListwiseInput{Question: q.Text}
	if !q.AskedAt.IsZero() {
		in.QuestionDate = q.AskedAt.Format(TimeLayout)
	}
	for i, c := range cands {
		lc := ListCandidate{N: i + 1, Line: Line(c), Text: c.Text, Speaker: c.Speaker}
		if !c.Time.IsZero() {
			lc.Time = c.Time.Format(TimeLayout)
		}
		in.Candidates = append(in.Candidates, lc)
	}
	msgs, err := prompts.Render(listwiseTemplate, in)
	if err != nil {
		return nil, err
	}
	resp, err := l.model.Chat(ctx, llm.Request{
		Task: ListwiseTask, Messages: msgs, Temperature: 0, MaxTokens: 8 * (len(cands) + 4),
		Inputs: in, Stage: membench.StageRetrieve, Label: ListwiseTask,
	})
	if err != nil {
		return nil, fmt.Errorf("turns-llm: listwise rerank for question %s: %w", q.ID, err)
	}
	ranked := ParseOrder(resp.Text, len(cands))
	order, fallback := completeOrder(ranked, len(cands))
	sel := make([]membench.Item, 0, k)
	used := 0
	for j, n := range order {
		if j == k {
			break
		}
		if j >= len(ranked) {
			used++
		}
		sel = append(sel, cands[n-1])
	}
	c := MakeContext(FitBudget(sel, b.MaxTokens), l.order)
	c.Candidates = cands
	c.Notes = map[string]any{
		"llm_order":     ranked,   // valid candidate numbers the model gave, deduped
		"fallback":      fallback, // candidates the model left out, appended in cosine order
		"fallback_used": used,     // of those, how many made it into the first k
	}
	return c, nil
}

var intRE = regexp.MustCompile(`\d+`)

// ParseOrder reads the model's ordering robustly: every integer in the text
// in order of appearance, keeping the first occurrence of each number in
// 1..n and ignoring anything else (junk, repeats, out-of-range ids).
func ParseOrder(text string, n int) []int {
	out := []int{}
	for _, m := range intRE.FindAllString(text, -1) {
		if v, err := strconv.Atoi(m); err == nil && v >= 1 && v <= n && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// completeOrder appends the numbers missing from ranked in cosine order
// (ascending) and reports how many it appended.
func completeOrder(ranked []int, n int) ([]int, int) {
	out := append([]int(nil), ranked...)
	for v := 1; v <= n; v++ {
		if !slices.Contains(ranked, v) {
			out = append(out, v)
		}
	}
	return out, len(out) - len(ranked)
}

// offlineListwise orders candidates by the relevance heuristic's score
// (selector.Score; ties keep cosine order) and answers as a JSON list.
func offlineListwise(in ListwiseInput) any {
	type scored struct {
		n int
		s float64
	}
	var all []scored
	for _, c := range in.Candidates {
		all = append(all, scored{c.N, selector.Score(selector.RelevanceInput{
			Question: in.Question, QuestionDate: in.QuestionDate,
			Candidate: c.Text, Speaker: c.Speaker, CandidateTime: c.Time,
		})})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	nums := make([]int, len(all))
	for i, x := range all {
		nums[i] = x.n
	}
	return nums
}
