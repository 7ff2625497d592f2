// Package peers reads other memory systems' published per-question results
// (Zep, Memobase, Backboard, CORE on LoCoMo; one LongMemEval system), maps
// them onto membench question ids and writes run-shaped directories.
package peers

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/names"
)

// Item is one graded (or only answered) question as a peer published it,
// before it is matched to a dataset question.
type Item struct {
	// Conversation: ConvID when the peer names it ("conv-26"), else
	// ConvIndex, the 0-based position in locomo10.json.
	ConvID    string
	ConvIndex int
	// QuestionID is set when the peer already uses dataset ids (LongMemEval).
	QuestionID string
	Question   string
	Category   int // peer's category; 0 when the file has none
	Type       string
	Gold       string
	Prediction string
	Graded     bool // the file carries a verdict
	Correct    bool
	Reason     string
	Raw        string // verdict exactly as the file gives it
	// Repeats are the verdicts of several judgment runs (RunInfo.Runs),
	// when the peer judged each answer more than once; Correct is then
	// their majority.
	Repeats []bool
	Source  string // file (and position) the item came from, for reports
}

// text turns a JSON value that is sometimes a number (LoCoMo gold answers
// like 2022) into a string; a peer's other values are kept as written.
func text(raw json.RawMessage) string {
	if s, err := datasets.ScalarText(raw, ""); err == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// intish reads 2 or "2".
func intish(raw json.RawMessage) (int, error) {
	s := text(raw)
	if s == "" {
		return 0, nil
	}
	return strconv.Atoi(s)
}

func trailingInt(s string) (int, error) {
	return strconv.Atoi(s[len(strings.TrimRight(s, "0123456789")):])
}

type zepRecord struct {
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Golden   json.RawMessage `json:"golden_answer"`
	Grade    *bool           `json:"grade"`
	Category json.RawMessage `json:"category"`
}

// ParseZep reads Zep's zep_locomo_grades*.json / zep_locomo_responses.json:
// {"locomo_experiment_user_N": [{question, answer, golden_answer, grade,
// category?}]}, N the 0-based conversation position. The responses file
// has no grade, so its items are not Graded.
func ParseZep(data []byte, source string) ([]Item, error) {
	return parseByConversation(data, source, `Zep's {"locomo_experiment_user_N": [...]} layout`, "does not end in", trailingInt,
		func(r zepRecord) (Item, json.RawMessage) {
			it := Item{Question: r.Question, Gold: text(r.Golden), Prediction: r.Answer}
			if r.Grade != nil {
				it.Graded, it.Correct, it.Raw = true, *r.Grade, strconv.FormatBool(*r.Grade)
			}
			return it, r.Category
		})
}

type memobaseRecord struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Response string          `json:"response"`
	Category json.RawMessage `json:"category"`
	LLMScore *float64        `json:"llm_score"`
}

// ParseMemobase reads memobase_eval_MMDD_3000.json: {"N": [{question,
// answer (gold), response, category "1".."4", llm_score 0/1, f1_score,
// bleu_score}]}, N the 0-based conversation position.
func ParseMemobase(data []byte, source string) ([]Item, error) {
	return parseByConversation(data, source, `Memobase's {"N": [...]} layout`, "is not", strconv.Atoi,
		func(r memobaseRecord) (Item, json.RawMessage) {
			it := Item{Question: r.Question, Gold: text(r.Answer), Prediction: r.Response}
			if r.LLMScore != nil {
				it.Graded, it.Correct, it.Raw = true, *r.LLMScore >= 1, strconv.FormatFloat(*r.LLMScore, 'g', -1, 64)
			}
			return it, r.Category
		})
}

// parseByConversation reads {KEY: [records]}, KEY naming the 0-based
// conversation position (read by convOf), in key order; item turns a
// record into an Item and gives its raw category.
func parseByConversation[R any](data []byte, source, layout, keyWhy string, convOf func(string) (int, error), item func(R) (Item, json.RawMessage)) ([]Item, error) {
	var m map[string][]R
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not %s: %v", source, layout, err)
	}
	var out []Item
	for _, k := range slices.SortedFunc(maps.Keys(m), names.Compare) {
		n, err := convOf(k)
		if err != nil {
			return nil, fmt.Errorf("%s: key %q %s a conversation number", source, k, keyWhy)
		}
		for i, r := range m[k] {
			it, rawCat := item(r)
			if it.Category, err = intish(rawCat); err != nil {
				return nil, fmt.Errorf("%s: %s[%d].category: %v", source, k, i, err)
			}
			it.ConvIndex, it.Source = n, fmt.Sprintf("%s %s[%d]", source, k, i)
			out = append(out, it)
		}
	}
	return out, nil
}

type backboardFile struct {
	ConversationID string `json:"conversation_id"`
	Responses      []struct {
		ConversationID string          `json:"conversation_id"`
		QuestionType   string          `json:"question_type"`
		Category       json.RawMessage `json:"category"`
		Question       string          `json:"question"`
		Expected       json.RawMessage `json:"expected_answer"`
		Response       string          `json:"ai_response"`
		Evaluation     *struct {
			IsCorrect *bool  `json:"is_correct"`
			Reasoning string `json:"reasoning"`
			Error     any    `json:"error"`
		} `json:"evaluation"`
	} `json:"responses"`
}

