package judge

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/llm/llmtest"
)

const invalid = "" // want: no verdict (ParseReply returns an error)

// replyShapes are replies in the shapes judge models write, with the
// verdict each means.
var replyShapes = []struct{ in, want string }{
	// plain labels, any case, punctuation, markdown
	{"CORRECT", LabelCorrect},
	// A negation in an earlier clause joined by "and" does not reach the
	// label; a negated pair of adjectives does.
	{"Nothing is missing and the answer is correct.", LabelCorrect},
	{"The generated answer does not contradict the gold answer and is correct.", LabelCorrect},
	{"It is not complete and correct.", LabelWrong},
	{"WRONG", LabelWrong},
	{"correct", LabelCorrect},
	{"Wrong.", LabelWrong},
	{"INCORRECT!", LabelWrong},
	{"**CORRECT**", LabelCorrect},
	{"**WRONG**\n", LabelWrong},
	{"`CORRECT`", LabelCorrect},
	{"Yes", LabelCorrect},
	{"no.", LabelWrong},
	// negations, in every casing
	{"NOT CORRECT", LabelWrong},
	{"not correct", LabelWrong},
	{"Not Correct.", LabelWrong},
	{"The answer is NOT CORRECT.", LabelWrong},
	{"The answer is not correct.", LabelWrong},
	{"It isn't CORRECT", LabelWrong},
	{"It ISN’T correct.", LabelWrong},
	{"The answer IS NOT CORRECT", LabelWrong},
	{"This is NEVER CORRECT for this question.", LabelWrong},
	{"The answer is no longer correct after the update.", LabelWrong},
	{"The answer is not quite correct.", LabelWrong},
	{"The response is not entirely CORRECT", LabelWrong},
	{"I do not think that the answer is correct.", LabelWrong},
	{"I don't think it's correct", LabelWrong},
	{"The answer is not-correct", LabelWrong},
	{"NOT **CORRECT**", LabelWrong},
	{"The answer is incorrect.", LabelWrong},
	{"The answer is not wrong.", LabelCorrect},
	{"It is NOT INCORRECT", LabelCorrect},
	{"Neither correct nor wrong.", invalid},
	// JSON, fenced, with extra keys
	{`{"reason": "same city", "label": "CORRECT"}`, LabelCorrect},
	{"```json\n{\"label\": \"WRONG\", \"reason\": \"other year\", \"confidence\": 0.9}\n```", LabelWrong},
	{`Here you go: {"Label":"correct"} hope it helps`, LabelCorrect},
	{`{"verdict": "incorrect", "score": 0}`, LabelWrong},
	{`{"label": "NOT CORRECT"}`, invalid},
	{`{"label": "not correct", "reason": "the answer is correct"}`, invalid},
	{`{"label": "partially correct"}`, invalid},
	{`{"label": "maybe"}`, invalid},
	{`{"label": "CORRECT", "verdict": "WRONG"}`, invalid},
	{`{"label": "Correct.", "verdict": "yes"}`, LabelCorrect},
	{`{"reasoning": "The answer is wrong, the gold says 2022.", "label": "CORRECT"}`, LabelCorrect},
	{`{"is_correct": false, "reason": "different date"}`, LabelWrong},
	{`{"correct": true}`, LabelCorrect},
	{`{"label": true}`, invalid},
	{`{"Label": "CORRECT", "label": "WRONG"}`, invalid},
	{"{\"label\": \"CORRECT\"}\n{\"label\": \"WRONG\"}", invalid},
	{`{"reason": "the answer is not correct", "score": 0}`, LabelWrong},
	{"The reply matches the gold.\n```json\n{\"reason\": \"match\", \"label\": \"**CORRECT**\"}\n```", LabelCorrect},
	// labelled verdicts
	{"Label: WRONG", LabelWrong},
	{"**Verdict:** correct", LabelCorrect},
	{"Verdict - correct", LabelCorrect},
	{"Verdict – not correct", LabelWrong},
	{"Label: NOT CORRECT", LabelWrong},
	{"Reasoning: the answer could be considered wrong because it omits the year, but it names the right day.\nFinal answer: CORRECT", LabelCorrect},
	{"Reasoning: the gold date and the answer agree. Verdict: CORRECT. Final verdict: WRONG", LabelWrong},
	{"Verdict: WRONG\nLabel: CORRECT", invalid},
	{"Gold answer: no\nSystem answer: yes\nThe system answer is WRONG.", LabelWrong},
	{"The date is CORRECT but the place is not.\nLabel: WRONG", LabelWrong},
	{"Judgement = incorrect", LabelWrong},
	// reasoning that mentions the other label
	{"The answer is not wrong; it is CORRECT.", LabelCorrect},
	{"CORRECT - the answer is not wrong", LabelCorrect},
	{"The answer gives 2023 where the correct answer is 2022, so it is wrong.", LabelWrong},
	{"Some might call this wrong, but the meaning matches. CORRECT", LabelCorrect},
	{"WRONG. A correct answer would name Paris.", LabelWrong},
	{"WRONG\n\nExplanation: the correct date is 7 May 2023.", LabelWrong},
	{"The correct answer is Paris; the system said Rome.", invalid},
	{"That is not the correct answer.", LabelWrong},
	{"The system's response does not include the date; it is therefore incorrect.", LabelWrong},
	{"Although the answer does not mention the exact date, it is correct.", LabelCorrect},
	{"It does not match the gold and is wrong.", LabelWrong},
	{"The answer doesn't mention the year, but it is correct.", LabelCorrect},
	{"Not only is the city correct, the date is too.", LabelCorrect},
	{"There is no doubt the answer is correct.", LabelCorrect},
	{"The answer is WRONG about the date but CORRECT about the place.", invalid},
	{"The answer is correct. Actually, no, it is wrong.", invalid},
	// hedges: no verdict of their own
	{"The answer is partially correct.", invalid},
	{"PARTIALLY CORRECT", invalid},
	{"The answer is mostly correct, it misses one item. WRONG", LabelWrong},
	{"Partially correct, but under the lenient rules: CORRECT", LabelCorrect},
	{"The answer is not entirely wrong.", invalid},
	{"Almost correct.", invalid},
	// questions and nothing
	{"Is the answer correct? No.", LabelWrong},
	{"Is the answer correct?", invalid},
	{"correct or wrong?", invalid},
	{"I am not sure.", invalid},
	{"The answer correctly names the city.", invalid},
	{"", invalid},
}

