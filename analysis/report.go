package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
	"github.com/membench/membench/systems"

	"github.com/membench/membench/internal/report"
)

// paperCats are Table 2/4's columns, LoCoMo's groups in the paper's order.
var paperCats = []struct{ Head, Group string }{
	{"Multi", "multi-hop"},
	{"Open", "open-domain"},
	{"Single", "single-hop"},
	{"Temp", "temporal"},
}

// Overall is a run's overall score under one judge (abstaining questions
// left out, as summary.FromLines scores it).
type Overall struct {
	Score  float64 // mean score × 100 (NaN when the judge gave no verdict)
	N      int     // questions with a verdict of the judge
	Binary bool    // every score is 0 or 1, so Lo/Hi is a Wilson interval
	Lo, Hi float64 // Wilson 95%, percent (NaN unless Binary)
}

// OverallOf recomputes the overall score from the judgments so that its
// count and interval come with it; Score equals Summary.Overall's.
func OverallOf(r *runlog.Run, judgeName string) (Overall, error) {
	in := map[string]bool{}
	for _, a := range r.Answers {
		if !a.Abstains() { // as Summary.Overall: LongMemEval's _abs are scored apart too
			in[a.QuestionID] = true
		}
	}
	var scores []float64
	for _, j := range r.Judgments {
		if j.Judge == judgeName && in[j.QuestionID] {
			scores = append(scores, j.Score)
		}
	}
	return overallFrom(scores)
}

// overallFrom is the mean of scores × 100, with a Wilson interval when
// every score is 0 or 1.
func overallFrom(scores []float64) (Overall, error) {
	o := Overall{Score: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Binary: true, N: len(scores)}
	if o.N == 0 {
		return o, nil
	}
	sum, succ := 0.0, 0
	for _, s := range scores {
		sum += s
		switch s {
		case 1:
			succ++
		case 0:
		default:
			o.Binary = false
		}
	}
	o.Score = 100 * sum / float64(o.N)
	if o.Binary {
		var err error
		if o.Lo, o.Hi, err = wilson(succ, o.N); err != nil {
			return o, err
		}
	}
	return o, nil
}

// ChooseJudge is the judge a report uses: the given name, else the runs'
// primary judge (runlog.Manifest.PrimaryJudge: the first verdict judge,
// f1 when only metrics were run); when runs differ, the primary judge of
// the most runs (ties: first seen).
func ChooseJudge(runs []*runlog.Run, given string) string {
	if given != "" {
		return given
	}
	count := map[string]int{}
	best := ""
	for _, r := range runs {
		p := r.Manifest.PrimaryJudge()
		if p == "" {
			continue
		}
		count[p]++
		if best == "" || count[p] > count[best] {
			best = p
		}
	}
	return best
}

// RunLabel names a run's row: system, k when it has one, the options it
// was given apart from the system's defaults, "(offline)" when every
// model is offline ("(partly offline)" when some are).
func RunLabel(r *runlog.Run) string {
	return baseLabel(r) + offlineMark(r) + promptMark(r)
}

// promptMark is " [LABEL]" for a run of a paper config not made with the
// paper's prompts (membench.PromptCheck.Label), so the label stays beside
// the row's figures; "" otherwise.
func promptMark(r *runlog.Run) string {
	if l := r.Manifest.PaperPrompts.Label(); l != "" {
		return " [" + l + "]"
	}
	return ""
}

// baseLabel is the system (else the folder), k when it has one, and the
// options that set it apart (optionsLabel).
func baseLabel(r *runlog.Run) string {
	s := r.Manifest.Config.System
	if s == "" {
		s = filepath.Base(r.Dir)
	}
	if k, _, ok := ResolveK(r.Manifest); ok {
		s += fmt.Sprintf(" k=%d", k)
	}
	if o := optionsLabel(r.Manifest.Config); o != "" {
		s += " " + o
	}
	return s
}

// optionsLabel lists, in key order, the options a run was given whose
// value is not its system's default ("seed-scope=authors-code seeds=0"),
// so that runs of one system under other settings are rows of their own
// (a sensitivity row says what it varies). k is shown apart; options that
// point outside membench (a command, a URL) say nothing about the method
// and are left out. A system this binary does not know shows every
// option it was given.
func optionsLabel(cfg membench.Config) string {
	var defaults membench.Options
	var outside []string
	if spec, err := systems.Lookup(cfg.System); err == nil {
		defaults, outside = spec.Defaults, spec.Outside
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(cfg.Options)) {
		v := cfg.Options[k]
		if k == "k" || slices.Contains(outside, k) {
			continue
		}
		if d, ok := defaults[k]; ok && d == v {
			continue
		}
		out = append(out, k+"="+v)
	}
	return strings.Join(out, " ")
}

