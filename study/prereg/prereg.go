// Package prereg holds pre-registered analyses: a YAML file declares the
// hypotheses, systems, judge, split, planned n and the k* procedure; Lock
// records its sha256; Test refuses a file changed since the lock, computes
// k* from the runs as registered, and runs the declared tests with the same
// pairing and statistics as `membench compare`, Holm within each family
// over the tests the plan holds (unfilled slots are not tests).
package prereg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/membench/membench/runlog"

	"gopkg.in/yaml.v3"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/stats"
)

// Kinds of hypothesis.
const (
	NonInferiority = "noninferiority"
	McNemar        = "mcnemar"
)

// Plan is the registered file.
type Plan struct {
	Title       string            `yaml:"title"`
	Judge       string            `yaml:"judge"` // judge name in the judgments
	Split       string            `yaml:"split"` // free text: data and conversations
	PlannedN    int               `yaml:"planned_n"`
	Alpha       float64           `yaml:"alpha"`            // default 0.05
	Exclude     []string          `yaml:"exclude_group"`    // groups left out of every test (analysis.Excluded); default [abstention]
	ExcludeCats []int             `yaml:"exclude_category"` // older plans: LoCoMo's numbers for the same (analysis.CategoryExclusion)
	KStar       *KStarPlan        `yaml:"kstar"`            // the registered token-matching procedure
	Systems     map[string]string `yaml:"systems"`          // name -> run dir or judgments file (relative to --runs-dir); KStarRun = the run k* picked
	Hypotheses  []Hypothesis      `yaml:"hypotheses"`
	Description string            `yaml:"description"`
}

// KStarRun as a systems value stands for the candidate's run at the k*
// the registered procedure picks.
const KStarRun = "{kstar}"

// KStarProcedure is the procedure a plan's kstar block registers (papers.md
// B, token matching), recorded in the report.
const KStarProcedure = "k* is the k in ks whose run of the candidate has the mean rendered context tokens closest to the reference run's (ties to the smaller k), over the reference's question set; every k in ks must be measured"

// KStarPlan registers how the candidate's budget is matched to the
// reference's.
type KStarPlan struct {
	// Reference is a plan system: the comparator's run at its registered
	// budget (e.g. extraction at k=3).
	Reference string `yaml:"reference"`
	// Candidate is the membench system whose budget is matched (the runs
	// of it under --runs-dir are searched).
	Candidate string `yaml:"candidate"`
	Ks        string `yaml:"ks"` // the searched budgets, e.g. 1..20
}

// Hypothesis is one registered test of system A against system B. A
// hypothesis with only id, family and note is a slot: named (the paper
// names it) but not defined, so it is not tested and Holm does not count
// it; fill kind, a and b before locking to make it a test.
type Hypothesis struct {
	ID     string   `yaml:"id"`
	Kind   string   `yaml:"kind"`   // noninferiority | mcnemar
	Family string   `yaml:"family"` // primary | secondary: Holm runs within each family
	A      string   `yaml:"a"`
	B      string   `yaml:"b"`
	Margin *float64 `yaml:"margin"` // noninferiority, points; default stats.DefaultMargin
	Note   string   `yaml:"note"`
	// PlannedN overrides the plan's planned_n (e.g. a test on another
	// dataset).
	PlannedN int `yaml:"planned_n"`
	// DistinctModels registers that A's model in one role must differ
	// from B's in another (S4: the decision model vs the listwise
	// reranker's model); the test is refused when they are the same.
	DistinctModels *DistinctModels `yaml:"distinct_models"`
}

// DistinctModels names a role of A's run and a role of B's run (build,
// answer, decide, judge) whose models must differ.
type DistinctModels struct {
	A string `yaml:"a"`
	B string `yaml:"b"`
}

// Slot reports whether h is an unfilled slot.
func (h Hypothesis) Slot() bool { return h.Kind == "" && h.A == "" && h.B == "" }

