package flat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// Task kinds (offline heuristics are registered under these names).
const (
	TaskExtract = "flat.extract"
	TaskUpdate  = "flat.update"
)

// Defaults are flat's options: extraction batch, how many stored facts each
// new fact is compared with, retrieval mode and k (10 per speaker is the
// mem0 baseline setting in the StructMem paper).
var Defaults = membench.Options{"batch": "message", "similar": "5", "mode": "per-speaker", "k": "10"}

// Config is flat's parsed options.
type Config struct {
	Batch   string // message | session
	Similar int    // stored facts shown per new fact in the update call
	Mode    string // per-speaker | combined
	K       int
}

// ParseConfig reads flat's options (defaults filled in; unknown keys are
// left to the caller's Options.Check, since graph adds its own).
func ParseConfig(o membench.Options) (Config, error) {
	r := systems.Read(o.Merge(Defaults))
	c := Config{
		Batch:   r.String("batch", "message", "message", "session"),
		Similar: r.Int("similar", 5),
		Mode:    r.String("mode", "per-speaker", "per-speaker", "combined"),
		K:       r.Int("k", 10),
	}
	if c.Similar < 1 || c.K < 1 {
		r.Failf("options similar=%d, k=%d: both must be at least 1", c.Similar, c.K)
	}
	return c, r.Err
}

// Batch is the unit of one extraction call: one turn, or one session.
type Batch struct {
	Turns    []*datasets.Turn
	First    int    // position of Turns[0] in conv.AllTurns()
	Previous string // the turn before the batch, "Speaker: text", for context
}

// Batches splits a conversation the way cfg.Batch says.
func Batches(conv *datasets.Conversation, mode string) []Batch {
	var out []Batch
	pos := 0
	prev := ""
	for _, s := range conv.Sessions {
		if mode == "session" {
			if len(s.Turns) > 0 {
				out = append(out, Batch{Turns: s.Turns, First: pos, Previous: prev})
			}
		} else {
			for i, t := range s.Turns {
				out = append(out, Batch{Turns: []*datasets.Turn{t}, First: pos + i, Previous: prev})
				prev = t.Speaker + ": " + t.Text
			}
		}
		pos += len(s.Turns)
		if n := len(s.Turns); n > 0 {
			prev = s.Turns[n-1].Speaker + ": " + s.Turns[n-1].Text
		}
	}
	return out
}

// IDs returns the batch's turn ids.
func (b Batch) IDs() []string {
	out := make([]string, len(b.Turns))
	for i, t := range b.Turns {
		out[i] = t.ID
	}
	return out
}

// NewFact is one extracted fact before the update decision.
type NewFact struct {
	Text    string
	Speaker string
	Time    time.Time
	Sources []string
}

// Reply is the result of one build request.
type Reply[T any] struct {
	Out    T             // the decoded reply
	Call   llm.JSONReply // every chat request made, a repair retry included
	Failed bool          // reply stayed malformed
	Raw    string        // the failed reply, for the build's failure report
}

// Ask renders the prompt template with req.Inputs and sends req with it to
// the build model. A reply that stays malformed is no error: it comes back
// Failed, with its first reply in Raw. Graph asks this way too. A prompt
// that fails to render is returned as an error with no request made; a
// caller that counts the request first counts one more, which no one sees:
// the build stops with that error and its stats are dropped.
func Ask[T any](ctx context.Context, env systems.Env, template string, req llm.Request) (Reply[T], error) {
	var r Reply[T]
	var err error
	if req.Messages, err = prompts.Render(template, req.Inputs); err != nil {
		return r, err
	}
	r.Call, err = llm.ChatJSON(ctx, env.Build, req, &r.Out)
	var malformed *llm.ParseError // the only error that is ErrMalformed
	if errors.As(err, &malformed) {
		r.Failed, r.Raw = true, malformed.Raw
		return r, nil
	}
	return r, err
}

// Extraction is the result of one extraction call.
type Extraction struct {
	Facts  []NewFact
	Call   llm.JSONReply // every chat request made, a repair retry included
	Failed bool          // reply stayed malformed
	Raw    string        // the failed reply, for the build's failure report
}

// Builder applies batches to a Store in conversation order. Extract may run
// concurrently for different batches (it reads no store state); Apply must
// be called in order.
type Builder struct {
	env      systems.Env
	cfg      Config
	speakers []string
	store    *Store
	counts   map[string]int
	tally    membench.BuildStats // requests and failures (Apply runs in order)
}

// Note counts one logical build request, failed or not, with the raw reply
// of a failed one; graph notes its own calls here too.
func (b *Builder) Note(failed bool, raw string) { b.tally.AddRequest(failed, raw) }

// Tally is the build's request and failure counts so far.
func (b *Builder) Tally() membench.BuildStats { return b.tally }