// offlineMark is " (offline)", " (partly offline)" or "".
func offlineMark(r *runlog.Run) string {
	switch b := r.Manifest.Backends(); {
	case b == "offline" || (b == "" && r.Manifest.Offline):
		return " (offline)"
	case strings.HasPrefix(b, "mixed"):
		return " (partly offline)"
	}
	return ""
}

// provenanceHeader and provenanceCells are the columns that say what a
// row was made from, so rows made differently cannot pass for comparable.
var provenanceHeader = []string{"dataset", "questions", "embedder", "backend", "status"}

func provenanceCells(r *runlog.Run) []any {
	m := r.Manifest
	ds := m.Dataset
	if m.DatasetSHA256 != "" {
		ds += " " + m.DatasetSHA256[:min(8, len(m.DatasetSHA256))]
	}
	st := r.Status()
	return []any{cmp.Or(ds, "-"), st.Questions, cmp.Or(m.Embedder, "-"), cmp.Or(m.Backends(), "-"), st.String()}
}

// nCell is the row's n; an incomplete run with no verdicts is shown as
// "-" with its status, never as an n=0 row that reads like a result.
func nCell(r *runlog.Run, n int) any {
	if n == 0 && r.Status().State == runlog.StateIncomplete {
		return "-"
	}
	return n
}

func score(r *runlog.Run, group, judgeName string) string {
	for _, g := range summaryOf(r).Groups {
		if g.Name == group {
			if v, ok := g.Scores[judgeName]; ok {
				return report.F(v, 2)
			}
		}
	}
	return "-"
}

// nInvalidCells are n and, beside it, the run's count of overall
// questions the judge gave no verdict on (runlog.Group.Invalid): two
// columns in the wide view, one "n/inv" cell in the brief one, which
// must fit 120 columns.
func nInvalidCells(r *runlog.Run, n int, judgeName string, v View) []any {
	inv := summaryOf(r).Overall.Invalid[judgeName]
	if v == Wide {
		return []any{nCell(r, n), inv}
	}
	return []any{fmt.Sprintf("%v/%d", nCell(r, n), inv)}
}

func ciCell(o Overall, v View) string {
	if o.N == 0 || !o.Binary {
		return "-"
	}
	if v == Brief { // narrower, so a 120-column table keeps its labels whole
		return report.F(o.Lo, 1) + "–" + report.F(o.Hi, 1)
	}
	return fmt.Sprintf("[%s, %s]", report.F(o.Lo, 1), report.F(o.Hi, 1))
}

// SortRuns orders runs by system, then k, then run id, so a results
// directory reads as a table of systems and budgets.
func SortRuns(runs []*runlog.Run) {
	slices.SortStableFunc(runs, func(a, b *runlog.Run) int {
		ka, _, _ := ResolveK(a.Manifest)
		kb, _, _ := ResolveK(b.Manifest)
		return cmp.Or(strings.Compare(a.Manifest.Config.System, b.Manifest.Config.System), cmp.Compare(ka, kb), strings.Compare(a.ID(), b.ID()))
	})
}

// View chooses a report table's columns.
type View int

const (
	// Brief fits a 120-column terminal: the row label, n, accuracy with
	// its interval and the build cost a reader compares.
	Brief View = iota
	// Wide has every column: run ids, input and output tokens apart, and
	// the provenance (dataset, questions, embedder, backend, status).
	Wide
)

// fit marks a brief table to be drawn within report.TerminalWidth,
// wrapping its first column (the label) when the numbers leave it less.
func fit(t *report.Table, v View) *report.Table {
	if v == Brief {
		t.MaxWidth, t.WrapCol = report.TerminalWidth, 0
	}
	return t
}

// labels are the brief view's row labels: system, k and what else sets
// the run apart from the other rows (Labels, the view's too),
// "(offline)" only when the rows differ in it (the title says so when
// every row is offline), "(incomplete)" for runs that did not finish.
func labels(runs []*runlog.Run) (rows []string, allOffline bool) {
	allOffline = len(runs) > 0 && !slices.ContainsFunc(runs, func(r *runlog.Run) bool { return offlineMark(r) != " (offline)" })
	rows = Labels(manifestsOf(runs))
	for i, r := range runs {
		if !allOffline {
			rows[i] += offlineMark(r)
		}
		if r.Status().State == runlog.StateIncomplete {
			rows[i] += " (incomplete)"
		}
		rows[i] += promptMark(r)
	}
	return rows, allOffline
}

