package rejudge

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/runlog"
)

// HumanJudge is the judge name human grades are stored under.
const HumanJudge = "human"

// HumanOptions configure a grading session.
type HumanOptions struct {
	Seed    uint64   // shuffle seed: the same seed gives the same order across sessions
	Exclude []string // groups to leave out (analysis.Excluded: "abstention" for every abstaining question)
	Limit   int      // stop after this many grades (0 = no limit)
	Grader  string   // stored in each judgment's reason
}

// HumanResult counts a session.
type HumanResult struct {
	Graded    int            `json:"graded"`
	Skipped   int            `json:"skipped"`
	Remaining int            `json:"remaining"` // ungraded items left (skipped ones included)
	Already   int            `json:"already"`   // graded in earlier sessions
	PerRun    map[string]int `json:"per_run"`   // run dir -> grades this session
}

// replies maps what a grader may type to c, w, s or q.
var replies = map[string]string{"c": "c", "correct": "c", "y": "c", "yes": "c", "w": "w", "wrong": "w", "n": "w", "no": "w",
	"s": "s", "skip": "s", "q": "q", "quit": "q", "exit": "q"}

type item struct {
	run int
	a   runlog.AnswerRecord
}

// Human runs a blind grading session: answers from every run are pooled
// and shuffled, shown without system or run names, and graded c (correct),
// w (wrong), s (skip) or q (quit) from in, one reply per line. Grades are
// appended at once, so quitting or a closed input keeps them.
func Human(dirs []string, in io.Reader, out io.Writer, o HumanOptions) (*HumanResult, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("grade needs --run DIR (repeatable)")
	}
	var runs []*runDir
	var pool []item
	res := &HumanResult{PerRun: map[string]int{}}
	// The same run named twice ("r" and "r/") would pool its answers twice.
	var unique []string
	for _, d := range dirs {
		if !slices.ContainsFunc(unique, func(u string) bool { return filepath.Clean(u) == filepath.Clean(d) }) {
			unique = append(unique, d)
		}
	}
	for i, d := range unique {
		lock, err := lockRun(d)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
		r, err := openRun(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		for _, a := range r.answers {
			if !analysis.Excluded(o.Exclude, a.Group, a.Abstains()) {
				pool = append(pool, item{run: i, a: a})
			}
		}
	}
	// Shuffle the whole pool, graded items included, so a resumed session
	// with the same seed continues the same order.
	slices.SortStableFunc(pool, func(x, y item) int {
		return cmp.Or(cmp.Compare(x.run, y.run), cmp.Compare(x.a.QuestionID, y.a.QuestionID))
	})
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	var todo []item
	for _, it := range pool {
		if runs[it.run].judged[it.a.QuestionID][HumanJudge] {
			res.Already++
		} else {
			todo = append(todo, it)
		}
	}
	apps := make([]*runlog.Appender, len(runs))
	txs := make([]*runlog.TranscriptWriter, len(runs))
	defer func() {
		for i, a := range apps {
			if a != nil {
				a.Close()
			}
			if txs[i] != nil {
				txs[i].Close()
			}
		}
	}()
	sc := bufio.NewScanner(in)
	fmt.Fprintf(out, "blind grading: %d answers to grade (%d graded before); reply c = correct, w = wrong, s = skip, q = quit\n", len(todo), res.Already)
	quit := false
	for n, it := range todo {
		if quit || (o.Limit > 0 && res.Graded >= o.Limit) {
			break
		}
		show(out, n+1, len(todo), it.a)
		verdict := ""
		for verdict == "" {
			fmt.Fprint(out, "[c/w/s/q]> ")
			if !sc.Scan() {
				verdict = "q" // input closed: stop, keeping what was graded
				break
			}
			if verdict = replies[strings.ToLower(strings.TrimSpace(sc.Text()))]; verdict == "" {
				fmt.Fprintln(out, "please answer c (correct), w (wrong), s (skip) or q (quit)")
			}
		}
		switch verdict {
		case "q":
			quit = true
			continue
		case "s":
			res.Skipped++
			continue
		}
		if apps[it.run] == nil {
			a, err := runlog.OpenAppender(filepath.Join(runs[it.run].dir, runlog.JudgmentsFile))
			if err != nil {
				return res, err
			}
			apps[it.run] = a
			if txs[it.run], err = openTranscripts(runs[it.run].dir); err != nil {
				return res, err
			}
		}
		j := runlog.Judgment{QuestionID: it.a.QuestionID, System: it.a.System, Judge: HumanJudge, Correct: verdict == "c", Reason: "human grade"}
		if o.Grader != "" {
			j.Reason = "human grade by " + o.Grader
		}
		if j.Correct {
			j.Score = 1
		}
		if err := apps[it.run].Write(j); err != nil {
			return res, err
		}
		if tx := txs[it.run]; tx != nil {
			call := runlog.JudgeCall{Judge: j.Judge, Correct: j.Correct, Score: j.Score, Reason: j.Reason}
			if err := tx.Write(runlog.JudgePart(j.QuestionID, it.a.ConversationID, j.System, call)); err != nil {
				return res, err
			}
		}
		res.Graded++
		res.PerRun[runs[it.run].dir]++
	}
	res.Remaining = len(todo) - res.Graded
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("reading grades: %w", err)
	}
	for _, r := range runs {
		if res.PerRun[r.dir] > 0 || hasHuman(r) {
			if _, err := finish(r.dir, judging.Describe([]judge.Judge{humanJudge{}}), nil); err != nil {
				return res, err
			}
		}
	}
	fmt.Fprintf(out, "graded %d, skipped %d, %d left\n", res.Graded, res.Skipped, res.Remaining)
	return res, nil
}

// hasHuman says whether a question of the run already has a human grade.
func hasHuman(r *runDir) bool {
	for _, m := range r.judged {
		if m[HumanJudge] {
			return true
		}
	}
	return false
}

// show prints one item with nothing that names the system or the run.
func show(w io.Writer, i, n int, a runlog.AnswerRecord) {
	gold := a.Gold
	if a.Abstains() {
		gold = "(none: the question cannot be answered from the conversation; a correct reply declines or says it is not mentioned)"
		if a.Gold != "" {
			gold += " [dataset answer: " + a.Gold + "]"
		}
	}
	fmt.Fprintf(w, "\n[%d/%d]\nQuestion:   %s\nGold:       %s\nPrediction: %s\n", i, n, oneLine(a.Question), oneLine(gold), oneLine(a.Prediction))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// humanJudge stands for the person grading, so the manifest describes the
// human judge like any other (the registry's "human" kind).
type humanJudge struct{}

func (humanJudge) Name() string { return HumanJudge }
func (humanJudge) Describe() membench.JudgeInfo {
	return membench.JudgeInfo{Name: HumanJudge, Kind: "human"}
}
func (humanJudge) Judge(context.Context, judge.Sample) (judge.Verdict, error) {
	return judge.Verdict{}, fmt.Errorf("human grades come from membench grade")
}
