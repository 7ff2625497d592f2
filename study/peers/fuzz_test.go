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
