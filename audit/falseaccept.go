package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/stats"
)

// RecordedJudge is the judge name of the verdicts a wrong-answer file
// carries.
const RecordedJudge = "recorded"

// RunCount is one judgment run's count over a row.
type RunCount struct {
	Run      string `json:"run"`
	Judged   int    `json:"judged"`   // answers with a verdict in this run
	Accepted int    `json:"accepted"` // of those, accepted as CORRECT
}

// FalseAccept is a judge's acceptance of known-wrong answers over one
// category, or overall.
type FalseAccept struct {
	Category string     `json:"category"` // "2 temporal", ..., "overall"
	Answers  int        `json:"answers"`
	Runs     []RunCount `json:"runs"`
	// Invalid counts verdicts left out because the judge gave none.
	Invalid int `json:"invalid,omitempty"`
	// Rate is the mean over runs of Accepted/Judged (runs that judged
	// nothing are left out); Lo and Hi its Wilson 95% interval over the
	// mean number judged per run: the answers, not the verdicts, are the
	// sample, since repeated verdicts on one answer are not independent.
	Rate float64 `json:"rate"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

// JudgeRates is one judge's false-accept rates.
type JudgeRates struct {
	Judge string `json:"judge"`
	Kind  string `json:"kind"` // the judge's kind (lexical, f1, llm, ...) or recorded
	Model string `json:"model,omitempty"`
	// Offline: no model decided (a metric, the lexical heuristic or the
	// offline backend): the figures measure membench's pipeline.
	Offline bool          `json:"offline"`
	Rows    []FalseAccept `json:"rows"` // categories in order, then overall
}

// Overall returns the overall row.
func (j JudgeRates) Overall() FalseAccept { return j.Rows[len(j.Rows)-1] }

// JudgeAudit is `membench audit judge`'s result.
type JudgeAudit struct {
	File    string `json:"file"`
	Format  string `json:"format"`
	Answers int    `json:"answers"`
	// Published is the file's own acceptance figure (its accuracy field).
	Published *float64         `json:"published_rate,omitempty"`
	Judges    []JudgeRates     `json:"judges"`
	Usage     []membench.Tally `json:"usage,omitempty"` // model calls this time, by judge
}

// verdict states in the grid a tally reads.
type state uint8

const (
	missing state = iota
	rejected
	accepted
	invalid
)

// Recorded reads the false-accept rates of the verdicts the file carries
// (llm_judgments), one judgment run per name.
func Recorded(w *WrongFile) (JudgeRates, error) {
	if len(w.Runs) == 0 {
		return JudgeRates{}, badinput.Errorf("%s: --recorded, but no answer carries recorded verdicts (llm_judgments); drop --recorded and give --judge-spec to judge the answers now", w.Path)
	}
	grid := make([][]state, len(w.Answers))
	for i, a := range w.Answers {
		grid[i] = make([]state, len(w.Runs))
		for r, name := range w.Runs {
			if ok, has := a.Recorded[name]; has {
				grid[i][r] = map[bool]state{true: accepted, false: rejected}[ok]
			}
		}
	}
	return JudgeRates{Judge: RecordedJudge, Kind: RecordedJudge, Rows: tallyFalseAccept(w, w.Runs, grid)}, nil
}

// Judged runs j over every answer (at most concurrency at a time) and
// reads its false-accept rates; a judge with repeats=N judges each answer
// N times, each repeat one judgment run. The answers need their questions
// (Resolve when NeedsData).
func Judged(ctx context.Context, w *WrongFile, j judge.Judge, concurrency int) (JudgeRates, error) {
	if w.NeedsData() {
		return JudgeRates{}, badinput.Errorf("%s: some answers lack question, gold or category; give the LoCoMo file they come from with --data", w.Path)
	}
	reps := judge.Repeats(j)
	grid := make([][]state, len(w.Answers))
	for i := range grid {
		grid[i] = make([]state, reps)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, concurrency))
	for i := range w.Answers {
		for r := range reps {
			g.Go(func() error {
				return judgeOne(gctx, j, w.Answers[i], r, &grid[i][r])
			})
		}
	}
	if err := g.Wait(); err != nil {
		return JudgeRates{}, err
	}
	runs := []string{j.Name()}
	if reps > 1 {
		runs = runs[:0]
		for r := range reps {
			runs = append(runs, fmt.Sprintf("%s#%d", j.Name(), r+1))
		}
	}
	return judgedRates(w, j, runs, grid), nil
}

// judgeOne judges answer a's repeat r into *s.
func judgeOne(ctx context.Context, j judge.Judge, a WrongAnswer, r int, s *state) error {
	v, err := j.Judge(ctx, judge.Sample{Question: a.Question, Prediction: a.Answer, Repeat: r})
	if err != nil {
		if strings.HasPrefix(err.Error(), "judge "+j.Name()+",") {
			return err // a model judge's error names the judge and question already
		}
		return fmt.Errorf("judge %s, question %s: %w", j.Name(), a.ID, err)
	}
	*s = rejected
	switch {
	case v.Invalid:
		*s = invalid
	case v.Correct:
		*s = accepted
	}
	return nil
}

// judgedRates tallies a judge's grid of verdicts, one column per run.
func judgedRates(w *WrongFile, j judge.Judge, runs []string, grid [][]state) JudgeRates {
	info := judge.Describe(j)
	jr := JudgeRates{Judge: j.Name(), Kind: info.Kind, Offline: info.Model == nil || info.Model.Backend == "offline"}
	if info.Model != nil {
		jr.Model = info.Model.Backend + ":" + info.Model.Model
	}
	if info.Threshold > 0 {
		jr.Kind += fmt.Sprintf(" (threshold %s)", report.F(info.Threshold, 2))
	}
	jr.Rows = tallyFalseAccept(w, runs, grid)
	return jr
}

// tallyFalseAccept counts grid[answer][run] per category and overall.
func tallyFalseAccept(w *WrongFile, runs []string, grid [][]state) []FalseAccept {
	var cats []int
	for _, a := range w.Answers {
		cats = append(cats, a.Question.Category)
	}
	slices.Sort(cats)
	cats = slices.Compact(cats)
	var rows []FalseAccept
	for _, c := range append(cats, math.MinInt) { // MinInt: overall
		row := FalseAccept{Category: "overall", Runs: make([]RunCount, len(runs))}
		if c != math.MinInt {
			row.Category = categoryLabel(c)
		}
		for r, name := range runs {
			row.Runs[r].Run = name
		}
		for i, a := range w.Answers {
			if c != math.MinInt && a.Question.Category != c {
				continue
			}
			row.Answers++
			for r, s := range grid[i] {
				switch s {
				case accepted:
					row.Runs[r].Accepted++
					row.Runs[r].Judged++
				case rejected:
					row.Runs[r].Judged++
				case invalid:
					row.Invalid++
				}
			}
		}
		row.Rate, row.Lo, row.Hi = meanRate(row.Runs)
		rows = append(rows, row)
	}
	return rows
}

func categoryLabel(c int) string {
	if c < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d %s", c, locomo.CategoryName(c))
}

// meanRate is the mean over runs of Accepted/Judged with its Wilson 95%
// interval at the mean number judged per run.
func meanRate(runs []RunCount) (rate, lo, hi float64) {
	sum, n, k := 0.0, 0.0, 0
	for _, r := range runs {
		if r.Judged > 0 {
			sum += float64(r.Accepted) / float64(r.Judged)
			n += float64(r.Judged)
			k++
		}
	}
	if k == 0 {
		return 0, 0, 0
	}
	rate = sum / float64(k)
	lo, hi = stats.WilsonRate(rate, n/float64(k), 0.95)
	return rate, lo, hi
}

// Table renders one row per judge and category.
func (r *JudgeAudit) Table() *report.Table {
	t := &report.Table{
		Title: fmt.Sprintf("False-accept rate: share of %d known-wrong answers (%s) each judge accepts as CORRECT", r.Answers, r.File),
	}
	anyInvalid := slices.ContainsFunc(r.Judges, func(j JudgeRates) bool { return j.Overall().Invalid > 0 })
	t.Header = []string{"Judge", "Category", "Answers", "Accepted", "False-accept", "Wilson 95%"}
	if anyInvalid {
		t.Header = append(t.Header, "No verdict")
	}
	var offline, recorded []string
	for _, j := range r.Judges {
		name := j.Judge
		if j.Model != "" {
			name += " (" + j.Model + ")"
		}
		for _, row := range j.Rows {
			acc := make([]string, len(row.Runs))
			for i, rc := range row.Runs {
				acc[i] = fmt.Sprint(rc.Accepted)
				if rc.Judged != row.Answers {
					acc[i] += fmt.Sprintf(" of %d", rc.Judged)
				}
			}
			line := []string{name, row.Category, fmt.Sprint(row.Answers), strings.Join(acc, ", "),
				pct(row.Rate), fmt.Sprintf("[%s, %s]", report.F(100*row.Lo, 2), report.F(100*row.Hi, 2))}
			if anyInvalid {
				line = append(line, fmt.Sprint(row.Invalid))
			}
			t.Rows = append(t.Rows, line)
		}
		if j.Offline {
			offline = append(offline, j.Judge)
		}
		if j.Kind == RecordedJudge {
			recorded = []string{}
			for _, rc := range j.Rows[0].Runs {
				recorded = append(recorded, rc.Run)
			}
		}
	}
	t.Notes = append(t.Notes, "every answer is wrong by construction: a judge's acceptance rate here is its false-accept rate; with several judgment runs, Accepted lists each run and the rate is their mean; the interval is over the answers, not the verdicts")
	if recorded != nil {
		n := fmt.Sprintf("recorded: the verdicts the file carries (llm_judgments: %s), not a judge run now", strings.Join(recorded, ", "))
		if r.Published != nil {
			n += fmt.Sprintf("; the file's published rate: %s", pct(*r.Published))
		}
		t.Notes = append(t.Notes, n)
	}
	if anyInvalid {
		t.Notes = append(t.Notes, "No verdict: the model's reply stayed unreadable after re-asking; those verdicts are left out of the rate")
	}
	if calls := callsOf(r.Usage); calls > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("model calls this time: %d", calls))
	}
	if len(offline) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("OFFLINE judges (%s): these figures measure membench's offline heuristic pipeline, not a model; a model judge's rate needs a real model (--judge-spec llm --judge-model openai:gpt-4o-mini)", strings.Join(offline, ", ")))
	}
	return t
}
