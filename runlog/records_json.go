package runlog

import (
	"strconv"

	"github.com/membench/membench/internal/jsonenc"
)

// Hand-written JSON for the records written once or more per question
// (Appender lines, transcripts): json.Marshal's bytes without its
// reflection (see internal/jsonenc). TestRecordsJSONCoverEveryField fails
// when a field is added to one of these types without being taught here;
// TestRecordLinesEqualMarshalOnLoCoMo compares real-shaped records.
// Records written once per run (manifest, build lines, summaries) stay on
// encoding/json.

// AppendJSON appends r as json.Marshal writes it.
func (r ItemRef) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(r.Score) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = jsonenc.String(b, r.ID)
	if r.Kind != "" {
		b = append(b, `,"kind":`...)
		b = jsonenc.String(b, r.Kind)
	}
	if len(r.Sources) > 0 {
		b = append(b, `,"sources":`...)
		b = jsonenc.Strings(b, r.Sources)
	}
	b = append(b, `,"score":`...)
	b = jsonenc.Float(b, r.Score, 64)
	return append(b, '}'), true
}

// AppendJSON appends r as json.Marshal writes it; its notes go through
// encoding/json (free-form values).
func (r RetrievalRecord) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(r.Seconds) {
		return b, false
	}
	b = append(b, `{"question_id":`...)
	b = jsonenc.String(b, r.QuestionID)
	b = append(b, `,"conversation_id":`...)
	b = jsonenc.String(b, r.ConversationID)
	b = append(b, `,"system":`...)
	b = jsonenc.String(b, r.System)
	b = append(b, `,"k":`...)
	b = jsonenc.Int(b, int64(r.K))
	b = append(b, `,"tokens":`...)
	b = jsonenc.Int(b, int64(r.Tokens))
	b = append(b, `,"items":`...)
	var ok bool
	if b, ok = jsonenc.Slice(b, r.Items); !ok {
		return b, false
	}
	if len(r.Candidates) > 0 {
		b = append(b, `,"candidates":`...)
		if b, ok = jsonenc.Slice(b, r.Candidates); !ok {
			return b, false
		}
	}
	b = append(b, `,"evidence":`...)
	b = jsonenc.Strings(b, r.Evidence)
	b = append(b, `,"evidence_hit":`...)
	b = jsonenc.Int(b, int64(r.EvidenceHit))
	b = append(b, `,"context_sha256":`...)
	b = jsonenc.String(b, r.ContextSHA256)
	b = append(b, `,"seconds":`...)
	b = jsonenc.Float(b, r.Seconds, 64)
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":`...)
		if b, ok = jsonenc.Value(b, r.Notes); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// AppendJSON appends c as json.Marshal writes it.
func (c CostRecord) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"conversation_id":`...)
	b = jsonenc.String(b, c.ConversationID)
	b = append(b, `,"system":`...)
	b = jsonenc.String(b, c.System)
	b = append(b, `,"at":`...)
	var ok bool
	if b, ok = jsonenc.Time(b, c.At); !ok {
		return b, false
	}
	b = append(b, `,"tallies":`...)
	if b, ok = jsonenc.Slice(b, c.Tallies); !ok {
		return b, false
	}
	if c.QuestionID != "" {
		b = append(b, `,"question_id":`...)
		b = jsonenc.String(b, c.QuestionID)
	}
	if c.Part != "" {
		b = append(b, `,"part":`...)
		b = jsonenc.String(b, c.Part)
	}
	if c.Redone {
		b = append(b, `,"redone":true`...)
	}
	if c.Attempt != "" {
		b = append(b, `,"attempt":`...)
		b = jsonenc.String(b, c.Attempt)
	}
	if c.Partial {
		b = append(b, `,"partial":true`...)
	}
	return append(b, '}'), true
}

// AppendJSON appends a as json.Marshal writes it.
func (a AnswerRecord) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"question_id":`...)
	b = jsonenc.String(b, a.QuestionID)
	b = append(b, `,"conversation_id":`...)
	b = jsonenc.String(b, a.ConversationID)
	b = append(b, `,"system":`...)
	b = jsonenc.String(b, a.System)
	b = append(b, `,"category":`...)
	b = jsonenc.Int(b, int64(a.Category))
	if a.Type != "" {
		b = append(b, `,"type":`...)
		b = jsonenc.String(b, a.Type)
	}
	if a.Abstention {
		b = append(b, `,"abstention":true`...)
	}
	if a.Group != "" {
		b = append(b, `,"group":`...)
		b = jsonenc.String(b, a.Group)
	}
	b = append(b, `,"question":`...)
	b = jsonenc.String(b, a.Question)
	b = append(b, `,"gold":`...)
	b = jsonenc.String(b, a.Gold)
	b = append(b, `,"prediction":`...)
	b = jsonenc.String(b, a.Prediction)
	b = append(b, `,"context_tokens":`...)
	b = jsonenc.Int(b, int64(a.ContextTokens))
	b = append(b, `,"usage":`...)
	b, _ = a.Usage.AppendJSON(b)
	if a.Cached {
		b = append(b, `,"cached":true`...)
	}
	b = append(b, `,"context_sha256":`...)
	b = jsonenc.String(b, a.ContextSHA256)
	b = append(b, `,"prompt_sha256":`...)
	b = jsonenc.String(b, a.PromptSHA256)
	b = append(b, `,"target_sha256":`...)
	b = jsonenc.String(b, a.TargetSHA256)
	return append(b, '}'), true
}

