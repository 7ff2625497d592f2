// Package summary shows a run's summary (runlog.Summary): its score table
// with notes on costs, failures and what ran offline, on the terminal and
// as the run's summary.md beside summary.json.
package summary

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/runlog"
)

// Table is the run's score table: a row per group and the overall row, a
// column per judge, and notes on costs, failures and what ran offline.
func Table(s *runlog.Summary) *report.Table {
	t := &report.Table{Title: fmt.Sprintf("%s on %s (run %s)", s.System, s.Dataset, s.RunID)}
	if s.Degraded {
		t.Title += " — DEGRADED BUILD"
	}
	t.Header = append([]string{"group", "n", "invalid"}, s.Judges...)
	// A paper config run without the paper's prompts says so beside
	// every figure, not in a note that a copied row would lose.
	label := s.PaperPrompts.Label()
	// Only verdict judges give invalid verdicts; with one, the cell is its
	// count alone.
	verdictJudges := slices.DeleteFunc(slices.Clone(s.Judges), func(j string) bool { return slices.Contains(s.Metrics, j) })
	if label != "" {
		t.Header = append(t.Header, "prompts")
	}
	row := func(g runlog.Group) {
		cells := []any{g.Name, g.N, InvalidCell(g.Invalid, verdictJudges)}
		for _, j := range s.Judges {
			if v, ok := g.Scores[j]; ok {
				cell := report.F(v, 2)
				if n, partial := g.Judged[j]; partial {
					cell += fmt.Sprintf(" (n=%d)", n)
				}
				cells = append(cells, cell)
			} else {
				cells = append(cells, "-")
			}
		}
		if label != "" {
			cells = append(cells, label)
		}
		t.Add(cells...)
	}
	for _, g := range s.Groups {
		row(g)
	}
	overall := s.Overall
	if left := abstainingGroups(s); len(left) > 0 {
		overall.Name = "overall (without " + strings.Join(left, ", ") + ")"
	}
	row(overall)
	t.Notes = notes(s)
	return t
}

// abstainingGroups names the groups left out of the overall row.
func abstainingGroups(s *runlog.Summary) []string {
	var out []string
	for _, g := range s.Groups {
		if g.Abstains {
			out = append(out, g.Name)
		}
	}
	return out
}

// BuildSeconds is the run's build time (Build.Seconds) as summary.md,
// report and view show it: seconds to a tenth. Each says what it is when
// Summary.BuildSecondsSummed.
func BuildSeconds(s *runlog.Summary) string { return report.F(s.Build.Seconds, 1) }

// BuildTime is BuildSeconds with its unit and what it measures, as
// summary.md and view say it.
func BuildTime(s *runlog.Summary) string {
	what := "wall time of memory construction, conversations built in parallel counted once"
	if s.BuildSecondsSummed {
		what = "Ingest time summed over conversations: the run predates recorded build start times; above the wall time when conversations were built in parallel"
	}
	return BuildSeconds(s) + " s (" + what + ")"
}