// Load parses and validates a plan; unknown keys are errors.
func Load(path string) (*Plan, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var p Plan
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, nil, fmt.Errorf("%s: %v (see configs/prereg_seed_study.yaml)", path, err)
	}
	if p.Alpha == 0 {
		p.Alpha = 0.05
	}
	switch {
	case p.Exclude != nil && p.ExcludeCats != nil:
		return nil, nil, fmt.Errorf("%s: give exclude_group or exclude_category, not both (exclude_group: [abstention] is exclude_category: [5])", path)
	case p.ExcludeCats != nil:
		p.Exclude = analysis.CategoryExclusion(p.ExcludeCats)
	case p.Exclude == nil:
		p.Exclude = []string{analysis.Abstaining}
	}
	if err := p.check(path); err != nil {
		return nil, nil, err
	}
	return &p, b, nil
}

func (p *Plan) check(path string) error {
	if p.Judge == "" {
		return fmt.Errorf("%s: judge: name the judge whose verdicts are tested (e.g. llm)", path)
	}
	if len(p.Hypotheses) == 0 {
		return fmt.Errorf("%s: hypotheses: declare at least one", path)
	}
	if p.Alpha <= 0 || p.Alpha >= 1 {
		return fmt.Errorf("%s: alpha=%g must be in (0,1)", path, p.Alpha)
	}
	usesKStar := false
	for name, v := range p.Systems {
		if strings.Contains(v, KStarRun) {
			if v != KStarRun {
				return fmt.Errorf("%s: systems.%s: %q: %s stands alone (it is the run the k* procedure picks)", path, name, v, KStarRun)
			}
			usesKStar = true
		}
	}
	if usesKStar && p.KStar == nil {
		return fmt.Errorf("%s: systems use %s but the plan has no kstar block (reference, candidate, ks)", path, KStarRun)
	}
	if k := p.KStar; k != nil {
		switch {
		case p.Systems[k.Reference] == "" || p.Systems[k.Reference] == KStarRun:
			return fmt.Errorf("%s: kstar.reference %q: name a system of the plan whose run is the comparator (%s)", path, k.Reference, strings.Join(p.systemNames(), ", "))
		case k.Candidate == "":
			return fmt.Errorf("%s: kstar.candidate: name the membench system whose k is matched (e.g. turns-rerank)", path)
		}
		if _, err := analysis.ParseKRange(k.Ks); err != nil {
			return fmt.Errorf("%s: kstar.ks: %v", path, err)
		}
	}
	ids := map[string]bool{}
	tests := 0
	for i, h := range p.Hypotheses {
		where := fmt.Sprintf("%s: hypotheses[%d] (%s)", path, i, h.ID)
		if h.ID != "" && !ids[h.ID] && h.Slot() {
			if h.Family != "primary" && h.Family != "secondary" {
				return fmt.Errorf("%s: family %q: want primary or secondary", where, h.Family)
			}
			if strings.TrimSpace(h.Note) == "" || h.Margin != nil || h.DistinctModels != nil {
				return fmt.Errorf("%s: a slot (no kind, a, b) holds only id, family and a note saying why it is not defined; fill kind, a and b to make it a test", where)
			}
			ids[h.ID] = true
			continue
		}
		tests++
		switch {
		case h.ID == "":
			return fmt.Errorf("%s: hypotheses[%d]: id is required", path, i)
		case ids[h.ID]:
			return fmt.Errorf("%s: id %s declared twice", where, h.ID)
		case h.Kind != NonInferiority && h.Kind != McNemar:
			return fmt.Errorf("%s: kind %q: want %s or %s", where, h.Kind, NonInferiority, McNemar)
		case h.Family != "primary" && h.Family != "secondary":
			return fmt.Errorf("%s: family %q: want primary or secondary", where, h.Family)
		case p.Systems[h.A] == "":
			return fmt.Errorf("%s: a: %q is not in systems (%s)", where, h.A, strings.Join(p.systemNames(), ", "))
		case p.Systems[h.B] == "":
			return fmt.Errorf("%s: b: %q is not in systems (%s)", where, h.B, strings.Join(p.systemNames(), ", "))
		case h.Margin != nil && h.Kind != NonInferiority:
			return fmt.Errorf("%s: margin applies to noninferiority only", where)
		case h.DistinctModels != nil && (!validRole(h.DistinctModels.A) || !validRole(h.DistinctModels.B)):
			return fmt.Errorf("%s: distinct_models: a and b must be roles (build, answer, decide, judge), got %q and %q", where, h.DistinctModels.A, h.DistinctModels.B)
		}
		ids[h.ID] = true
	}
	if tests == 0 {
		return fmt.Errorf("%s: hypotheses: every entry is a slot; declare at least one test (kind, a, b)", path)
	}
	return nil
}