// NewBuilder starts an empty store for a conversation with these speakers.
func NewBuilder(env systems.Env, cfg Config, speakers []string) *Builder {
	return &Builder{env: env, cfg: cfg, speakers: speakers, store: NewStore(), counts: map[string]int{
		"facts_added": 0, "updated": 0, "deleted": 0, "none": 0, "failed": 0}}
}

// Store is the builder's store.
func (b *Builder) Store() *Store { return b.store }

// Counts are the decision counts so far (facts_added, updated, deleted,
// none, failed, extracted, llm_calls, embedded_texts).
func (b *Builder) Counts() map[string]int { return b.counts }

// Extract asks the build model for the batch's facts.
func (b *Builder) Extract(ctx context.Context, batch Batch) (Extraction, error) {
	in := ExtractInput{Speakers: b.speakers, Previous: batch.Previous, Session: len(batch.Turns) > 1 || b.cfg.Batch == "session"}
	for _, t := range batch.Turns {
		in.Messages = append(in.Messages, MessageIn{TurnID: t.ID, Speaker: t.Speaker, Date: FormatDate(t.Time), Text: t.Text})
	}
	r, err := Ask[extractReply](ctx, b.env, "flat_extract", llm.Request{Task: TaskExtract, Inputs: in, Stage: membench.StageBuild, Label: "extract_facts"})
	ex := Extraction{Call: r.Call, Failed: r.Failed, Raw: r.Raw}
	if r.Failed || err != nil {
		return ex, err
	}
	byID := map[string]*datasets.Turn{}
	for _, t := range batch.Turns {
		byID[t.ID] = t
	}
	for _, f := range r.Out.Facts {
		text := strings.TrimSpace(f.Text)
		if text == "" {
			continue
		}
		nf := NewFact{Text: text, Speaker: batch.Turns[0].Speaker, Time: batch.Turns[0].Time, Sources: batch.IDs()}
		if t := byID[f.Turn]; t != nil {
			nf.Speaker, nf.Time, nf.Sources = t.Speaker, t.Time, []string{t.ID}
		} else if f.Speaker != "" {
			nf.Speaker = f.Speaker
		}
		ex.Facts = append(ex.Facts, nf)
	}
	return ex, nil
}

// extractReply accepts facts as plain strings (message batches) or objects
// naming their turn (session batches).
type extractReply struct {
	Facts []factItem `json:"facts"`
}

type factItem struct {
	Text, Speaker, Turn string
}