func notes(s *runlog.Summary) []string {
	b := s.Build
	var notes []string
	for _, e := range s.EmptyMemory {
		notes = append(notes, "DEGRADED: empty memory, conversation "+e+"; these scores are not the system's")
	}
	if s.FailedOverLimit || (s.Degraded && len(s.EmptyMemory) == 0) { // older summaries lack FailedOverLimit
		notes = append(notes, fmt.Sprintf("DEGRADED: %d of %d memory-build requests failed (their replies were unusable, e.g. %q); these scores are not the system's", s.BuildFailed, s.BuildRequests, s.FirstFailure))
	} else if s.BuildFailed > 0 {
		notes = append(notes, fmt.Sprintf("build: %d of %d memory-build requests failed (within the limit)", s.BuildFailed, s.BuildRequests))
	}
	made := s.Stages[string(membench.StageBuild)]
	made.Add(s.Redone[string(membench.StageBuild)])
	if made.Calls != b.Calls || made.InputTokens != b.InputTokens || made.OutputTokens != b.OutputTokens {
		// An interrupted build, or a conversation built again on resume:
		// the calls made (costs.jsonl) are not those of the finished
		// memories (build.jsonl); say both.
		notes = append(notes, fmt.Sprintf("build: %d calls made, %d input + %d output tokens, over every attempt (costs.jsonl); finished memory builds: %d calls, %d input + %d output tokens, %s (build.jsonl)",
			made.Calls, made.InputTokens, made.OutputTokens, b.Calls, b.InputTokens, b.OutputTokens, BuildTime(s)))
	} else {
		notes = append(notes, fmt.Sprintf("build: %d calls, %d input + %d output tokens, %s", b.Calls, b.InputTokens, b.OutputTokens, BuildTime(s)))
	}
	for _, st := range []string{"retrieve", "answer", "judge"} {
		if c, ok := s.Stages[st]; ok {
			notes = append(notes, fmt.Sprintf("%s: %d calls (%d cached), %d input + %d output tokens, %.1f s in calls", st, c.Calls, c.CachedCalls, c.InputTokens, c.OutputTokens, c.Seconds))
		}
	}
	re := s.ReaskedCalls()
	if c := minus(s.RedoneCalls(), re); c.Calls > 0 {
		notes = append(notes, fmt.Sprintf("cut off or redone after an interruption: %d calls (%d cached), %d input + %d output tokens; the retrieve, answer and judge lines count each question once", c.Calls, c.CachedCalls, c.InputTokens, c.OutputTokens))
	}
	if re.Calls > 0 {
		notes = append(notes, fmt.Sprintf("re-asked invalid verdicts (a judge's reply held no verdict; a rerun asks again): the replaced verdicts took %d calls (%d cached), %d input + %d output tokens; the judge line counts each question once", re.Calls, re.CachedCalls, re.InputTokens, re.OutputTokens))
	}
	if s.Dollars != nil {
		notes = append(notes, s.Dollars.Line)
	}
	if n := s.PaperPrompts.Note(); n != "" {
		notes = append(notes, n)
	}
	if c, ok := s.Stages["embed:embedding"]; ok {
		notes = append(notes, fmt.Sprintf("embeddings: %d texts, %d tokens, %.1f s", c.Calls, c.InputTokens, c.Seconds))
	}
	// Scored predictions and peers' results have no retrievals; a line of
	// zeros there reads like a retrieval failure.
	if s.ContextTokens.N > 0 {
		notes = append(notes, fmt.Sprintf("context: mean %.0f tokens (min %d, max %d) over %d questions; evidence recall %.1f%% (questions with evidence, abstention questions excluded)",
			s.ContextTokens.Mean, s.ContextTokens.Min, s.ContextTokens.Max, s.ContextTokens.N, 100*s.EvidenceRecall))
	}
	for _, j := range s.Judges {
		if n := s.Invalid[j]; n > 0 {
			then := "they are left out of its scores (see (n=...)); rerun the same command to re-ask only those"
			if s.InvalidAsWrong {
				then = "they are counted as WRONG (--invalid-as wrong, as the papers' scripts count any label but CORRECT)"
			}
			notes = append(notes, fmt.Sprintf("INVALID: judge %s gave no verdict on %d of %d questions (e.g. %q); %s", j, n, s.Questions, s.FirstInvalid[j], then))
		}
	}
	for _, j := range s.Judges {
		if st, ok := s.Overall.Repeats[j]; ok {
			notes = append(notes, RepeatNote(j, st))
		}
	}
	metrics := "none"
	if len(s.Metrics) > 0 {
		metrics = strings.Join(s.Metrics, ", ")
	}
	overallNote := "overall scores every question"
	if left := abstainingGroups(s); len(left) > 0 {
		overallNote = "overall leaves out the questions whose right answer is to decline (" + strings.Join(left, ", ") + "), as the papers do"
	}
	if n := JudgeModelNote(s.JudgeModels); n != "" {
		notes = append(notes, n)
	}
	notes = append(notes, "scores: verdict judges: accuracy × 100 (a PARTIAL counts 0.5); metric judges ("+metrics+"): mean score × 100; "+overallNote)
	if d := s.CacheDamaged; d.Total() > 0 {
		notes = append(notes, fmt.Sprintf("CACHE: %d damaged entries (LLM cache %d, embedding cache %d, token counts %d) failed their checksum and were recomputed and rewritten; results are unaffected, but a cache file that keeps doing this sits on failing storage", d.Total(), d.LLM, d.Embeddings, d.Tokens))
	}
	if r := s.Replay; r != nil {
		notes = append(notes, fmt.Sprintf("replayed from bundle %s (membench %s, %d recorded replies); %d calls were not in the bundle and went to the backend", r.Bundle, r.Membench, r.Replies, r.Fresh))
	}
	if s.Synthetic {
		notes = append(notes, "SYNTHETIC dataset ("+s.Dataset+", written by `membench datasets synth`): these numbers measure scale and plumbing, not a benchmark")
	}
	if s.Offline {
		notes = append(notes, "OFFLINE backend: answers and judgments come from deterministic heuristics (offline heuristics); these numbers measure retrieval and the pipeline, not LLM quality")
	} else if len(s.OfflineParts) > 0 {
		notes = append(notes, "PARTLY OFFLINE: "+strings.Join(s.OfflineParts, ", ")+" ran on the offline backend (offline heuristics); figures that depend on them measure the pipeline, not LLM quality")
	}
	if s.EmbedderNote != "" {
		notes = append(notes, "EMBEDDER: "+s.EmbedderNote)
	} else {
		notes = append(notes, "embedder: "+s.Embedder)
	}
	return notes
}

