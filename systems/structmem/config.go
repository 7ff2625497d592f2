package structmem

import (
	"fmt"
	"time"

	"github.com/membench/membench/systems"
)

// UtteranceClock is the one rule StructMem dates utterances by, whatever
// --turn-step says: the session's date-time plus 1 s times the utterance's
// position in its session (from 0). The authors' code stamps messages
// 0.5 s apart and each utterance is a user message plus an empty
// assistant one; we extract per session, so positions never repeat. It is
// an option with this single value so that `membench systems` and the
// manifest's resolved options state it.
const UtteranceClock = "session+1s*position"

// UtteranceStep is the clock's step between utterances.
const UtteranceStep = time.Second

// Option defaults follow how the authors' code runs StructMem (papers.md
// section C) where the paper is silent or differs: every entry is bound to
// the time of the utterance it cites, so an event is one utterance
// (anchor=session, one session one event, is kept only as an ablation);
// seeds come from any time outside the window (seed-scope=global;
// historical, strictly earlier, is the paper's wording and an option). The
// paper fixes seeds=15, window=1 h, 60 entries + 5 syntheses and
// constrained synthesis.
var (
	fullDefaults = systems.Options{
		"seeds":       "15",
		"seed-scope":  "global",
		"synthesis":   "constrained",
		"window":      "3600",
		"granularity": "session",
		"anchor":      "utterance",
		"clock":       UtteranceClock,
		"entries":     "60",
		"syntheses":   "5",
	}
	// The ablations have no consolidation, so they accept no consolidation
	// options: asking for seeds there is a configuration mistake.
	bindingDefaults = systems.Options{
		"granularity": "session",
		"anchor":      "utterance",
		"clock":       UtteranceClock,
		"entries":     "60",
	}
)

// Config is the resolved option set.
type Config struct {
	Seeds       int    `json:"seeds"`
	SeedScope   string `json:"seed_scope"`
	Synthesis   string `json:"synthesis"`
	WindowSec   int    `json:"window_sec"`
	Granularity string `json:"granularity"`
	// Anchor is the time an entry is bound to: its utterance's (utterance,
	// the default) or its session's (session, an ablation).
	Anchor string `json:"anchor"`
	// Clock is UtteranceClock, recorded so a dump says how times were made.
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

// ParseConfig validates o against the variant's defaults and resolves it.
func ParseConfig(system string, o systems.Options, defaults systems.Options) (Config, error) {
	if err := o.Check(system, defaults); err != nil {
		return Config{}, err
	}
	m := o.Merge(defaults)
	var c Config
	var err error
	get := func(key string, def int, min int) int {
		if err != nil {
			return 0
		}
		var n int
		n, err = m.Int(key, def)
		if err == nil && n < min {
			err = fmt.Errorf("option %s=%d: must be at least %d", key, n, min)
		}
		return n
	}
	c.Seeds = get("seeds", 0, 0)
	c.WindowSec = get("window", 3600, 1)
	c.Entries = get("entries", 60, 1)
	c.Syntheses = get("syntheses", 0, 0)
	if err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, err)
	}
	if c.SeedScope, err = m.String("seed-scope", "global", "global", "historical"); err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, err)
	}
	if c.Synthesis, err = m.String("synthesis", "constrained", "constrained", "unconstrained"); err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, err)
	}
	if c.Granularity, err = m.String("granularity", "session", "session", "utterance"); err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, err)
	}
	if c.Anchor, err = m.String("anchor", "utterance", "utterance", "session"); err != nil {
		return Config{}, fmt.Errorf("system %s: %w", system, err)
	}
	if c.Clock, err = m.String("clock", UtteranceClock, UtteranceClock); err != nil {
		return Config{}, fmt.Errorf("system %s: %w (StructMem always dates utterances this way, whatever --turn-step says)", system, err)
	}
	return c, nil
}
