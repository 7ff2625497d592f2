package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/summary"
)

// Source is one judgments file with what is known of its questions (from
// the answers.jsonl beside it) and its run's manifest, when there is one.
type Source struct {
	Path      string // as given
	Name      string // run dir name, or the judgments file's dir name
	Judgments []runlog.Judgment
	// Invalid are verdicts whose judge model gave none (runlog.Verdicts):
	// left out of every figure, and counted.
	Invalid  []runlog.Judgment
	Groups   map[string]string // question id → group; empty when unknown
	Abstains map[string]bool   // question id → declining is the right answer
	Manifest *runlog.Manifest
	// Repeats are the repeated judges' verdicts, every repeat apart
	// (runlog.RepeatVerdicts); Judgments holds one per question for them.
	Repeats []runlog.Judgment
}

// LoadSource reads a run directory or a judgments.jsonl file.
func LoadSource(path string) (*Source, error) {
	file, dir := path, path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, runlog.JudgmentsFile)
	} else if err == nil {
		dir = filepath.Dir(path)
	}
	if _, err := os.Stat(file); err != nil {
		return nil, badinput.Errorf("judgments %s: %w (give a run directory or a judgments.jsonl file)", file, err)
	}
	raw, err := runlog.ReadJSONL[runlog.Judgment](file)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	if len(raw) == 0 {
		return nil, badinput.Errorf("%s: no judgments (give a run directory or a non-empty judgments.jsonl)", path)
	}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	var m *runlog.Manifest
	if runlog.IsRunDir(dir) {
		mf, err := runlog.LoadManifest(dir)
		if err != nil {
			return nil, badinput.Wrap(err)
		}
		m = &mf
	} else if _, err := os.Stat(filepath.Join(dir, runlog.ManifestFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, badinput.Wrap(err)
	}
	return newSource(path, dir, raw, answers, m), nil
}

// SourceOf is LoadSource on a run already read (Load), from the same
// lines; nil when the run holds no judgments.
func SourceOf(r *runlog.Run) *Source {
	if len(r.Lines.Judgments) == 0 {
		return nil
	}
	m := r.Manifest
	return newSource(r.Dir, r.Dir, r.Lines.Judgments, r.Lines.Answers, &m)
}

// newSource keeps the last verdict per (question, judge, system), as
// every reader does, and each question's group from its answer.
func newSource(path, dir string, raw []runlog.Judgment, answers []runlog.AnswerRecord, m *runlog.Manifest) *Source {
	js, invalid := runlog.Verdicts(raw)
	s := &Source{Path: path, Name: filepath.Base(filepath.Clean(dir)), Judgments: js, Invalid: invalid, Repeats: summary.RepeatVerdicts(raw), Groups: map[string]string{}, Abstains: map[string]bool{}, Manifest: m}
	for _, a := range answers {
		s.Groups[a.QuestionID] = a.Group
		s.Abstains[a.QuestionID] = a.Abstains()
	}
	return s
}

// Side names the source for CheckComparable.
func (s *Source) Side() Side { return Side{Label: s.Path, Manifest: s.Manifest} }