func (f *factItem) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &f.Text)
	}
	var o struct {
		Text    string `json:"text"`
		Fact    string `json:"fact"`
		Speaker string `json:"speaker"`
		Turn    string `json:"turn"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	f.Text, f.Speaker, f.Turn = o.Text, o.Speaker, o.Turn
	if f.Text == "" {
		f.Text = o.Fact
	}
	return nil
}

type decision struct {
	Fact  FlexString `json:"fact"`
	Event string     `json:"event"`
	ID    FlexString `json:"id"`
	Text  string     `json:"text"`
}

type updateReply struct {
	Decisions []decision `json:"decisions"`
}

// Apply embeds the batch's new facts, shows each with its `similar` nearest
// live facts to the build model in one update call, and applies the
// decisions. It returns the update call's cost.
func (b *Builder) Apply(ctx context.Context, batch Batch, ex Extraction) (llm.JSONReply, error) {
	b.counts["llm_calls"] += ex.Call.Calls
	b.counts["extracted"] += len(ex.Facts)
	b.Note(ex.Failed, ex.Raw)
	if ex.Failed {
		b.counts["failed"]++
	} else {
		b.tally.AddExtraction(len(ex.Facts) == 0)
	}
	if len(ex.Facts) == 0 {
		return llm.JSONReply{}, nil
	}
	texts := make([]string, len(ex.Facts))
	for i, f := range ex.Facts {
		texts[i] = f.Text
	}
	vecs, err := b.env.Embedder.Embed(ctx, texts)
	if err != nil {
		return llm.JSONReply{}, fmt.Errorf("flat: embedding facts: %w", err)
	}
	b.counts["embedded_texts"] += len(texts)

	// Union of the nearest stored facts, shown under short ids ("0", "1",
	// ...) so the model cannot garble long ids.
	in := UpdateInput{Facts: texts}
	short := map[string]string{}
	for _, v := range vecs {
		for _, h := range b.store.Search(v, b.cfg.Similar) {
			if _, ok := short[h.ID]; ok {
				continue
			}
			sid := strconv.Itoa(len(in.Memories))
			short[sid], short[h.ID] = h.ID, sid
			in.Memories = append(in.Memories, MemoryIn{ID: sid, Text: h.Text, Date: FormatDate(h.Time)})
		}
	}
	decisions := make([]decision, len(ex.Facts))
	for i := range decisions {
		decisions[i] = decision{Fact: FlexString(strconv.Itoa(i)), Event: "ADD"}
	}
	var call llm.JSONReply
	if len(in.Memories) > 0 {
		r, err := Ask[updateReply](ctx, b.env, "flat_update", llm.Request{Task: TaskUpdate, Inputs: in, Stage: membench.StageBuild, Label: "update_decision"})
		call = r.Call
		b.counts["llm_calls"] += call.Calls
		b.Note(r.Failed, r.Raw)
		switch {
		case err != nil:
			return call, err
		case r.Failed:
			// Without decisions every fact is new: nothing is lost, at worst duplicated.
			b.counts["failed"]++
		default:
			for _, d := range r.Out.Decisions {
				if i, err := strconv.Atoi(strings.TrimSpace(string(d.Fact))); err == nil && i >= 0 && i < len(decisions) {
					decisions[i] = d
				}
			}
		}
	}
	by := batch.IDs()
	for i, d := range decisions {
		f := ex.Facts[i]
		target := short[strings.TrimSpace(string(d.ID))]
		switch strings.ToUpper(strings.TrimSpace(d.Event)) {
		case "NONE":
			if target != "" {
				b.store.AddSources(target, f.Sources)
			}
			b.counts["none"]++
		case "UPDATE":
			text := strings.TrimSpace(d.Text)
			if text == "" {
				text = f.Text
			}
			vec := vecs[i]
			if text != f.Text {
				v, err := b.env.Embedder.Embed(ctx, []string{text})
				if err != nil {
					return call, fmt.Errorf("flat: embedding updated fact: %w", err)
				}
				b.counts["embedded_texts"]++
				vec = v[0]
			}
			if target != "" && b.store.Update(target, text, f.Time, f.Sources, vec) {
				b.counts["updated"]++
			} else {
				// An unknown or already deleted id: keep the fact as new.
				b.store.Add(text, f.Speaker, f.Time, f.Sources, vec)
				b.counts["facts_added"]++
				b.counts["bad_id"]++
			}
		case "DELETE":
			if target != "" && b.store.Delete(target, f.Time, by) {
				b.counts["deleted"]++
			} else {
				b.counts["bad_id"]++
			}
		default: // ADD, or an unknown event word
			b.store.Add(f.Text, f.Speaker, f.Time, f.Sources, vecs[i])
			b.counts["facts_added"]++
		}
	}
	return call, nil
}

// TurnCurve accumulates per-turn build tokens: the cost of a batch lands on
// its last turn, so a session batch's earlier turns show the previous total.
type TurnCurve struct {
	tokens []int
	total  int
}

// NewTurnCurve makes a curve for n turns.
func NewTurnCurve(n int) *TurnCurve { return &TurnCurve{tokens: make([]int, n)} }

// Add charges tokens to the batch and fills its turns.
func (c *TurnCurve) Add(b Batch, tokens int) {
	prev := c.total
	c.total += tokens
	for i := range b.Turns {
		p := b.First + i
		if p >= len(c.tokens) {
			break
		}
		c.tokens[p] = prev
		if i == len(b.Turns)-1 {
			c.tokens[p] = c.total
		}
	}
}

// Tokens is the cumulative curve.
func (c *TurnCurve) Tokens() []int { return c.tokens }

// Total is the build's token sum so far.
func (c *TurnCurve) Total() int { return c.total }

// Build extracts and consolidates a conversation's facts. Extraction calls
// run concurrently (env.Concurrency); update decisions run in turn order.
//
// TurnTokens comes from the build's own per-call usage, not env.Meter: the
// meter may be shared with other conversations and extraction runs ahead of
// the updates, so only per-batch attribution gives a per-turn curve that
// does not depend on scheduling. It equals what the meter records for this
// conversation's chat calls (embeddings are left out, as in the meter).
func Build(ctx context.Context, env systems.Env, conv *datasets.Conversation, cfg Config) (*Store, membench.BuildStats, error) {
	b := NewBuilder(env, cfg, conv.Speakers)
	batches := Batches(conv, cfg.Batch)
	exs, err := systems.ParallelMap(ctx, len(batches), env.Concurrency, func(ctx context.Context, i int) (Extraction, error) {
		return b.Extract(ctx, batches[i])
	})
	if err != nil {
		return nil, membench.BuildStats{}, fmt.Errorf("flat: conversation %s: %w", conv.ID, err)
	}
	curve := NewTurnCurve(len(conv.AllTurns()))
	for i, batch := range batches {
		call, err := b.Apply(ctx, batch, exs[i])
		if err != nil {
			return nil, membench.BuildStats{}, fmt.Errorf("flat: conversation %s, turn %s: %w", conv.ID, batch.Turns[0].ID, err)
		}
		curve.Add(batch, exs[i].Call.Tokens+call.Tokens)
	}
	stats := b.Tally()
	stats.Counts, stats.TurnTokens = b.Counts(), curve.Tokens()
	stats.Counts["live_facts"] = len(b.store.Live())
	stats.SetEntries(len(b.store.Live()))
	stats.Counts["build_tokens"] = curve.Total()
	return b.store, stats, nil
}