// offlineTitle is the brief title's mark when every row is offline.
const offlineTitle = " — all runs offline heuristics (pipeline check, not LLM quality)"

// buildCells are a run's build cost: token millions (in, out, sum in the
// wide view; the sum in the brief one), calls and the build time the
// summary gives (summary.BuildSeconds); summed says it is a sum over
// conversations (runlog.Summary.BuildSecondsSummed), marked "*".
func buildCells(r *runlog.Run, v View) (cells []any, summed bool) {
	if len(r.Builds) == 0 {
		if v == Wide {
			return []any{"-", "-", "-", "-", "-"}, false
		}
		return []any{"-", "-", "-"}, false
	}
	sum := summaryOf(r)
	b := sum.Build
	m := func(n int) string { return report.F(float64(n)/1e6, 3) }
	secs, summed := summary.BuildSeconds(sum), sum.BuildSecondsSummed
	if summed {
		secs += "*"
	}
	if v == Wide {
		return []any{m(b.InputTokens), m(b.OutputTokens), m(b.InputTokens + b.OutputTokens), b.Calls, secs}, summed
	}
	return []any{m(b.InputTokens + b.OutputTokens), b.Calls, secs}, summed
}

// readCells are a run's retrieval-time model cost: the decision, rerank
// and listwise requests made while reading memory for questions (the
// summary's retrieve stage, embeddings apart), calls and token millions.
// A system that spends its model calls at read time (turns-rerank) is not
// free because its build is.
func readCells(r *runlog.Run) []any {
	if len(r.Retrievals) == 0 {
		return []any{"-", "-"} // no retrieval (scored predictions)
	}
	c, ok := summaryOf(r).Stages[string(membench.StageRetrieve)]
	if !ok || c.Calls == 0 {
		return []any{0, report.F(0, 3)}
	}
	return []any{c.Calls, report.F(float64(c.InputTokens+c.OutputTokens)/1e6, 3)}
}

const summedNote = "* Time s summed over conversations (the run predates recorded build start times): above the wall time when conversations were built in parallel"

// authorsCalls is a run's build calls on the StructMem authors' counter
// (membench.CountAuthorsCalls), summed over its conversations; ok is false
// when no build of the run keeps that counter.
func authorsCalls(r *runlog.Run) (n int, ok bool) {
	for _, b := range r.Builds {
		if c, has := b.Stats.Counts[membench.CountAuthorsCalls]; has {
			n, ok = n+c, true
		}
	}
	return n, ok
}

const authorsCallsNote = "Authors' calls (brief: A-calls): the build's calls on the StructMem authors' counter, the one behind the paper's Table 2 Calls column (1,056 for StructMem on LoCoMo): one per extraction batch with its factual and relational replies merged, one per synthesis window, plus their offline-update calls (membench makes none); Calls counts every request membench sent (each perspective apart, repair retries included); '-' = a system without that counter"