// Write stores the run's summary in dir: summary.json, and summary.md
// holding its table.
func Write(dir string, s *runlog.Summary) error {
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.SummaryJSON), s); err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# membench run %s\n\n", s.RunID)
	Table(s).Markdown(&buf)
	return runlog.WriteFileAtomic(filepath.Join(dir, runlog.SummaryMD), buf.Bytes())
}

// Print writes the summary's table for the terminal.
func Print(w io.Writer, s *runlog.Summary) error { return Table(s).Terminal(w) }

// JudgeModelNote names each model judge's model, saying when it is the
// answer model grading its own answers; "" when no judge asks a model.
func JudgeModelNote(jm []runlog.JudgeModel) string {
	if len(jm) == 0 {
		return ""
	}
	var parts []string
	self := false
	for _, j := range jm {
		p := j.Judge + " asks " + j.Model
		if j.IsAnswerModel {
			p += ", the answer model itself"
			self = true
		}
		parts = append(parts, p)
	}
	s := "judge models: " + strings.Join(parts, "; ")
	if self {
		s += " (a model grading its own answers may favour them; --judge-model picks another)"
	}
	return s
}

// minus is a less b (b a part of a).
func minus(a, b runlog.Cost) runlog.Cost {
	a.Calls -= b.Calls
	a.CachedCalls -= b.CachedCalls
	a.InputTokens -= b.InputTokens
	a.CachedInputTokens -= b.CachedInputTokens
	a.OutputTokens -= b.OutputTokens
	a.Seconds -= b.Seconds
	return a
}

// RepeatNote says how a judge's repeated judging spread: its column is the
// mean over repeats; the note gives each repeat's range and the vote.
func RepeatNote(judge string, st runlog.RepeatStats) string {
	n := fmt.Sprintf("repeats: judge %s judged each answer %d times; its overall score is the mean over repeats, %s (sd %s, min–max %s–%s); majority vote %s",
		judge, st.Repeats, report.F(st.Mean, 2), report.F(st.SD, 2), report.F(st.Min, 2), report.F(st.Max, 2), report.F(st.Majority, 2))
	if st.Invalid > 0 {
		n += fmt.Sprintf("; %d repeat verdicts held no verdict and are left out", st.Invalid)
	}
	return n
}

// InvalidCell is the "invalid" cell beside n: how many verdicts the
// judges gave none on, "0" when none did; with several judges, each
// judge that did by name ("lenient 3, llm 1").
func InvalidCell(counts map[string]int, judges []string) string {
	var parts []string
	total := 0
	for _, j := range judges {
		if n := counts[j]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", j, n))
			total += n
		}
	}
	switch {
	case total == 0:
		return "0"
	case len(judges) == 1:
		return strconv.Itoa(total)
	}
	return strings.Join(parts, ", ")
}