// ParseBackboard reads one locomo_conversation_N.json: {conversation_id,
// responses: [{conversation_id, category, question, expected_answer,
// ai_response, evaluation: {is_correct, reasoning}}]} (by_type repeats the
// same responses and is ignored).
func ParseBackboard(data []byte, source string) ([]Item, error) {
	var f backboardFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not Backboard's {conversation_id, responses} layout: %v", source, err)
	}
	if f.Responses == nil {
		return nil, fmt.Errorf("%s: no \"responses\" list", source)
	}
	var out []Item
	for i, r := range f.Responses {
		cat, err := intish(r.Category)
		if err != nil {
			return nil, fmt.Errorf("%s: responses[%d].category: %v", source, i, err)
		}
		conv := r.ConversationID
		if conv == "" {
			conv = f.ConversationID
		}
		it := Item{ConvID: conv, ConvIndex: -1, Question: r.Question, Category: cat, Type: r.QuestionType, Gold: text(r.Expected),
			Prediction: r.Response, Source: fmt.Sprintf("%s responses[%d]", source, i)}
		if r.Evaluation != nil && r.Evaluation.IsCorrect != nil {
			it.Graded, it.Correct, it.Reason, it.Raw = true, *r.Evaluation.IsCorrect, r.Evaluation.Reasoning, strconv.FormatBool(*r.Evaluation.IsCorrect)
		}
		out = append(out, it)
	}
	return out, nil
}

type coreFile struct {
	Conversations []struct {
		ConversationID string `json:"conversationId"`
		Results        []struct {
			Question  string          `json:"question"`
			Expected  json.RawMessage `json:"expectedAnswer"`
			Category  json.RawMessage `json:"category"`
			Generated string          `json:"generatedAnswer"`
			Result    string          `json:"evaluationResult"`
			Reasoning string          `json:"evaluationReasoning"`
		} `json:"results"`
	} `json:"conversations"`
}

// ParseCORE reads evaluation_locomoN.json: {summary, conversations:
// [{conversationId "locomo_N" (1-based), results: [{question,
// expectedAnswer, category, generatedAnswer, evaluationResult
// CORRECT|WRONG, evaluationReasoning}]}]}.
func ParseCORE(data []byte, source string) ([]Item, error) {
	var f coreFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not CORE's {summary, conversations} layout: %v", source, err)
	}
	var out []Item
	for ci, c := range f.Conversations {
		n, err := trailingInt(c.ConversationID)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: conversations[%d].conversationId %q is not locomo_N (N from 1)", source, ci, c.ConversationID)
		}
		for i, r := range c.Results {
			cat, err := intish(r.Category)
			if err != nil {
				return nil, fmt.Errorf("%s: conversations[%d].results[%d].category: %v", source, ci, i, err)
			}
			it := Item{ConvIndex: n - 1, Question: r.Question, Category: cat, Gold: text(r.Expected), Prediction: r.Generated,
				Reason: r.Reasoning, Raw: r.Result, Source: fmt.Sprintf("%s conversations[%d].results[%d]", source, ci, i)}
			switch strings.ToUpper(strings.TrimSpace(r.Result)) {
			case "CORRECT":
				it.Graded, it.Correct = true, true
			case "WRONG", "INCORRECT":
				it.Graded = true
			}
			out = append(out, it)
		}
	}
	return out, nil
}

type lmeRecord struct {
	QuestionID string          `json:"question_id"`
	Type       string          `json:"question_type"`
	Answer     json.RawMessage `json:"answer"`
	Hypothesis string          `json:"hypothesis"`
	Evaluation string          `json:"evaluation"`
}

// ParseLongMemEval reads a LongMemEval answers file in the
// longmemeval_lugmans layout: [{question_id, question_type, answer,
// hypothesis, evaluation "yes"|"no"}]. The verdict is read without regard
// to case ("Yes" is correct), which their own report does not do.
func ParseLongMemEval(data []byte, source string) ([]Item, error) {
	var rs []lmeRecord
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("%s: not a LongMemEval answers list [{question_id, hypothesis, evaluation}]: %v", source, err)
	}
	var out []Item
	for i, r := range rs {
		if r.QuestionID == "" {
			return nil, fmt.Errorf("%s: [%d] has no question_id", source, i)
		}
		it := Item{ConvIndex: -1, QuestionID: r.QuestionID, Type: r.Type, Gold: text(r.Answer), Prediction: r.Hypothesis,
			Raw: r.Evaluation, Source: fmt.Sprintf("%s [%d]", source, i)}
		switch strings.ToLower(strings.TrimSpace(r.Evaluation)) {
		case "yes":
			it.Graded, it.Correct = true, true
		case "no":
			it.Graded = true
		}
		out = append(out, it)
	}
	return out, nil
}