// Judges lists the judge names present, sorted.
func (s *Source) Judges() []string {
	seen := map[string]bool{}
	for _, j := range slices.Concat(s.Judgments, s.Invalid) {
		seen[j.Judge] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// DefaultJudge is the judge a reader uses when none is named: the run's
// primary judge (runlog.Manifest.PrimaryJudge) when the source has a
// manifest and that judge's verdicts, else the only judge in the file;
// "" when a manifest-less file holds several.
func (s *Source) DefaultJudge() string {
	judges := s.Judges()
	if s.Manifest != nil {
		if p := s.Manifest.PrimaryJudge(); p != "" && slices.Contains(judges, p) {
			return p
		}
	}
	if len(judges) == 1 {
		return judges[0]
	}
	return ""
}

// ByJudge returns one judge's verdicts keyed by question id. An empty name
// picks DefaultJudge; a question judged by the same judge for two
// systems in one file is an error, since the pairing would be ambiguous.
func (s *Source) ByJudge(name, flag string) (map[string]runlog.Judgment, string, error) {
	judges := s.Judges()
	if name == "" {
		name = s.DefaultJudge()
		if name == "" {
			return nil, "", badinput.Errorf("%s holds judges %s and no manifest names its primary judge; pick one with %s", s.Path, strings.Join(judges, ", "), flag)
		}
	}
	out := map[string]runlog.Judgment{}
	for _, j := range s.Judgments {
		if j.Judge != name {
			continue
		}
		if prev, dup := out[j.QuestionID]; dup {
			return nil, "", badinput.Errorf("%s: judge %s scored %s for systems %q and %q; split the file per system", s.Path, name, j.QuestionID, prev.System, j.System)
		}
		out[j.QuestionID] = j
	}
	if len(out) == 0 {
		if n := len(s.InvalidBy(name)); n > 0 {
			return nil, "", badinput.Errorf("%s: judge %q gave no verdict on any question (%d invalid replies); rerun the judge (membench judge --run DIR) to re-ask them", s.Path, name, n)
		}
		return nil, "", badinput.Errorf("%s has no judgments by judge %q (%s); it holds %s", s.Path, name, flag, strings.Join(judges, ", "))
	}
	return out, name, nil
}

// InvalidBy lists, by question id, the questions the named judge gave no
// verdict on (its model's reply held none).
func (s *Source) InvalidBy(name string) map[string]bool {
	out := map[string]bool{}
	for _, j := range s.Invalid {
		if j.Judge == name {
			out[j.QuestionID] = true
		}
	}
	return out
}

// IsMetric says whether the named judge reports a mean score in this
// source (its manifest; without one, by the judge's name).
func (s *Source) IsMetric(name string) bool {
	if s.Manifest != nil {
		return s.Manifest.JudgeSet().IsMetric(name)
	}
	sp, err := judge.Lookup(name)
	return err == nil && sp.Kind == membench.JudgeMetric
}

// CompareOptions are a paired comparison's inputs.
type CompareOptions struct {
	A, B           string
	JudgeA, JudgeB string
	Test           string  // "mcnemar" or "noninferiority"
	ChiSquare      bool    // McNemar: chi-square with continuity correction instead of exact
	Margin, Alpha  float64 // margin in points, negative = tolerated loss of A
	// Exclude drops questions of these groups, by the names the answer
	// records carry; Abstaining stands for every abstaining question, as
	// the summary's overall leaves them out. Empty keeps every question.
	Exclude    []string
	AllowMixed bool
	// InvalidAsWrong pairs the questions a judge gave no verdict on as
	// WRONG on that side (--invalid-as wrong, as the papers' scripts score
	// any label but CORRECT) instead of leaving them out; they are counted
	// either way (Join.InvalidA/B).
	InvalidAsWrong bool
}

func has[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// withWrong is the judge's verdicts with each of its invalid ones added
// as WRONG (score 0), marked CountedWrong.
func withWrong(js map[string]runlog.Judgment, s *Source, judgeName string) map[string]runlog.Judgment {
	out := maps.Clone(js)
	for _, j := range runlog.InvalidAsWrong(s.Invalid) {
		if _, ok := out[j.QuestionID]; !ok && j.Judge == judgeName {
			out[j.QuestionID] = j
		}
	}
	return out
}

// Join is the paired data: ids in both, with the ids left out and why.
type Join struct {
	IDs              []string
	A, B             []bool    // thresholded outcome (verdict judges: the verdict)
	ScoreA, ScoreB   []float64 // points
	OnlyInA, OnlyInB []string
	// InvalidA/B are ids whose verdict on that side is invalid (no verdict
	// in the judge's reply): left out of the pairing, as the summary
	// leaves them out of accuracy.
	InvalidA, InvalidB []string
	// InvalidAsWrong: InvalidA/B were paired as WRONG, not left out.
	InvalidAsWrong   bool
	Excluded         int
	Unknown          int // ids with no answer record (so no group), kept
	JudgeA, JudgeB   string
	SourceA, SourceB *Source
	Mixed            []string // differences accepted with --allow-mixed
	// PeerSettings are notes (PeerNote) on settings an imported peer
	// differs in as part of its system, accepted without --allow-mixed.
	PeerSettings []string
}

// Pair loads both sides, checks that they may be compared, and joins them
// by question id.
func Pair(o CompareOptions) (*Join, error) {
	sa, err := LoadSource(o.A)
	if err != nil {
		return nil, err
	}
	sb, err := LoadSource(o.B)
	if err != nil {
		return nil, err
	}
	return PairSources(sa, sb, o)
}

// PairSources is Pair on loaded sources.
func PairSources(sa, sb *Source, o CompareOptions) (*Join, error) {
	if o.JudgeA == "" && o.JudgeB == "" {
		// One judge on both sides when B has A's primary judge too.
		if d := sa.DefaultJudge(); d != "" && slices.Contains(sb.Judges(), d) {
			o.JudgeA, o.JudgeB = d, d
		}
	}
	ja, na, err := sa.ByJudge(o.JudgeA, "--judge-a/--judge")
	if err != nil {
		return nil, err
	}
	jb, nb, err := sb.ByJudge(o.JudgeB, "--judge-b/--judge")
	if err != nil {
		return nil, err
	}
	var judges []string
	if na == nb {
		judges = []string{na} // one judge on both sides: its spec must match
	}
	sides := []Side{sa.Side(), sb.Side()}
	mixed, err := CheckComparable(sides, o.AllowMixed, judges...)
	if err != nil {
		return nil, err
	}
	var peer []string
	for _, d := range PeerSettings(sides, judges...) {
		peer = append(peer, PeerNote(d))
	}
	known := func(id string) (group string, abstains, ok bool) {
		for _, s := range []*Source{sa, sb} {
			if ab, has := s.Abstains[id]; has {
				return s.Groups[id], ab, true
			}
		}
		return "", false, false
	}
	skip := func(id string) bool {
		g, ab, ok := known(id)
		return ok && Excluded(o.Exclude, g, ab)
	}
	j := &Join{JudgeA: na, JudgeB: nb, SourceA: sa, SourceB: sb, Mixed: mixed, PeerSettings: peer, InvalidAsWrong: o.InvalidAsWrong}
	invA, invB := sa.InvalidBy(na), sb.InvalidBy(nb)
	if o.InvalidAsWrong {
		// Each invalid verdict joins the pairing as WRONG and is counted
		// as invalid all the same.
		ja, jb = withWrong(ja, sa, na), withWrong(jb, sb, nb)
	}
	// sorted lists the ids of set that keep says to, sorted.
	sorted := func(set iter.Seq[string], keep func(id string) bool) []string {
		var out []string
		for id := range set {
			if keep(id) && !skip(id) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	j.InvalidA = sorted(maps.Keys(invA), func(id string) bool { return o.InvalidAsWrong || !has(ja, id) })
	j.InvalidB = sorted(maps.Keys(invB), func(id string) bool { return o.InvalidAsWrong || !has(jb, id) })
	if o.InvalidAsWrong {
		invA, invB = nil, nil
	}
	// An id whose other side is invalid is counted there, not as one-sided.
	j.OnlyInA = sorted(maps.Keys(ja), func(id string) bool { return !has(jb, id) && !invB[id] })
	j.OnlyInB = sorted(maps.Keys(jb), func(id string) bool { return !has(ja, id) && !invA[id] })
	for id := range ja {
		if !has(jb, id) {
			continue
		}
		if skip(id) {
			j.Excluded++
			continue
		}
		if _, _, ok := known(id); !ok {
			j.Unknown++
		}
		j.IDs = append(j.IDs, id)
	}
	slices.Sort(j.IDs)
	for _, id := range j.IDs {
		a, b := ja[id], jb[id]
		j.A, j.B = append(j.A, a.Correct), append(j.B, b.Correct)
		j.ScoreA, j.ScoreB = append(j.ScoreA, 100*a.Score), append(j.ScoreB, 100*b.Score)
	}
	return j, nil
}

// CompareResult is compare's JSON. Accuracies, means, mean_diff,
// lower_bound and margin are in points (0-100). Values a test leaves
// undefined are null.
type CompareResult struct {
	Test   string `json:"test"`    // mcnemar | mcnemar-chi2 | noninferiority
	RunA   string `json:"run_a"`   // as given
	RunB   string `json:"run_b"`   // as given
	JudgeA string `json:"judge_a"` // judge names
	JudgeB string `json:"judge_b"`
	// Measure says what the test compares: "verdict" (a verdict judge's
	// correct/wrong), "thresholded outcome" (a metric judge's score >=
	// threshold: McNemar) or "mean score" (non-inferiority).
	Measure   string   `json:"measure"`
	Threshold *float64 `json:"threshold,omitempty"` // metric judges' outcome threshold (0-1)
	N         int      `json:"n"`
	// Means are the mean scores × 100 on the paired questions: for a
	// verdict judge the accuracy, for a metric judge the summary's figure.
	MeanA float64 `json:"mean_a"`
	MeanB float64 `json:"mean_b"`
	// Accuracies are the share of correct outcomes (for a metric judge:
	// score >= threshold; for a verdict judge: CORRECT, so a PARTIAL is
	// not one).
	AccuracyA float64 `json:"accuracy_a"`
	AccuracyB float64 `json:"accuracy_b"`
	// PartialA/B count a verdict judge's PARTIAL verdicts (score 0.5) on
	// the paired questions. The means count them as 0.5; McNemar and
	// kappa need binary outcomes and count them as not correct.
	PartialA   int      `json:"partial_a,omitempty"`
	PartialB   int      `json:"partial_b,omitempty"`
	Both       int      `json:"both"`
	OnlyA      int      `json:"only_a"`
	OnlyB      int      `json:"only_b"`
	Neither    int      `json:"neither"`
	Statistic  *float64 `json:"statistic"`
	PValue     *float64 `json:"p_value"`
	Kappa      *float64 `json:"kappa"`
	MeanDiff   *float64 `json:"mean_diff,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	Margin     *float64 `json:"margin,omitempty"`
	// Degenerate (non-inferiority): every paired difference is the same
	// value (e.g. all zero: the same outcome on every question), so the
	// differences have no spread, the t statistic is undefined and the
	// lower bound is the mean itself; the verdict says so.
	Degenerate bool `json:"degenerate,omitempty"`
	// Verdict is the test's conclusion in words, with the offline note.
	Verdict string `json:"verdict"`
	// JudgedOneSide counts ids judged in only one of the runs (left out).
	JudgedOneSide int `json:"judged_one_side"`
	OnlyInA       int `json:"only_in_a"`
	OnlyInB       int `json:"only_in_b"`
	// InvalidA/B count questions whose verdict on that side is invalid
	// (the judge model's reply held none); they are left out of n, as the
	// summary leaves them out of accuracy, unless InvalidAsWrong: then
	// they are paired as WRONG (--invalid-as wrong).
	InvalidA       int  `json:"invalid_a"`
	InvalidB       int  `json:"invalid_b"`
	InvalidAsWrong bool `json:"invalid_as_wrong,omitempty"`
	Excluded       int  `json:"excluded"`
	// Offline is "offline heuristics (...)" when either run's answers or
	// judgments come from the offline backend.
	Offline string `json:"offline,omitempty"`
	// Synthetic names the runs on a `datasets synth` file ("" when none).
	Synthetic string   `json:"synthetic,omitempty"`
	Mixed     []string `json:"mixed,omitempty"`
	// PeerSettings note the settings (answer model, embedder, ...) an
	// imported peer differs in as part of its own system: not mixed.
	PeerSettings []string `json:"peer_settings,omitempty"`
}

// Compare computes the test on a join.
func Compare(j *Join, o CompareOptions) (CompareResult, error) {
	n := len(j.IDs)
	r := CompareResult{RunA: o.A, RunB: o.B, JudgeA: j.JudgeA, JudgeB: j.JudgeB, Mixed: j.Mixed, PeerSettings: j.PeerSettings,
		OnlyInA: len(j.OnlyInA), OnlyInB: len(j.OnlyInB), JudgedOneSide: len(j.OnlyInA) + len(j.OnlyInB), Excluded: j.Excluded,
		InvalidA: len(j.InvalidA), InvalidB: len(j.InvalidB), InvalidAsWrong: j.InvalidAsWrong}
	if n == 0 {
		return r, badinput.Errorf("%s and %s share no question ids after exclusions; check --run and --exclude-group", o.A, o.B)
	}
	t, err := stats.Paired(j.A, j.B)
	if err != nil {
		return r, err
	}
	r.N, r.Both, r.OnlyA, r.OnlyB, r.Neither = n, t.Both, t.OnlyA, t.OnlyB, t.Neither
	r.AccuracyA = 100 * float64(t.Both+t.OnlyA) / float64(n)
	r.AccuracyB = 100 * float64(t.Both+t.OnlyB) / float64(n)
	r.MeanA, r.MeanB = mean(j.ScoreA), mean(j.ScoreB)
	metric := j.SourceA != nil && (j.SourceA.IsMetric(j.JudgeA) || j.SourceB.IsMetric(j.JudgeB))
	if k, err := stats.CohenKappaBinary(j.A, j.B); err == nil {
		r.Kappa = finite(k)
	}
	// A judge with repeats scores a question by the share of repeats that
	// accept it: no PARTIAL verdicts, its outcome the majority vote.
	repeated := j.SourceA != nil && (j.SourceA.HasRepeats(j.JudgeA) || j.SourceB.HasRepeats(j.JudgeB))
	if !metric && !repeated {
		r.PartialA, r.PartialB = partials(j.ScoreA), partials(j.ScoreB)
	}
	switch o.Test {
	case "mcnemar":
		r.Test = "mcnemar"
		r.Measure = "verdict"
		if metric {
			r.Measure = "thresholded outcome"
			r.Threshold = threshold(j)
		}
		if o.ChiSquare {
			r.Test = "mcnemar-chi2"
			st, p, err := stats.McNemarChiSquare(t.OnlyA, t.OnlyB, true)
			if err != nil {
				return r, err
			}
			r.Statistic, r.PValue = finite(st), finite(p)
		} else {
			p, err := stats.McNemarExact(t.OnlyA, t.OnlyB)
			if err != nil {
				return r, err
			}
			// The exact test's statistic is the smaller discordant count.
			st := float64(min(t.OnlyA, t.OnlyB))
			r.Statistic, r.PValue = &st, finite(p)
		}
		r.Verdict = "no difference shown"
		if r.PValue != nil && *r.PValue < o.Alpha {
			r.Verdict = "A and B differ"
		}
		r.Verdict += fmt.Sprintf(" at alpha %.2g (p = %s)", o.Alpha, num(r.PValue, "%.4g"))
		if r.PartialA+r.PartialB > 0 {
			// McNemar pairs binary outcomes; the means keep the half credit.
			r.Verdict += fmt.Sprintf("; PARTIAL verdicts (%d in A, %d in B) count as not correct in McNemar", r.PartialA, r.PartialB)
		}
		if repeated {
			r.Verdict += "; a judge that judged each answer several times is paired by its majority vote (accuracy here); the mean over its repeats is mean_a and mean_b"
		}
	case "noninferiority":
		r.Test = "noninferiority"
		r.Measure = "verdict"
		if metric {
			r.Measure = "mean score"
		}
		ni, err := stats.NonInferiority(j.ScoreA, j.ScoreB, o.Margin, o.Alpha)
		if err != nil {
			return r, badinput.Wrap(err)
		}
		r.Statistic, r.PValue = finite(ni.T), finite(ni.P)
		r.MeanDiff, r.LowerBound, r.Margin = finite(ni.Mean), finite(ni.Lower), finite(ni.Margin)
		r.Verdict = "NOT shown non-inferior"
		if r.LowerBound != nil && *r.LowerBound > o.Margin {
			r.Verdict = "non-inferior"
		}
		if ni.SD == 0 {
			// No spread: t is ±Inf and p a limit, not a test result; report
			// no statistic and no p, and say where the mean lies.
			r.Degenerate = true
			r.Statistic, r.PValue = nil, nil
			side := "above"
			if ni.Mean <= o.Margin {
				side = "not above"
			}
			r.Verdict = fmt.Sprintf("degenerate: all %d paired differences are %+.2f points (no spread: the t test is undefined, no p-value); the mean difference is %s the margin %+.2f", n, ni.Mean, side, o.Margin)
		}
	default:
		return r, badinput.Errorf("--test %q: use mcnemar or noninferiority", o.Test)
	}
	r.Synthetic = syntheticNotes(j.SourceA.Manifest, j.SourceB.Manifest)
	if r.Synthetic != "" {
		r.Verdict += "; " + r.Synthetic
	}
	r.Offline = offlineNote(j.SourceA, j.SourceB)
	if r.Offline != "" {
		r.Verdict += "; " + r.Offline
	}
	return r, nil
}

// threshold is the metric judge's outcome threshold from A's manifest
// (B's when A has none).
func threshold(j *Join) *float64 {
	for _, s := range []struct {
		src  *Source
		name string
	}{{j.SourceA, j.JudgeA}, {j.SourceB, j.JudgeB}} {
		if s.src != nil && s.src.Manifest != nil {
			if th := s.src.Manifest.JudgeSet().Threshold(s.name); th > 0 {
				return &th
			}
		}
	}
	return nil
}

// partials counts a verdict judge's PARTIAL scores (in points).
func partials(points []float64) int {
	n := 0
	for _, p := range points {
		if judge.IsPartial(p / 100) {
			n++
		}
	}
	return n
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func num(p *float64, f string) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf(f, *p)
}

// Examples formats up to three ids.
func Examples(ids []string) string {
	ids = slices.Sorted(slices.Values(ids))
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + ", ..."
	}
	return strings.Join(ids, ", ")
}

// HasRepeats reports whether the named judge judged some question more
// than once in this source.
func (s *Source) HasRepeats(judge string) bool {
	return slices.ContainsFunc(s.Repeats, func(j runlog.Judgment) bool { return j.Judge == judge })
}
