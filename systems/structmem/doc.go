// Package structmem implements StructMem (arXiv 2604.21748): memory as
// time-anchored relational events plus batched cross-event synthesis.
//
// Event-level binding: a factual and a relational prompt (dual
// perspective) turn utterances into natural-language entries, each bound to
// a timestamp. anchor=session (default, as the authors' code runs LoCoMo,
// which dates sessions only) binds every entry to its session's date-time,
// so one session is one event; anchor=utterance binds it to the cited
// utterance's own time (session time + turn index × turn step, a synthetic
// clock). granularity=session (default,
// like the authors' code, which extracts per session segment) sends the
// utterances of a session with their ids and times in one call per
// perspective; every returned entry must cite a listed utterance id, else
// it is dropped and counted. granularity=utterance sends one call per
// perspective per utterance (the paper's description).
//
// Cross-event consolidation runs after the build over all entries ("process
// all", as the authors' code does): a time pointer walks the conversation
// clock; each window holds the entries in [pointer, pointer+window], empty
// stretches are jumped. The window text (its entries, joined) is embedded
// and the top `seeds` entries are taken from any time outside the window
// (seed-scope=global, the authors' code's default) or from strictly earlier
// times (historical, the paper's wording). A window without seeds is
// skipped, as that code does. Each seed's whole event (all entries
// sharing its timestamp) joins; one call over buffer + events writes
// synthesis memories. Constrained synthesis must cite ≥ 2 event timestamps
// of that context and state the dependency; other links are rejected and
// counted. seeds=0 skips consolidation entirely (no calls).
//
// Choices where the paper is silent: event key = timestamp, or the session
// (anchor=session) or turn id for undated material (a zero time would merge all undated turns into one
// event); a window whose context holds a single event is not sent (no link
// can rest on two events); malformed answers get one repair
// retry, then are kept as failures; retrieval renders entries in time order,
// then the syntheses.
//
// Offline heuristics (llm.NewOffline, tasks structmem.extract_fact,
// structmem.extract_rel, structmem.consolidate), deterministic, reading
// ExtractInput / ConsolidateInput from Request.Inputs and answering the same
// JSON shapes the prompts ask for:
//   - facts: every declarative sentence (not a question) with ≥ 2 content
//     words, with I/my/you/we resolved to the speakers' names and
//     "(stated on <date>)" attached; "[image: c]" becomes "X shared an image
//     showing c".
//   - relations: sentences that address or name the other speaker, say
//     "we", or hold an emotion, causal or temporal word, written "X told Y
//     that ..." or, for questions, "X asked Y: ...", date attached.
//   - synthesis: each buffer event linked to the seed event with which it
//     shares the most content words (speaker names, months and numbers
//     excluded) when it shares ≥ 2, citing both event times, earlier first,
//     at most 10 links per window.
package structmem
