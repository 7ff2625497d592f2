package structmem

import (
	"fmt"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/systems"
)

// UtteranceClock is how StructMem dates utterances by default, whatever
// --turn-step says: the session's date-time plus 1 s times the utterance's
// position in its session (from 0). The authors' code stamps messages
// 0.5 s apart and each utterance is a user message plus an empty
// assistant one; with per-session batches, positions never repeat. It is
// an option so that `membench systems` and the manifest's resolved
// options state it.
const UtteranceClock = "session+1s*position"

// BatchClock is the authors' code's clock as it really runs: positions
// count within each extraction batch, so utterance k of two batches of
// one session get one time and become one event. granularity=buffer512
// resolves to it unless clock is given.
const BatchClock = "batch+1s*position"

// UtteranceStep is the clock's step between utterances.
const UtteranceStep = time.Second

// BufferTokens is the authors' short-term buffer: extraction runs once
// its utterances pass 512 tokens (granularity=buffer512).
const BufferTokens = 512

// Option defaults follow how the authors' code runs StructMem (papers.md
// section C) where the paper is silent or differs: every entry is bound to
// the time of the utterance it cites, so an event is one utterance
// (anchor=session, one session one event, is kept only as an ablation);
// seeds come from any time outside the window (seed-scope=global;
// historical, strictly earlier, is the paper's wording and an option). The
// paper fixes seeds=15, window=1 h, 60 entries + 5 syntheses and
// constrained synthesis. Where the authors' code behaves otherwise than
// it says, the behaviour is an option, not the default:
// seed-scope=authors-code and granularity=buffer512 (docs/structmem.md).
var (
	// The full pipeline: the binding options below plus consolidation's.
	fullDefaults = membench.Options{
		"seeds":      "15",
		"seed-scope": "global",
		"synthesis":  "constrained",
		"window":     "3600",
		"syntheses":  "5",
	}.Merge(bindingDefaults)
	// The ablations have no consolidation, so they accept no consolidation
	// options: asking for seeds there is a configuration mistake.
	bindingDefaults = membench.Options{
		"granularity": "session",
		"compression": "1",
		"anchor":      "utterance",
		"clock":       UtteranceClock,
		"entries":     "60",
	}
)

// follow sets the clock granularity=buffer512 implies when the user did
// not choose one, so the manifest records the clock the build used.
func follow(given, merged membench.Options) membench.Options {
	if _, set := given["clock"]; !set && merged["granularity"] == "buffer512" {
		merged["clock"] = BatchClock
	}
	return merged
}

// Config is the resolved option set.
type Config struct {
	Seeds int `json:"seeds"`
	// SeedScope: global (any time outside the window), historical
	// (strictly earlier) or authors-code (any entry, the window's own
	// included, as the authors' code's search really runs).
	SeedScope string `json:"seed_scope"`
	// Synthesis: constrained, unconstrained, or none (no consolidation:
	// the ablations, and structmem's "no syntheses" row).
	Synthesis string `json:"synthesis"`
	WindowSec int    `json:"window_sec"`
	// Granularity: the extraction batch: session, utterance, or buffer512
	// (the authors' 512-token buffer across sessions).
	Granularity string `json:"granularity"`
	// Compression scales each utterance's token count before it enters
	// the 512-token buffer, standing in for LLMLingua-2's rate (the text
	// itself is sent whole). 1 = no compression.
	Compression float64 `json:"compression"`
	// Anchor is the time an entry is bound to: its utterance's (utterance,
	// the default) or its session's (session, an ablation).
	Anchor string `json:"anchor"`
	// Clock is UtteranceClock or BatchClock, recorded so a dump says how
	// times were made.
	Clock     string `json:"clock"`
	Entries   int    `json:"entries"`
	Syntheses int    `json:"syntheses"`
	// FactualOnly: the factual prompt alone, no relational entries
	// (structmem-flat, the authors' flat extraction mode).
	FactualOnly bool `json:"factual_only,omitempty"`
}

// Window is the consolidation window as a duration.
func (c Config) Window() time.Duration { return time.Duration(c.WindowSec) * time.Second }

// Constrained reports whether the synthesis must cite the events it draws on.
func (c Config) Constrained() bool { return c.Synthesis == "constrained" }

// Consolidates reports whether the build writes syntheses at all.
func (c Config) Consolidates() bool { return c.Synthesis != "none" }

// ParseConfig validates o against the variant's defaults and resolves it.
func ParseConfig(system string, o membench.Options, defaults membench.Options) (Config, error) {
	if err := o.Check(system, defaults); err != nil {
		return Config{}, err
	}
	m := follow(o, o.Merge(defaults))
	r := systems.Read(m)
	// atLeast is Reader.Min with StructMem's own message.
	atLeast := func(key string, def int, min int) int {
		n := r.Int(key, def)
		if n < min {
			r.Failf("option %s=%d: must be at least %d", key, n, min)
		}
		return n
	}
	var c Config
	c.Seeds = atLeast("seeds", 0, 0)
	if r.Err != nil && m["seeds"] == "authors-code" {
		r.Err = fmt.Errorf("%w (seeds is the number of seeds; the authors' code's seed search is seed-scope=authors-code)", r.Err)
	}
	c.WindowSec = atLeast("window", 3600, 1)
	c.Entries = atLeast("entries", 60, 1)
	c.Syntheses = atLeast("syntheses", 0, 0)
	c.SeedScope = r.String("seed-scope", "global", "global", "historical", "authors-code")
	// The variants without consolidation have no synthesis option.
	c.Synthesis = r.String("synthesis", "none", "constrained", "unconstrained", "none")
	c.Granularity = r.String("granularity", "session", "session", "utterance", "buffer512")
	c.Compression = r.Float("compression", 1)
	switch {
	case !(c.Compression > 0 && c.Compression <= 1):
		r.Failf("option compression=%s: want a rate in (0, 1], the share of tokens LLMLingua-2 keeps (1 = none)", m["compression"])
	case c.Compression != 1 && c.Granularity != "buffer512":
		r.Failf("option compression=%s applies only to granularity=buffer512 (it sizes the 512-token batches)", m["compression"])
	}
	c.Anchor = r.String("anchor", "utterance", "utterance", "session")
	var err error
	if c.Clock, err = m.String("clock", UtteranceClock, UtteranceClock, BatchClock); err != nil {
		r.Failf("%w (StructMem dates utterances by its own clock, whatever --turn-step says)", err)
	}
	if c.Clock == BatchClock && c.Granularity != "buffer512" {
		r.Failf("option clock=%s applies only to granularity=buffer512: with per-session or per-utterance batches positions count within the session", BatchClock)
	}
	if r.Err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, r.Err)
	}
	return c, nil
}