// AppendJSON appends j as json.Marshal writes it.
func (j Judgment) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(j.Score) {
		return b, false
	}
	b = append(b, `{"question_id":`...)
	b = jsonenc.String(b, j.QuestionID)
	b = append(b, `,"system":`...)
	b = jsonenc.String(b, j.System)
	b = append(b, `,"judge":`...)
	b = jsonenc.String(b, j.Judge)
	b = appendVerdict(b, j.Correct, j.Score, j.Reason)
	if j.Raw != "" {
		b = append(b, `,"raw":`...)
		b = jsonenc.String(b, j.Raw)
	}
	if j.Invalid {
		b = append(b, `,"invalid":true`...)
	}
	if j.Repeat != 0 {
		b = append(b, `,"repeat":`...)
		b = strconv.AppendInt(b, int64(j.Repeat), 10)
	}
	return append(b, '}'), true
}

// appendVerdict appends the verdict fields Judgment and JudgeCall share
// (score finite).
func appendVerdict(b []byte, correct bool, score float64, reason string) []byte {
	b = append(b, `,"correct":`...)
	b = jsonenc.Bool(b, correct)
	b = append(b, `,"score":`...)
	b = jsonenc.Float(b, score, 64)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = jsonenc.String(b, reason)
	}
	return b
}

// AppendJSON appends t as json.Marshal writes it; its notes go through
// encoding/json (free-form values).
func (t Transcript) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(t.RetrieveSeconds) {
		return b, false
	}
	b = append(b, `{"question_id":`...)
	b = jsonenc.String(b, t.QuestionID)
	b = append(b, `,"conversation_id":`...)
	b = jsonenc.String(b, t.ConversationID)
	b = append(b, `,"system":`...)
	b = jsonenc.String(b, t.System)
	b = append(b, `,"items":`...)
	var ok bool
	if b, ok = jsonenc.Slice(b, t.Items); !ok {
		return b, false
	}
	if len(t.Candidates) > 0 {
		b = append(b, `,"candidates":`...)
		if b, ok = jsonenc.Slice(b, t.Candidates); !ok {
			return b, false
		}
	}
	if len(t.Notes) > 0 {
		b = append(b, `,"notes":`...)
		if b, ok = jsonenc.Value(b, t.Notes); !ok {
			return b, false
		}
	}
	b = append(b, `,"context":`...)
	b = jsonenc.String(b, t.Context)
	b = append(b, `,"context_tokens":`...)
	b = jsonenc.Int(b, int64(t.ContextTokens))
	b = append(b, `,"retrieve_seconds":`...)
	b = jsonenc.Float(b, t.RetrieveSeconds, 64)
	b = append(b, `,"answer":{`...)
	if b, ok = t.Answer.appendFields(b); !ok {
		return b, false
	}
	b = append(b, '}')
	if len(t.Judges) > 0 {
		b = append(b, `,"judges":`...)
		if b, ok = jsonenc.Slice(b, t.Judges); !ok {
			return b, false
		}
	}
	if t.Part != "" {
		b = append(b, `,"part":`...)
		b = jsonenc.String(b, t.Part)
	}
	return append(b, '}'), true
}

// AppendJSON appends c as json.Marshal writes it.
func (c Call) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, '{')
	b, ok := c.appendFields(b)
	return append(b, '}'), ok
}

// appendFields appends c's fields without braces, as they also appear
// inside a JudgeCall (an embedded struct's fields are its own).
func (c Call) appendFields(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(c.Seconds) {
		return b, false
	}
	if len(c.Messages) > 0 {
		b = append(b, `"messages":`...)
		b, _ = jsonenc.Slice(b, c.Messages)
		b = append(b, ',')
	}
	b = append(b, `"raw":`...)
	b = jsonenc.String(b, c.Raw)
	b = append(b, `,"usage":`...)
	b, _ = c.Usage.AppendJSON(b)
	if c.Cached {
		b = append(b, `,"cached":true`...)
	}
	b = append(b, `,"seconds":`...)
	b = jsonenc.Float(b, c.Seconds, 64)
	return b, true
}

