package structmem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// Names of the registered variants: the full pipeline and the authors'
// Table 4 rows inside it.
const (
	Name          = "structmem"
	NameNoCross   = "structmem-no-cross-event"
	NameFlat      = "structmem-flat"
	embedBatchMax = 256
)

// Memory is what every variant declares to the harness: it builds a memory,
// and with one extraction call per session and perspective, a reply with
// no entry is rare enough that more than 5% of them means a broken model
// or server.
var memoryRule = systems.MemoryRule{Builds: true, MaxEmptyReplies: 0.05}

func init() {
	for _, v := range []struct {
		name, description string
		defaults          membench.Options
	}{
		{Name, "StructMem as its authors' code runs it: dual-perspective event binding (factual + relational entries, each bound to the time of the utterance it cites: session time + 1 s × position, whatever --turn-step says; one utterance, one event) with one constrained 200-350-word synthesis narrative per 1 h window, top-15 global seeds (seed-scope=historical: earlier only); retrieves 60 entries + 5 syntheses. The authors' code as it really runs, as options: seed-scope=authors-code (seeds may come from the window itself), granularity=buffer512 (512-token batches across sessions, clock restarting per batch); seeds=0: syntheses without seeds; synthesis=none: no syntheses", fullDefaults},
		{NameNoCross, "StructMem without cross-event consolidation (Table 4 \"w/o Cross-Event\"): factual + relational event binding, no synthesis; retrieves 60 entries", bindingDefaults},
		{NameFlat, "StructMem's factual prompt alone (Table 4 \"Flat\", the authors' flat extraction mode): no relational entries, no synthesis; retrieves 60 entries", bindingDefaults},
	} {
		systems.Register(systems.Spec{Name: v.name, Description: v.description, Defaults: v.defaults, Follow: follow, Memory: memoryRule,
			New: func(env systems.Env) (systems.System, error) { return New(v.name, env, v.defaults) }})
	}
	registerOffline()
}

// Memory is one conversation's StructMem store.
type Memory struct {
	name   string
	cfg    Config
	env    systems.Env
	convID string

	speakers []string
	entries  []*Entry
	byID     map[string]*Entry
	byEvent  map[string][]*Entry // event key -> entries, in entry order
	syns     []*Synthesis
	windows  []WindowRecord
	failures []Failure
	requests int // logical build requests (extractions, windows sent)
	// extractions counts parsed extraction replies, emptyReplies those
	// that kept no entry (systems.MemoryRule).
	extractions, emptyReplies int
	counts                    map[string]int
	events                    *vindex.Index
	synthIdx                  *vindex.Index
	turnTexts                 map[string]string
}

// New makes a store for one conversation; defaults decide the variant.
func New(name string, env systems.Env, defaults membench.Options) (*Memory, error) {
	cfg, err := ParseConfig(name, env.Options, defaults)
	if err != nil {
		return nil, err
	}
	cfg.FactualOnly = name == NameFlat
	if env.Build == nil {
		return nil, fmt.Errorf("system %s needs a build model (--llm)", name)
	}
	if env.Embedder == nil {
		return nil, fmt.Errorf("system %s needs an embedder (--embedder)", name)
	}
	return &Memory{
		name: name, cfg: cfg, env: env,
		byID: map[string]*Entry{}, byEvent: map[string][]*Entry{},
		counts: map[string]int{}, events: vindex.New(), synthIdx: vindex.New(),
		turnTexts: map[string]string{},
	}, nil
}

// Config returns the resolved options.
func (m *Memory) Config() Config { return m.cfg }

// turnInfo is a turn with its position in the conversation and the time
// its entries are bound to.
type turnInfo struct {
	*datasets.Turn
	session     string
	sessionTime time.Time
	index       int
	// at is the entries' time: the session's (anchor=session) or the
	// turn's own; event is the event key that time gives.
	at    time.Time
	event string
}

// stamp dates the utterance at position pos of its session's clock (or
// of its batch's part of the session under BatchClock). Undated
// utterances are keyed by their turn id, so they never merge.
func (t *turnInfo) stamp(pos int) {
	if t.sessionTime.IsZero() {
		t.at, t.event = time.Time{}, eventKey(time.Time{}, t.ID)
		return
	}
	t.at = t.sessionTime.Add(time.Duration(pos) * UtteranceStep)
	t.event = eventKey(t.at, t.ID)
}

