package peers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

var fuzzFormats = []Format{FormatZep, FormatMemobase, FormatBackboard, FormatCORE, FormatLongMemEval}

// One target over every peers parser: the format is picked by the first
// byte, so the fuzzer can move an input between parsers.
func FuzzPeersParsers(f *testing.F) {
	seeds := map[Format]string{
		FormatZep: zepFixture,
		FormatMemobase: `{"1": [{"question": "Would Cy like jazz?", "answer": "Likely yes", "response": "yes", "category": "3", "llm_score": 1, "f1_score": 0.5, "bleu_score": 0.3}],
		  "0": [{"question": "Who visited Ann?", "answer": "Bob", "response": "Bob", "category": "2", "llm_score": 0}]}`,
		FormatBackboard: `{"conversation_id": "conv-b", "responses": [{"conversation_id": "conv-b", "category": 4, "question": "What did Cy win?",
		  "expected_answer": "a trophy", "ai_response": "trophy", "evaluation": {"is_correct": true, "reasoning": "same", "error": null}}]}`,
		FormatCORE: `{"summary": {}, "conversations": [{"conversationId": "locomo_2", "results": [{"question": "What did Cy win?", "expectedAnswer": "a trophy",
		  "category": 4, "generatedAnswer": "a cup", "evaluationResult": "WRONG", "evaluationReasoning": "no"}]}]}`,
		FormatLongMemEval: `[{"question_id": "q1", "question_type": "t", "answer": "a", "hypothesis": "h", "evaluation": "Yes"},
	  {"question_id": "q2", "answer": 3, "hypothesis": "h", "evaluation": "no"}]`,
	}
	for i, fm := range fuzzFormats {
		f.Add(byte(i), []byte(seeds[fm]))
	}
	// The published files too, when the shared folder is there (one each).
	dirs := map[string]Format{"zep": FormatZep, "memobase": FormatMemobase, "backboard": FormatBackboard, "core": FormatCORE, "longmemeval_lugmans": FormatLongMemEval}
	for dir, fm := range dirs {
		p, ok := testutil.SharedPath("peers", dir)
		if !ok {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(p, "*.json"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 400<<10 {
				for i, x := range fuzzFormats {
					if x == fm {
						f.Add(byte(i), b)
					}
				}
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		fm := fuzzFormats[int(which)%len(fuzzFormats)]
		items, err := Parse(fm, data, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("%s: error %v does not name the file", fm, err)
			}
			return
		}
		_ = items
	})
}

// ParseScoredMeta never panics, names the file in every error, and the
// figures it accepts are fractions in [0, 1].
func FuzzScoredMeta(f *testing.F) {
	f.Add([]byte(`{"accuracy": 0.8, "metadata": {"answer_model": "m", "mean_accuracy": 0.79, "std_accuracy": 0.001, "run_scores": [0.78, 0.8],
	  "category_accuracies": {"1": {"mean": 0.8, "std": 0, "individual_runs": [0.8], "total": 3}}, "majority_vote_accuracy": 0.8,
	  "total_prompt_tokens": 10, "total_completion_tokens": 2, "base_url": "https://openrouter.ai/api/v1"}}`))
	f.Add([]byte(`{"total_questions": 1, "accuracy": 0.1, "detailed_results": {}}`))
	f.Add([]byte(`{"metadata": {"category_accuracies": {"9": {"mean": 2}}}}`))
	if p, ok := testutil.SharedPath("datasets", "locomo-audit", "fc-baseline", "gpt-4o-mini-memos.json"); ok {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, acc, err := ParseScoredMeta(data, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		if m == nil {
			_ = acc
			return
		}
		in := func(v float64) bool { return v >= 0 && v <= 1 }
		if m.MeanAccuracy != nil && !in(*m.MeanAccuracy) || m.MajorityVote != nil && !in(*m.MajorityVote) {
			t.Fatalf("accepted accuracies outside [0, 1]: %+v", m)
		}
		for _, r := range m.RunScores {
			if !in(r) {
				t.Fatalf("accepted run score %v", r)
			}
		}
	})
}
