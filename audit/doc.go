// Package audit runs StructMem's fidelity audits (paper Tables 6 and 7) on
// the memory a run dumped to <run dir>/memory.jsonl:
//
//   - extraction: does the source utterance support each event entry?
//     → hallucination rate per conversation and overall, per judge;
//   - links: do the cited events support each synthesis link?
//     → spurious links S of T per conversation and configuration
//     (constrained / unconstrained synthesis), per judge.
//
// Each judge is an llm.Model asked with the audit_extraction / audit_links
// prompts; verdicts go to <run dir>/audit_*.jsonl, one line per item ×
// judge, so an interrupted audit resumes where it stopped. The offline
// backend answers with transparent word-overlap heuristics (offline.go):
// numbers from it measure those heuristics, not a model.
package audit
