// Package membench is the run's vocabulary, below every other package: the
// configuration a run is asked for (Config, Host, a system's Options, a
// paper's prompt pins), what model calls are and cost (Message, Stage,
// Usage, ModelID, Tally), what a memory system returns (Item, BuildStats),
// the classes of judge and which one is primary (JudgeInfo, JudgeSet), and
// the one definition of evidence recall (CountEvidence, CountsForRecall).
//
// It holds types and the rules over them, never storage or I/O of runs:
// the run log (runlog) records these types, and llm, systems, judge and
// datasets speak them. It imports only leaf utilities.
package membench