// Table2 is the paper's Table 2 shape: per run, overall and per-category
// accuracy of one judge, then build cost. When a run keeps the StructMem
// authors' call counter, its count stands beside ours.
func Table2(runs []*runlog.Run, judgeName string, v View) (*report.Table, error) {
	t := &report.Table{Title: "Table 2 shape: " + Measure(runs, judgeName) + " and build cost"}
	withAuthors := slices.ContainsFunc(runs, func(r *runlog.Run) bool { _, ok := authorsCalls(r); return ok })
	callsHead := []string{"Calls"}
	if withAuthors {
		callsHead = append(callsHead, map[View]string{Wide: "Authors' calls", Brief: "A-calls"}[v])
	}
	if v == Wide {
		t.Header = append(append(append([]string{"run", "method", "n", "invalid", "Overall", "95% CI", "Multi", "Open", "Single", "Temp", "In M", "Out M", "Sum M"}, callsHead...), "Time s", "Read calls", "Read tok M"), provenanceHeader...)
	} else {
		t.Header = append(append([]string{"run", "n/inv", "Overall", "95% CI", "Multi", "Open", "Single", "Temp", "Tok M"}, callsHead...), "Time s", "Rd calls", "Rd M")
	}
	missing, summed := 0, false
	names, allOffline := labels(runs)
	for i, r := range runs {
		cells, err := accuracyCells(r, judgeName, v, &missing)
		if err != nil {
			return nil, err
		}
		b, s := buildCells(r, v)
		summed = summed || s
		if withAuthors {
			// After Calls, the build cells' second last.
			var a any = "-"
			if n, ok := authorsCalls(r); ok {
				a = n
			}
			b = append(b[:len(b)-1:len(b)-1], a, b[len(b)-1])
		}
		cells = append(cells, b...)
		cells = append(cells, readCells(r)...)
		t.Add(viewCells(r, names[i], cells, v)...)
	}
	t.Notes = reportNotes(runs, judgeName, missing)
	t.Notes = append(t.Notes, "build: LLM tokens (millions), calls and Time s, the wall seconds of memory construction (parallel conversations counted once), as summary.md and view give it; '-' = no build (full context, or scored predictions)")
	if withAuthors {
		t.Notes = append(t.Notes, authorsCallsNote)
	}
	t.Notes = append(t.Notes, "Read calls, Read tok M (brief: Rd calls, Rd M): retrieval-time model cost apart from the build (decision, rerank and listwise requests while reading memory for the questions), calls and tokens in millions; answering and judging are in neither")
	if summed {
		t.Notes = append(t.Notes, summedNote)
	}
	return finish(t, v, allOffline), nil
}

// viewCells lays out a row: the wide view leads with run id and the full
// method label and ends with the provenance; the brief one leads with the
// brief label.
func viewCells(r *runlog.Run, label string, cells []any, v View) []any {
	if v == Wide {
		return append(append([]any{r.ID(), RunLabel(r)}, cells...), provenanceCells(r)...)
	}
	return append([]any{label}, cells...)
}

// finish marks the brief view's title when every row is offline, points
// to the details the brief view leaves out, and fits it to a terminal.
func finish(t *report.Table, v View, allOffline bool) *report.Table {
	if v == Brief {
		if allOffline {
			t.Title += offlineTitle
		}
		t.Notes = append(t.Notes, "--wide, --format markdown or csv: run ids, input and output tokens, and each run's dataset, questions, embedder, backend and status")
	}
	return fit(t, v)
}

// accuracyCells are the columns Tables 2 and 4 share after the label: n,
// overall with its interval, then the four LoCoMo categories. A run
// without the judge's verdicts counts in missing.
func accuracyCells(r *runlog.Run, judgeName string, v View, missing *int) ([]any, error) {
	o, err := OverallOf(r, judgeName)
	if err != nil {
		return nil, err
	}
	if o.N == 0 {
		*missing++
	}
	cells := append(nInvalidCells(r, o.N, judgeName, v), report.F(o.Score, 2), ciCell(o, v))
	for _, c := range paperCats {
		cells = append(cells, score(r, c.Group, judgeName))
	}
	return cells, nil
}

// Table3 is the paper's Table 3 shape: overall under every judge.
func Table3(runs []*runlog.Run, judgeName string, v View) (*report.Table, error) {
	judges := runJudges(runs, func(runlog.Manifest, string) bool { return true })
	t := &report.Table{Title: "Table 3 shape: overall under each judge"}
	if v == Wide {
		t.Header = append(append([]string{"run", "method", "n", "invalid", "95% CI (" + judgeName + ")"}, judges...), provenanceHeader...)
	} else {
		t.Header = append([]string{"run", "n/inv", "95% CI (" + judgeName + ")"}, judges...)
	}
	names, allOffline := labels(runs)
	for i, r := range runs {
		o, err := OverallOf(r, judgeName)
		if err != nil {
			return nil, err
		}
		cells := []any{nCell(r, o.N), summary.InvalidCell(summaryOf(r).Overall.Invalid, judges), ciCell(o, v)}
		if v == Brief {
			cells = append(nInvalidCells(r, o.N, judgeName, v), ciCell(o, v))
		}
		for _, j := range judges {
			if sc, ok := summaryOf(r).Overall.Scores[j]; ok {
				cells = append(cells, report.F(sc, 2))
			} else {
				cells = append(cells, "-")
			}
		}
		t.Add(viewCells(r, names[i], cells, v)...)
	}
	t.Notes = reportNotes(runs, judgeName, 0)
	return finish(t, v, allOffline), nil
}