func validRole(r string) bool {
	switch r {
	case "build", "answer", "decide", "judge":
		return true
	}
	return false
}

func (p *Plan) systemNames() []string {
	var out []string
	for k := range p.Systems {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LockInfo is FILE.lock.
type LockInfo struct {
	File     string    `json:"file"`
	SHA256   string    `json:"sha256"`
	LockedAt time.Time `json:"locked_at"`
}

// DefaultLockDir is where locks go when no runs directory is given: the
// results directory `membench run` writes into by default.
const DefaultLockDir = "results"

// LockPath is where the lock of the plan at path lives: in the runs
// directory its tests read (runsDir; "" = DefaultLockDir), next to the
// results, named after the plan's file. A lock never goes into the
// plan's own directory, which is usually the repository's configs/.
func LockPath(path, runsDir string) string {
	if runsDir == "" {
		runsDir = DefaultLockDir
	}
	return filepath.Join(runsDir, filepath.Base(path)+".lock")
}

// legacyLockPath is where locks lived before: beside the plan. Such a
// lock is still read (never written), so earlier registrations stay valid.
func legacyLockPath(path string) string { return path + ".lock" }

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Lock validates the plan and records its hash in LockPath(path, runsDir).
// An existing lock of a different content is not overwritten: a
// registration is locked once.
func Lock(path, runsDir string, now time.Time) (*LockInfo, error) {
	_, b, err := Load(path)
	if err != nil {
		return nil, err
	}
	l := &LockInfo{File: filepath.Base(path), SHA256: digest(b), LockedAt: now.UTC()}
	if old, _, err := ReadLock(path, runsDir); err == nil {
		if old.SHA256 == l.SHA256 {
			return old, nil
		}
		return nil, &ChangedError{Path: path, Lock: *old, Now: l.SHA256}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lp := LockPath(path, runsDir)
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	jb, _ := json.MarshalIndent(l, "", "  ")
	return l, runlog.WriteFileAtomic(lp, append(jb, '\n'))
}

// ReadLock reads the plan's lock and says where it was found: in the runs
// directory, else (an older lock) beside the plan.
func ReadLock(path, runsDir string) (*LockInfo, string, error) {
	lp := LockPath(path, runsDir)
	b, err := os.ReadFile(lp)
	if errors.Is(err, fs.ErrNotExist) {
		if lb, lerr := os.ReadFile(legacyLockPath(path)); lerr == nil {
			lp, b, err = legacyLockPath(path), lb, nil
		}
	}
	if err != nil {
		return nil, lp, err
	}
	var l LockInfo
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, lp, fmt.Errorf("%s: %v", lp, err)
	}
	if _, err := hex.DecodeString(l.SHA256); err != nil || len(l.SHA256) != 64 {
		return nil, lp, fmt.Errorf("%s: sha256 %q is not a 64-digit hex digest; the lock is damaged: restore it (e.g. from version control), or delete it and lock again only if no data were seen", lp, l.SHA256)
	}
	return &l, lp, nil
}

// ChangedError: the plan's content differs from its lock.
type ChangedError struct {
	Path string
	Lock LockInfo
	Now  string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s changed since it was locked at %s (lock sha256 %s…, file now %s…): a pre-registration cannot be edited after locking; restore the locked version (e.g. from version control) or register a new file",
		e.Path, e.Lock.LockedAt.Format(time.RFC3339), e.Lock.SHA256[:12], e.Now[:12])
}

// Verify checks the plan against its lock.
func Verify(path, runsDir string, b []byte) (*LockInfo, error) {
	l, _, err := ReadLock(path, runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		flag := ""
		if runsDir != "" {
			flag = " --runs-dir " + runsDir
		}
		return nil, fmt.Errorf("%s is not locked (no %s); run `membench prereg lock %s%s` before the data are seen", path, LockPath(path, runsDir), path, flag)
	}
	if err != nil {
		return nil, err
	}
	if now := digest(b); now != l.SHA256 {
		return nil, &ChangedError{Path: path, Lock: *l, Now: now}
	}
	return l, nil
}

// Outcome is one hypothesis of the plan: a test, or an unfilled slot.
type Outcome struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Family     string   `json:"family"`
	A          string   `json:"a"`
	B          string   `json:"b"`
	RunA       string   `json:"run_a,omitempty"`
	RunB       string   `json:"run_b,omitempty"`
	N          int      `json:"n"`
	AccuracyA  float64  `json:"accuracy_a"`
	AccuracyB  float64  `json:"accuracy_b"`
	OnlyA      int      `json:"only_a"`
	OnlyB      int      `json:"only_b"`
	Statistic  *float64 `json:"statistic"` // McNemar: min(only_a, only_b); NI: t
	P          *float64 `json:"p"`
	HolmP      *float64 `json:"holm_p"` // within the family
	HolmM      int      `json:"holm_m"` // tests in the family Holm adjusts over (slots not counted)
	MeanDiff   *float64 `json:"mean_diff,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	Margin     *float64 `json:"margin,omitempty"`
	// Degenerate: every paired difference is the same (e.g. all zero), so
	// the non-inferiority t statistic has no spread to rest on.
	Degenerate bool     `json:"degenerate,omitempty"`
	Reject     bool     `json:"reject"` // H0 rejected at alpha after Holm
	Decision   string   `json:"decision"`
	Slot       bool     `json:"slot,omitempty"` // named but not defined: not tested, not counted by Holm
	Note       string   `json:"note,omitempty"`
	MissingA   []string `json:"missing_in_a,omitempty"` // ids judged for B only
	MissingB   []string `json:"missing_in_b,omitempty"`
	InvalidA   int      `json:"invalid_a,omitempty"` // invalid verdicts left out
	InvalidB   int      `json:"invalid_b,omitempty"`
	// Offline is "offline heuristics (...)" when either run's answers or
	// judgments come from the offline backend; the decision says so too.
	Offline string `json:"offline,omitempty"`
}

// KStarOutcome is k* as the registered procedure computed it.
type KStarOutcome struct {
	Procedure     string              `json:"procedure"`
	Reference     string              `json:"reference"` // plan system
	ReferenceRun  string              `json:"reference_run"`
	ReferenceK    int                 `json:"reference_k"`
	ReferenceMean float64             `json:"reference_mean_tokens"`
	Candidate     string              `json:"candidate"`
	Ks            string              `json:"ks"`
	K             int                 `json:"k_star"`
	Mean          float64             `json:"k_star_mean_tokens"`
	Run           string              `json:"run"`
	Rows          []analysis.KStarRow `json:"rows"`
	Notes         []string            `json:"notes,omitempty"`
	Offline       string              `json:"offline,omitempty"`
}

// Report is the whole test.
type Report struct {
	Title    string        `json:"title"`
	File     string        `json:"file"`
	SHA256   string        `json:"sha256"`
	LockedAt time.Time     `json:"locked_at"`
	Judge    string        `json:"judge"`
	Split    string        `json:"split"`
	PlannedN int           `json:"planned_n"`
	Alpha    float64       `json:"alpha"`
	KStar    *KStarOutcome `json:"kstar,omitempty"`
	Outcomes []Outcome     `json:"hypotheses"`
	Warnings []string      `json:"warnings,omitempty"`
	Mixed    []string      `json:"mixed,omitempty"` // differences accepted with --allow-mixed
}

// Test runs a locked plan on finished runs. System paths are resolved
// under runsDir unless absolute.
func Test(path, runsDir string) (*Report, error) { return TestRuns(path, runsDir, false) }

// TestRuns is Test; with allowMixed, hypotheses on runs whose manifests
// differ (dataset, embedder, answer model, judge, backends) are tested
// and the differences listed in the report instead of refused.
func TestRuns(path, runsDir string, allowMixed bool) (*Report, error) {
	p, b, err := Load(path)
	if err != nil {
		return nil, err
	}
	l, err := Verify(path, runsDir, b)
	if err != nil {
		return nil, err
	}
	rep := &Report{Title: p.Title, File: path, SHA256: l.SHA256, LockedAt: l.LockedAt, Judge: p.Judge, Split: p.Split, PlannedN: p.PlannedN, Alpha: p.Alpha}
	resolve := func(name string) (string, error) {
		s := p.Systems[name]
		if s == KStarRun {
			return rep.KStar.Run, nil
		}
		if !filepath.IsAbs(s) && runsDir != "" {
			s = filepath.Join(runsDir, s)
		}
		if !strings.ContainsAny(s, "*?[") {
			return s, nil
		}
		// A glob (e.g. a sweep's "turns-rerank-k3-*") must name one run.
		m, err := filepath.Glob(s)
		if err != nil || len(m) != 1 {
			return "", inputErr("systems.%s: %q matches %d paths (%v); it must match exactly one run", name, s, len(m), m)
		}
		return m[0], nil
	}
	if p.KStar != nil {
		ref, err := resolve(p.KStar.Reference)
		if err != nil {
			return nil, err
		}
		if rep.KStar, err = computeKStar(p.KStar, ref, runsDir, allowMixed); err != nil {
			return nil, err
		}
		for _, m := range rep.KStar.Notes {
			rep.Warnings = append(rep.Warnings, "k*: "+m)
		}
	}
	for _, h := range p.Hypotheses {
		if h.Slot() {
			rep.Outcomes = append(rep.Outcomes, Outcome{ID: h.ID, Family: h.Family, Slot: true, Note: h.Note,
				Decision: "slot: not defined in the plan, not tested, not counted by Holm"})
			continue
		}
		pa, err := resolve(h.A)
		if err != nil {
			return nil, err
		}
		pb, err := resolve(h.B)
		if err != nil {
			return nil, err
		}
		o := analysis.CompareOptions{A: pa, B: pb, JudgeA: p.Judge, JudgeB: p.Judge, Test: h.Kind,
			Margin: stats.DefaultMargin, Alpha: p.Alpha, Exclude: p.Exclude, AllowMixed: allowMixed}
		if h.Margin != nil {
			o.Margin = *h.Margin
		}
		j, err := analysis.Pair(o)
		if err != nil {
			return nil, fmt.Errorf("%s (%s vs %s): %w", h.ID, h.A, h.B, err)
		}
		if h.DistinctModels != nil {
			w, err := checkDistinct(h, j)
			if err != nil {
				return nil, err
			}
			if w != "" {
				rep.Warnings = append(rep.Warnings, w)
			}
		}
		r, err := analysis.Compare(j, o)
		if err != nil {
			return nil, fmt.Errorf("%s (%s vs %s): %w", h.ID, h.A, h.B, err)
		}
		out := Outcome{ID: h.ID, Kind: h.Kind, Family: h.Family, A: h.A, B: h.B, RunA: pa, RunB: pb, N: r.N, AccuracyA: r.AccuracyA, AccuracyB: r.AccuracyB,
			OnlyA: r.OnlyA, OnlyB: r.OnlyB, Statistic: r.Statistic, P: r.PValue, MeanDiff: r.MeanDiff, LowerBound: r.LowerBound, Margin: r.Margin,
			Degenerate: r.Degenerate, Note: h.Note, MissingA: sorted(j.OnlyInB), MissingB: sorted(j.OnlyInA), InvalidA: r.InvalidA, InvalidB: r.InvalidB, Offline: r.Offline}
		for _, m := range r.Mixed {
			rep.Mixed = append(rep.Mixed, h.ID+": "+m)
		}
		if n := len(j.OnlyInA) + len(j.OnlyInB); n > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d question ids are judged on one side only (%d missing in %s, %d missing in %s); they are not paired", h.ID, n, len(out.MissingA), h.A, len(out.MissingB), h.B))
		}
		if r.InvalidA+r.InvalidB > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d invalid verdicts in %s and %d in %s (the judge's reply held none) are left out; rerun the judge to re-ask them", h.ID, r.InvalidA, h.A, r.InvalidB, h.B))
		}
		planned := p.PlannedN
		if h.PlannedN > 0 {
			planned = h.PlannedN
		}
		if planned > 0 && r.N != planned {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: n = %d paired questions, planned %d", h.ID, r.N, planned))
		}
		rep.Outcomes = append(rep.Outcomes, out)
	}
	if err := holmByFamily(rep.Outcomes, p.Alpha); err != nil {
		return nil, err
	}
	for i := range rep.Outcomes {
		if o := &rep.Outcomes[i]; o.Offline != "" {
			o.Decision += " (offline heuristics)"
		}
	}
	return rep, nil
}

// InputError is a problem with the plan or the runs it names (exit 2).
type InputError struct{ Err error }

func (e *InputError) Error() string  { return e.Err.Error() }
func (e *InputError) Unwrap() error  { return e.Err }
func (e *InputError) BadInput() bool { return true }

func inputErr(format string, a ...any) error {
	return &InputError{Err: fmt.Errorf(format, a...)}
}

// computeKStar runs the registered procedure: the reference's run (a plan
// system) against every run of the candidate under runsDir.
func computeKStar(kp *KStarPlan, refDir, runsDir string, allowMixed bool) (*KStarOutcome, error) {
	ks, err := analysis.ParseKRange(kp.Ks)
	if err != nil {
		return nil, inputErr("kstar.ks: %v", err)
	}
	refRuns, err := analysis.ScanTokens(refDir)
	if err != nil || len(refRuns) != 1 {
		return nil, inputErr("kstar.reference %s: %s is not one run directory (%v)", kp.Reference, refDir, err)
	}
	ref := refRuns[0]
	if !ref.KOK || !ref.HasTokens {
		return nil, inputErr("kstar.reference %s: run %s has no usable budget or rendered tokens (k: %s); finish the run first", kp.Reference, refDir, ref.KSource)
	}
	root := runsDir
	if root == "" {
		root = "."
	}
	all, err := analysis.ScanTokens(root)
	if err != nil {
		return nil, inputErr("%v", err)
	}
	runs := []analysis.RunTokens{ref}
	for _, r := range all {
		if r.System == kp.Candidate {
			runs = append(runs, r)
		}
	}
	res, err := analysis.KStar(runs, analysis.KStarQuery{Reference: ref.System, ReferenceK: ref.K, Candidate: kp.Candidate, Ks: ks, ResultsDir: root, AllowMixed: allowMixed})
	if err != nil {
		return nil, inputErr("k*: %v", err)
	}
	if len(res.Missing) > 0 {
		return nil, inputErr("k*: the registered procedure needs a run of %s at every k in %s; missing k = %v (under --runs-dir %s); run:\n  %s",
			kp.Candidate, kp.Ks, res.Missing, root, strings.Join(res.Commands, "\n  "))
	}
	out := &KStarOutcome{Procedure: KStarProcedure, Reference: kp.Reference, ReferenceRun: ref.Dir, ReferenceK: ref.K, ReferenceMean: ref.Tokens.Mean,
		Candidate: kp.Candidate, Ks: kp.Ks, K: res.KStar, Mean: res.KStarMean, Rows: res.Rows, Notes: res.Notes, Offline: res.Offline}
	for _, row := range res.Rows {
		if row.KStar {
			out.Run = row.RunDir
		}
	}
	return out, nil
}

// checkDistinct refuses a test whose registered distinct models are the
// same model; two offline backends only earn a warning (there is no
// model to tell apart).
func checkDistinct(h Hypothesis, j *analysis.Join) (string, error) {
	d := h.DistinctModels
	ma, mb := j.SourceA.Manifest, j.SourceB.Manifest
	if ma == nil || mb == nil {
		return "", inputErr("%s: distinct_models needs the runs' manifests (give run directories for %s and %s)", h.ID, h.A, h.B)
	}
	a, okA := ma.Models[d.A]
	b, okB := mb.Models[d.B]
	if !okA || !okB {
		return "", inputErr("%s: distinct_models: %s's run records no %s model or %s's no %s model; the registered models cannot be checked", h.ID, h.A, d.A, h.B, d.B)
	}
	if a != b {
		return "", nil
	}
	if a.Backend == "offline" {
		return fmt.Sprintf("%s: %s's %s model and %s's %s model are both the offline backend; the registered distinction is not tested", h.ID, h.A, d.A, h.B, d.B), nil
	}
	return "", inputErr("%s: %s's %s model and %s's %s model are both %s/%s; the plan registers them distinct (e.g. a decision model other than the listwise reranker's model): rerun %s with another --%s-model",
		h.ID, h.A, d.A, h.B, d.B, a.Backend, a.Model, h.A, d.A)
}

// holmByFamily adjusts p within each family and decides. Holm counts every
// test of the family in the plan (slots are not tests); a test whose p is
// undefined enters as p = 1, so it can never make another test easier to
// reject. A family of one (the usual primary) is its own adjustment.
func holmByFamily(outs []Outcome, alpha float64) error {
	fams := map[string][]int{}
	for i, o := range outs {
		if !o.Slot {
			fams[o.Family] = append(fams[o.Family], i)
		}
	}
	for _, idx := range fams {
		ps := make([]float64, len(idx))
		for k, i := range idx {
			ps[k] = 1
			if outs[i].P != nil {
				ps[k] = *outs[i].P
			}
		}
		adj, rej, err := stats.Holm(ps, alpha)
		if err != nil {
			return err
		}
		for k, i := range idx {
			outs[i].HolmM = len(idx)
			if outs[i].P == nil {
				continue
			}
			v := adj[k]
			outs[i].HolmP = &v
			outs[i].Reject = rej[k]
		}
	}
	for i := range outs {
		o := &outs[i]
		switch {
		case o.Slot:
		case o.P == nil:
			o.Decision = "no test (undefined statistic)"
		case o.Kind == NonInferiority && o.Reject:
			o.Decision = fmt.Sprintf("non-inferior (lower bound %+.2f > margin %+.2f)", deref(o.LowerBound), deref(o.Margin))
		case o.Kind == NonInferiority:
			o.Decision = "non-inferiority NOT shown"
		case o.Reject:
			o.Decision = "reject H0 (systems differ)"
		default:
			o.Decision = "do not reject H0"
		}
		if o.Degenerate {
			o.Decision = fmt.Sprintf("degenerate: every paired difference is %+.2f points (no spread; the t test is undefined); ", deref(o.MeanDiff)) + o.Decision
		}
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func sorted(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

// Table is the hypotheses table.
func (r *Report) Table() *report.Table {
	t := &report.Table{Title: fmt.Sprintf("pre-registered tests: %s (judge %s, locked %s)", r.Title, r.Judge, r.LockedAt.Format(time.RFC3339))}
	t.Header = []string{"id", "family", "test", "A vs B", "n", "acc A", "acc B", "statistic", "p", "Holm p", "decision"}
	num := func(p *float64, d int) string {
		if p == nil {
			return "-"
		}
		return report.F(*p, d)
	}
	for _, o := range r.Outcomes {
		if o.Slot {
			t.Add(o.ID, o.Family, "-", "-", "-", "-", "-", "-", "-", "-", o.Decision)
			continue
		}
		test := "McNemar exact (min discordant)"
		if o.Kind == NonInferiority {
			test = fmt.Sprintf("NI t, diff %s, LB %s", num(o.MeanDiff, 2), num(o.LowerBound, 2))
		}
		t.Add(o.ID, o.Family, test, o.A+" vs "+o.B, o.N, report.F(o.AccuracyA, 2), report.F(o.AccuracyB, 2), num(o.Statistic, 3), pFmt(o.P), pFmt(o.HolmP), o.Decision)
	}
	if k := r.KStar; k != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("k* = %d for %s (mean %.1f rendered tokens vs %.1f of %s at k=%d, %s); procedure: %s",
			k.K, k.Candidate, k.Mean, k.ReferenceMean, k.Reference, k.ReferenceK, k.Run, k.Procedure))
	}
	fams := map[string]int{}
	for _, o := range r.Outcomes {
		if !o.Slot {
			fams[o.Family] = o.HolmM
		}
	}
	var famNotes []string
	for _, f := range []string{"primary", "secondary"} {
		if m, ok := fams[f]; ok {
			famNotes = append(famNotes, fmt.Sprintf("%s %d", f, m))
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("alpha %.3g one-sided for non-inferiority; Holm within each family over the tests in the plan (%s; slots not counted); split: %s; planned n %d; file sha256 %s",
		r.Alpha, strings.Join(famNotes, ", "), r.Split, r.PlannedN, r.SHA256))
	for _, o := range r.Outcomes {
		if o.Slot {
			t.Notes = append(t.Notes, o.ID+" (slot): "+o.Note)
		}
	}
	t.Notes = append(t.Notes, r.Warnings...)
	for _, o := range r.Outcomes {
		if o.Offline != "" {
			t.Notes = append(t.Notes, o.ID+": "+o.Offline)
		}
	}
	if w := runlog.MixedWarning(r.Mixed); w != "" {
		t.Notes = append([]string{w}, t.Notes...)
	}
	return t
}

func pFmt(p *float64) string {
	if p == nil {
		return "-"
	}
	if *p < 1e-4 {
		return fmt.Sprintf("%.2e", *p)
	}
	return fmt.Sprintf("%.4f", *p)
}