func TestParseReplyShapes(t *testing.T) {
	for _, c := range replyShapes {
		v, err := ParseReply(c.in)
		switch {
		case c.want == invalid && err == nil:
			t.Errorf("ParseReply(%q) = %s, want no verdict", c.in, v.Label)
		case c.want != invalid && (err != nil || v.Label != c.want):
			t.Errorf("ParseReply(%q) = %q, %v; want %s", c.in, v.Label, err, c.want)
		}
	}
}

// negativeReplies each mean WRONG, in the shapes that a substring reader
// takes for CORRECT.
var negativeReplies = []string{
	"The answer is NOT CORRECT.", "NOT CORRECT", "It isn't CORRECT", `{"label": "NOT CORRECT"}`,
	"not correct", "The answer IS NOT CORRECT", "NEVER CORRECT", "It is NO LONGER CORRECT.",
	"NOT QUITE CORRECT.", "Isn’t correct.", "**NOT CORRECT**", "Label: NOT CORRECT",
	"Verdict - not correct", "```json\n{\"label\": \"not correct\", \"reason\": \"wrong year\"}\n```",
	"I don't think the answer is CORRECT.", "It's not entirely CORRECT", "INCORRECT",
	"The answer is not correct, the gold says 2022.", "No, it is not correct",
}

// A judge model over the OpenAI wire that only ever writes negative
// verdicts: none may count as correct. A reply with no verdict is asked
// again (Reasks times) and recorded as invalid.
func TestNegativeVerdictsOverTheWire(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		for i, reply := range negativeReplies {
			if strings.Contains(r.LastUser(), fmt.Sprintf("answer number %d.", i)) {
				mu.Lock()
				asked[reply]++
				mu.Unlock()
				return llmtest.Reply{Text: reply}
			}
		}
		return llmtest.Reply{Text: "no such answer"}
	}))
	j, err := Parse("name=neg,backend=openai,model=m,retries=-1,base-url="+srv.URL, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	correct, invalidN := 0, 0
	for i, reply := range negativeReplies {
		v, err := j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: fmt.Sprintf("answer number %d.", i)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Raw != reply {
			t.Fatalf("reply %d: judged raw %q, the server sent %q", i, v.Raw, reply)
		}
		want := 1
		if v.Invalid {
			invalidN++
			want = 1 + Reasks
		}
		if v.Correct || v.Score != 0 {
			correct++
			t.Errorf("%q counted correct: %+v", reply, v)
		}
		if asked[reply] != want {
			t.Errorf("%q asked %d times, want %d", reply, asked[reply], want)
		}
	}
	// Only the JSON label that is not one of the closed set has no verdict.
	if invalidN != 2 {
		t.Errorf("%d invalid verdicts, want 2 (the two JSON labels \"not correct\")", invalidN)
	}
	t.Logf("%d negative replies: %d counted correct, %d invalid", len(negativeReplies), correct, invalidN)
}