// Table4 is the paper's Table 4 shape: per-category accuracy per run
// (ablation variants are runs).
func Table4(runs []*runlog.Run, judgeName string, v View) (*report.Table, error) {
	t := &report.Table{Title: "Table 4 shape: ablation by category, " + Measure(runs, judgeName)}
	if v == Wide {
		t.Header = append([]string{"run", "variant", "n", "invalid", "Overall", "95% CI", "Multi", "Open", "Single", "Temp"}, provenanceHeader...)
	} else {
		t.Header = []string{"variant", "n/inv", "Overall", "95% CI", "Multi", "Open", "Single", "Temp"}
	}
	missing := 0
	names, allOffline := labels(runs)
	for i, r := range runs {
		cells, err := accuracyCells(r, judgeName, v, &missing)
		if err != nil {
			return nil, err
		}
		t.Add(viewCells(r, names[i], cells, v)...)
	}
	t.Notes = reportNotes(runs, judgeName, missing)
	return finish(t, v, allOffline), nil
}

// Measure names what a judge's column holds, as the run's manifest
// classes the judge: "accuracy (judge llm)" for verdict judges, "mean f1
// score" for metric judges.
func Measure(runs []*runlog.Run, judgeName string) string {
	for _, r := range runs {
		if HasJudge(r.Manifest, judgeName) && r.Manifest.JudgeSet().IsMetric(judgeName) {
			return "mean " + judgeName + " score × 100 (metric judge)"
		}
	}
	return "accuracy (judge " + judgeName + ")"
}

func reportNotes(runs []*runlog.Run, judgeName string, missing int) []string {
	notes := []string{"scores: verdict judges: accuracy × 100 (a PARTIAL counts 0.5); metric judges (" + strings.Join(metricJudges(runs), ", ") + "): mean score × 100; overall leaves out abstention questions (LoCoMo adversarial, LongMemEval _abs); n = questions with a verdict of the judge; invalid (brief: n/inv) = questions its model gave no verdict on (left out of n and of the score; with --invalid-as wrong, counted in both as WRONG, as the papers' scripts count any label but CORRECT); 95% CI = Wilson interval over questions, given only for 0/1 judges"}
	if missing > 0 {
		var ids []string
		for _, r := range runs {
			if !HasJudge(r.Manifest, judgeName) {
				ids = append(ids, r.ID())
			}
		}
		if len(ids) > 0 {
			notes = append(notes, fmt.Sprintf("judge %s is missing from %s ('-'); choose another with --judge", judgeName, strings.Join(ids, ", ")))
		}
	}
	var ms []*runlog.Manifest
	var prompts, incomplete []string
	for _, r := range runs {
		ms = append(ms, &r.Manifest)
		if n := r.Manifest.PaperPrompts.Note(); n != "" {
			prompts = append(prompts, r.ID()+": "+n)
		}
		if st := r.Status(); st.State == runlog.StateIncomplete {
			incomplete = append(incomplete, r.ID()+" "+st.String())
		}
	}
	if n := syntheticNotes(ms...); n != "" {
		notes = append([]string{n}, notes...)
	}
	if slices.ContainsFunc(runs, func(r *runlog.Run) bool { return len(r.Manifest.OfflineList()) > 0 }) {
		notes = append(notes, "offline heuristics: rows of offline or partly offline runs have answers or judgments from deterministic offline heuristics (the backend column of the wide table names which parts); they measure the pipeline, not LLM quality")
	}
	notes = append(notes, prompts...)
	if len(incomplete) > 0 {
		notes = append(notes, "INCOMPLETE runs (scores cover only what finished; resume them with the same command): "+strings.Join(incomplete, "; "))
	}
	return notes
}

// metricJudges lists the runs' metric judges, as their manifests class them.
func metricJudges(runs []*runlog.Run) []string {
	out := runJudges(runs, func(m runlog.Manifest, j string) bool { return m.JudgeSet().IsMetric(j) })
	if len(out) == 0 {
		out = []string{"none here"}
	}
	return out
}

// runJudges lists the judges of the runs' manifests that keep accepts,
// each once, in the order first seen.
func runJudges(runs []*runlog.Run, keep func(m runlog.Manifest, judge string) bool) []string {
	var out []string
	for _, r := range runs {
		for _, j := range r.Manifest.Judges {
			if !slices.Contains(out, j) && keep(r.Manifest, j) {
				out = append(out, j)
			}
		}
	}
	return out
}