// Ingest binds every utterance into entries, then (unless synthesis=none
// or the variant has no consolidation) consolidates all windows.
func (m *Memory) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	if m.entries != nil || m.convID != "" {
		return membench.BuildStats{}, errors.New("structmem: Ingest called twice on one store; make a new system per conversation")
	}
	m.convID = conv.ID
	m.speakers = speakersOf(conv)
	var meterStart int
	if m.env.Meter != nil {
		meterStart = m.env.Meter.TotalTokens(membench.StageBuild)
	}

	var sessions [][]*turnInfo
	nTurns := 0
	for _, s := range conv.Sessions {
		var ts []*turnInfo
		for pos, t := range s.Turns {
			idx := nTurns
			nTurns++
			m.turnTexts[t.ID] = t.Speaker + ": " + t.Text
			if strings.TrimSpace(t.Text) == "" {
				m.counts["skipped_empty_turns"]++
				continue
			}
			ti := &turnInfo{Turn: t, session: s.ID, sessionTime: s.Time, index: idx}
			switch {
			case m.cfg.Anchor == "session":
				// The ablation: one session, one event.
				ti.at, ti.event = s.Time, eventKey(s.Time, s.ID)
			default:
				// UtteranceClock, not the dataset's --turn-step times;
				// BatchClock restamps below, once the batches are known.
				ti.stamp(pos)
			}
			ts = append(ts, ti)
		}
		sessions = append(sessions, ts)
	}
	turnCost := make([]int, nTurns)

	batches := m.batches(conv, sessions)
	if err := m.bind(ctx, batches, turnCost); err != nil {
		return membench.BuildStats{}, err
	}
	if err := m.embedEntries(ctx); err != nil {
		return membench.BuildStats{}, err
	}
	if m.cfg.Consolidates() {
		if err := m.consolidate(ctx, turnCost); err != nil {
			return membench.BuildStats{}, err
		}
	}

	st := membench.BuildStats{Counts: maps.Clone(m.counts), Notes: map[string]any{}}
	st.Requests, st.Failed = m.requests, len(m.failures)
	if len(m.failures) > 0 {
		st.FirstFailure = m.failures[0].Raw
	}
	st.Counts["entries"] = len(m.entries)
	st.SetEntries(len(m.entries))
	st.Extractions, st.EmptyReplies = m.extractions, m.emptyReplies
	st.Counts["syntheses"] = len(m.syns)
	for _, k := range []string{"entries_factual", "entries_relational", "dropped_entries", "foreign_citations", "failed_extractions", "calls_extract_fact", "calls_extract_rel", "calls_consolidate", "batches", "events", "windows"} {
		st.Counts[k] += 0 // always present, zero or not
	}
	st.Counts["events"] = len(m.byEvent)
	// The authors' call counter: one per extraction batch (their factual
	// and relational replies are merged into one result), one per
	// synthesis window, plus their offline-update calls (we make none).
	st.Counts[membench.CountAuthorsCalls] = m.counts["batches"] + m.counts["windows"]
	cum := 0
	st.TurnTokens = make([]int, nTurns)
	for i, c := range turnCost {
		cum += c
		st.TurnTokens[i] = cum
	}
	st.Notes["config"] = m.cfg
	if m.cfg.Consolidates() {
		st.Notes["consolidation"] = "after the build over all entries (process all), windows on the conversation clock, one synthesis call per window"
	}
	switch {
	case m.cfg.Anchor != "utterance":
	case m.cfg.Clock == BatchClock:
		st.Notes["clock"] = "utterance time = session date-time + 1 s x position among the session's utterances in its extraction batch (the authors' code), whatever --turn-step says; utterance k of two batches of one session share a time, so one event"
	default:
		st.Notes["clock"] = "utterance time = session date-time + 1 s x position in the session, whatever --turn-step says; one utterance, one event"
	}
	if m.cfg.Granularity == "buffer512" {
		st.Notes["batches"] = fmt.Sprintf("extraction batches of at most %d tokens (o200k_base count x compression %g; the text itself is sent uncompressed) across session boundaries, the last one at the conversation's end, as the authors' short-term buffer; no topic segmenter", BufferTokens, m.cfg.Compression)
	}
	st.Notes["authors_counter"] = "authors_counter_calls = extraction batches (factual + relational as one) + synthesis windows + update calls (none here), the counter behind the paper's Table 2 calls column"
	st.Notes["turn_tokens"] = "own sum of build usage, each call charged to the last turn it covers (consolidation: the window's last turn)"
	st.Notes["build_tokens"] = cum
	if m.env.Meter != nil {
		// The meter may be shared with other conversations running at the
		// same time, so it is only a cross-check here.
		st.Notes["meter_build_tokens_delta"] = m.env.Meter.TotalTokens(membench.StageBuild) - meterStart
	}
	return st, nil
}

func speakersOf(conv *datasets.Conversation) []string {
	if len(conv.Speakers) > 0 {
		return conv.Speakers
	}
	var out []string
	for _, t := range conv.AllTurns() {
		if !slices.Contains(out, t.Speaker) {
			out = append(out, t.Speaker)
		}
	}
	return out
}

// addEntry stores e (id assigned here, in deterministic assembly order).
func (m *Memory) addEntry(e *Entry) {
	e.ID = fmt.Sprintf("e%05d", len(m.entries)+1)
	m.entries = append(m.entries, e)
	m.byID[e.ID] = e
	m.byEvent[e.Event] = append(m.byEvent[e.Event], e)
	if e.Kind == KindFactual {
		m.counts["entries_factual"]++
	} else {
		m.counts["entries_relational"]++
	}
}

// eventKey names an event by its time; an undated one by its turn or
// session id, so undated material does not merge into one event.
func eventKey(t time.Time, id string) string {
	if t.IsZero() {
		return "undated " + id
	}
	return TimeLabel(t)
}

func (m *Memory) embedEntries(ctx context.Context) error {
	texts := make([]string, len(m.entries))
	for i, e := range m.entries {
		texts[i] = e.Text
	}
	vecs, err := embedAll(ctx, m.env.Embedder, texts)
	if err != nil {
		return fmt.Errorf("structmem: embedding entries: %w", err)
	}
	for i, e := range m.entries {
		e.Embedding = vecs[i]
		m.events.Add(e.ID, vecs[i])
	}
	return nil
}

func embedAll(ctx context.Context, emb llm.Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += embedBatchMax {
		j := min(i+embedBatchMax, len(texts))
		v, err := emb.Embed(ctx, texts[i:j])
		if err != nil {
			return nil, err
		}
		if len(v) != j-i {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(v), j-i)
		}
		out = append(out, v...)
	}
	return out, nil
}

// sortedEntries returns entries by time, ties in the order they were
// added: the conversation clock order.
func (m *Memory) sortedEntries() []*Entry {
	out := slices.Clone(m.entries)
	slices.SortStableFunc(out, func(a, b *Entry) int { return a.Time.Compare(b.Time) })
	return out
}
