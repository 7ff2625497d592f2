// Package structmem implements StructMem (arXiv 2604.21748): memory as
// time-anchored relational events plus batched cross-event synthesis, run
// the way its authors' code runs it where the paper is silent
// (docs/structmem.md).
//
// Event-level binding: a factual and a relational prompt (dual
// perspective) turn utterances into natural-language entries.
// granularity=session (default, one call per perspective per session)
// lists the session's utterances with ids and times; every returned entry
// must cite a listed utterance id, else it is dropped and counted.
// granularity=utterance sends one call per perspective per utterance;
// granularity=buffer512 batches utterances as the authors' 512-token
// short-term buffer does, across sessions (compression scales the token
// counts). An entry takes the time of the utterance it cites on
// StructMem's own clock (UtteranceClock: session date-time + 1 s ×
// position in the session, whatever --turn-step says), so an event, the
// entries sharing one exact time, is one utterance (anchor=utterance);
// under buffer512 the clock is the authors' BatchClock (positions restart
// in each batch, so utterance k of two batches of one session is one
// event). anchor=session, one session one event, is an ablation.
// structmem-flat sends the factual prompt alone.
//
// Cross-event consolidation runs after the build over all entries ("process
// all"): a time pointer walks the clock; each window holds the entries in
// [pointer, pointer+window], empty stretches are jumped. The window text is
// embedded and the top `seeds` entries are taken from any time outside the
// window (seed-scope=global), strictly earlier (historical), or from
// every entry, the window's own included (authors-code: how the authors'
// search really runs); each seed brings its whole event. Every window gets
// one synthesis call, seeds or not (seeds=0: none are searched), and one
// synthesis: a chronological narrative of 200-350 words. Constrained, it
// must cite (in brackets or its times list) at least one event time of
// its context, else one repair is asked and then the window counts as a
// failure; citations naming no event of the context are kept as foreign
// times and counted. synthesis=none skips consolidation (no calls, no
// syntheses).
//
// Choices where the paper is silent: event key = timestamp, or the turn id
// (session id under anchor=session) for undated material (a zero time
// would merge all undated turns into one event); malformed answers get one
// repair retry, then are kept as failures; retrieval renders entries in
// time order, then the syntheses.
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
//   - synthesis: the first entry of each event (window events before
//     related ones), then the second, and so on while the text stays within
//     350 words, told in time order, each opened by its event's [time]
//     when constrained.
package structmem