// AppendJSON appends j as json.Marshal writes it.
func (j JudgeCall) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(j.Score) {
		return b, false
	}
	b = append(b, `{"judge":`...)
	b = jsonenc.String(b, j.Judge)
	b = appendVerdict(b, j.Correct, j.Score, j.Reason)
	b = append(b, ',')
	b, ok := j.Call.appendFields(b)
	return append(b, '}'), ok
}

// AppendJSON appends h as json.Marshal writes it (a transcript member's
// gzip header carries it).
func (h TranscriptHead) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(h.Retrieve) || !jsonenc.Finite(h.Answer) {
		return b, false
	}
	b = append(b, `{"q":`...)
	b = jsonenc.String(b, h.QuestionID)
	if h.Part != "" {
		b = append(b, `,"p":`...)
		b = jsonenc.String(b, h.Part)
	}
	if h.Retrieve != 0 {
		b = append(b, `,"r":`...)
		b = jsonenc.Float(b, h.Retrieve, 64)
	}
	if h.Answer != 0 {
		b = append(b, `,"a":`...)
		b = jsonenc.Float(b, h.Answer, 64)
	}
	if len(h.Judges) > 0 {
		b = append(b, `,"j":`...)
		var ok bool
		if b, ok = jsonenc.Slice(b, h.Judges); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// AppendJSON appends j as json.Marshal writes it.
func (j JudgeTime) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(j.Seconds) {
		return b, false
	}
	b = append(b, `{"n":`...)
	b = jsonenc.String(b, j.Judge)
	b = append(b, `,"s":`...)
	b = jsonenc.Float(b, j.Seconds, 64)
	return append(b, '}'), true
}

// AppendJSON appends u as json.Marshal writes it.
func (u Usage) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"input_tokens":`...)
	b = jsonenc.Int(b, int64(u.InputTokens))
	b = append(b, `,"output_tokens":`...)
	b = jsonenc.Int(b, int64(u.OutputTokens))
	if u.CachedInputTokens != 0 {
		b = append(b, `,"cached_input_tokens":`...)
		b = jsonenc.Int(b, int64(u.CachedInputTokens))
	}
	return append(b, '}'), true
}

// AppendJSON appends m as json.Marshal writes it.
func (m Message) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, m.Role)
	b = append(b, `,"content":`...)
	b = jsonenc.String(b, m.Content)
	return append(b, '}'), true
}

// AppendJSON appends t as json.Marshal writes it; ok is false for seconds
// that are not finite.
func (t Tally) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(t.Seconds) {
		return b, false
	}
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, t.Role)
	b = append(b, `,"stage":`...)
	b = jsonenc.String(b, string(t.Stage))
	if t.Label != "" {
		b = append(b, `,"label":`...)
		b = jsonenc.String(b, t.Label)
	}
	if t.Model != "" {
		b = append(b, `,"model":`...)
		b = jsonenc.String(b, t.Model)
	}
	b = append(b, `,"calls":`...)
	b = jsonenc.Int(b, int64(t.Calls))
	b = append(b, `,"cached_calls":`...)
	b = jsonenc.Int(b, int64(t.CachedCalls))
	b = append(b, `,"input_tokens":`...)
	b = jsonenc.Int(b, int64(t.InputTokens))
	b = append(b, `,"output_tokens":`...)
	b = jsonenc.Int(b, int64(t.OutputTokens))
	if t.CachedInputTokens != 0 {
		b = append(b, `,"cached_input_tokens":`...)
		b = jsonenc.Int(b, int64(t.CachedInputTokens))
	}
	b = append(b, `,"seconds":`...)
	b = jsonenc.Float(b, t.Seconds, 64)
	return append(b, '}'), true
}

// AppendJSON appends it as json.Marshal writes it (transcripts hold every
// retrieved item); ok is false for a score that is not finite or a time
// outside RFC 3339. TestItemJSONCoversEveryField holds it to json.Marshal.
func (it Item) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(it.Score) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = jsonenc.String(b, it.ID)
	if it.Kind != "" {
		b = append(b, `,"kind":`...)
		b = jsonenc.String(b, it.Kind)
	}
	b = append(b, `,"text":`...)
	b = jsonenc.String(b, it.Text)
	b = append(b, `,"time":`...) // omitempty never omits a struct
	var ok bool
	if b, ok = jsonenc.Time(b, it.Time); !ok {
		return b, false
	}
	if it.Speaker != "" {
		b = append(b, `,"speaker":`...)
		b = jsonenc.String(b, it.Speaker)
	}
	if len(it.Sources) > 0 {
		b = append(b, `,"sources":`...)
		b = jsonenc.Strings(b, it.Sources)
	}
	b = append(b, `,"score":`...)
	b = jsonenc.Float(b, it.Score, 64)
	return append(b, '}'), true
}

var _ jsonenc.Marshaler = Item{}
