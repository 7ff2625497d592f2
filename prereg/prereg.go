// Package prereg holds pre-registered analyses: a YAML file declares the
// hypotheses, systems, judge, split, planned n and the k* procedure; Lock
// records its sha256 and time; Test refuses a file changed since the lock
// and runs made before it (unless exploratory), computes each test's k*
// against that test's own comparator, and runs the declared tests with the
// same pairing and statistics as `membench compare`, Holm within each
// registered family (an unfilled slot enters as not run, p = 1).
package prereg

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/internal/yamlfile"
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
	Systems     map[string]string `yaml:"systems"`          // name -> run dir or judgments file (relative to --run); KStarRun = the run k* picked
	Hypotheses  []Hypothesis      `yaml:"hypotheses"`
	Description string            `yaml:"description"`
	// Protocol is how the runs are made (judge spec, prompts, models,
	// embedder, answer key, system options); Lock records it resolved and
	// Test refuses a run that differs. A plan without one is tested with
	// a warning that nothing of it was checked.
	Protocol *Protocol `yaml:"protocol"`
	// PaperPrompts pins the paper's prompts, as a paper run config does:
	// Lock refuses a registered prompt file of another sha256, and every
	// line of the test says when the registered prompts are not the
	// paper's.
	PaperPrompts *membench.PaperPrompts `yaml:"paper_prompts"`
}

// KStarRun as a systems value stands for the candidate's run at the k*
// the registered procedure picks.
const KStarRun = "{kstar}"

// KStarProcedure is the procedure a plan's kstar block registers (papers.md
// B, token matching), recorded in the report.
const KStarProcedure = "for each test of the candidate, k* is the k in ks whose complete run of the candidate (same options apart from k, same question set) has the mean rendered context tokens closest to that test's comparator run at its registered k (ties to the smaller k); every k in ks must be measured"

// KStarPlan registers how the candidate's budget is matched to each
// test's comparator: the other system of every test that names
// "{kstar}", at the budget of its registered run.
type KStarPlan struct {
	// Reference is refused by Load: each test is matched to its own comparator.
	Reference string `yaml:"reference"`
	// Candidate is the membench system whose budget is matched (the runs
	// of it under --run are searched).
	Candidate string `yaml:"candidate"`
	Ks        string `yaml:"ks"` // the searched budgets, e.g. 1..20
	// Options are the candidate runs' --opt settings apart from k (none:
	// the system's defaults); runs with other options are not used.
	Options map[string]string `yaml:"options"`
}

// Hypothesis is one registered test of system A against system B. A
// hypothesis with only id, family and note is a slot: named (the paper
// names it) but not defined, so it is not tested; Holm counts it as a
// test not run (p = 1), since it belongs to the registered family. Fill
// kind, a and b before locking to make it a test.
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
	docs, err := yamlfile.Documents(path, b)
	switch {
	case err == nil && len(docs) == 0:
		err = badinput.Errorf("%s is empty", path)
	case err == nil && len(docs) > 1:
		err = badinput.Errorf("%s:%d: a second YAML document; a plan is one", path, docs[1].Line)
	case err == nil:
		err = yamlfile.Decode(path, docs[0], &p)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w; see configs/prereg_seed_study.yaml", err)
	}
	p.Alpha = cmp.Or(p.Alpha, 0.05)
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
		case k.Reference != "":
			return fmt.Errorf("%s: kstar.reference %q: k* is matched per test, to the other system of each test that names %s (its comparator, at the budget of its registered run); remove reference and lock the plan as a new file (a plan locked with one reference registered one k* for every test)", path, k.Reference, KStarRun)
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
		case p.Systems[h.A] == KStarRun && p.Systems[h.B] == KStarRun:
			return fmt.Errorf("%s: a and b are both %s: k* is matched to the test's comparator, so one side must be a registered run", where, KStarRun)
		case h.DistinctModels != nil && (!slices.Contains(protocolRoles, h.DistinctModels.A) || !slices.Contains(protocolRoles, h.DistinctModels.B)):
			return fmt.Errorf("%s: distinct_models: a and b must be roles (build, answer, decide, judge), got %q and %q", where, h.DistinctModels.A, h.DistinctModels.B)
		}
		ids[h.ID] = true
	}
	if tests == 0 {
		return fmt.Errorf("%s: hypotheses: every entry is a slot; declare at least one test (kind, a, b)", path)
	}
	return nil
}

func (p *Plan) systemNames() []string { return slices.Sorted(maps.Keys(p.Systems)) }

// LockInfo is FILE.lock.
type LockInfo struct {
	File     string    `json:"file"`
	SHA256   string    `json:"sha256"`
	LockedAt time.Time `json:"locked_at"`
	// Protocol is the plan's protocol as resolved when it was locked:
	// what every run is checked against (nil: the plan registers none).
	Protocol *Locked `json:"protocol,omitempty"`
}

// DefaultLockDir is where locks go when no runs directory is given: the
// results directory `membench run` writes into by default.
const DefaultLockDir = "results"

// LockPath is where the lock of the plan at path lives: in the runs
// directory its tests read (runsDir; "" = DefaultLockDir), next to the
// results, named after the plan's file. A lock never goes into the
// plan's own directory, which is usually the repository's configs/.
func LockPath(path, runsDir string) string {
	return filepath.Join(cmp.Or(runsDir, DefaultLockDir), filepath.Base(path)+".lock")
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// LockOptions are Lock's switches.
type LockOptions struct {
	// AllowPromptMismatch registers prompt files whose sha256 is not the
	// one the plan pins (paper_prompts), every line of the test labelled.
	AllowPromptMismatch bool
}

// LockWith is Lock with the switches in o.
func LockWith(path, runsDir string, now time.Time, o LockOptions) (*LockInfo, error) {
	p, b, err := Load(path)
	if err != nil {
		return nil, err
	}
	l := &LockInfo{File: filepath.Base(path), SHA256: digest(b), LockedAt: now.UTC()}
	if old, err := ReadLock(path, runsDir); err == nil {
		if old.SHA256 == l.SHA256 {
			return old, nil
		}
		return nil, &ChangedError{Path: path, Lock: *old, Now: l.SHA256}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if l.Protocol, err = p.resolveProtocol(path, o.AllowPromptMismatch); err != nil {
		return nil, err
	}
	lp := LockPath(path, runsDir)
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	jb, _ := json.MarshalIndent(l, "", "  ")
	return l, runlog.WriteFileAtomic(lp, append(jb, '\n'))
}

// ReadLock reads the plan's lock from LockPath.
func ReadLock(path, runsDir string) (*LockInfo, error) {
	lp := LockPath(path, runsDir)
	b, err := os.ReadFile(lp)
	if err != nil {
		return nil, err
	}
	var l LockInfo
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %v", lp, err)
	}
	if _, err := hex.DecodeString(l.SHA256); err != nil || len(l.SHA256) != 64 {
		return nil, fmt.Errorf("%s: sha256 %q is not a 64-digit hex digest; the lock is damaged: restore it (e.g. from version control), or delete it and lock again only if no data were seen", lp, l.SHA256)
	}
	return &l, nil
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
	l, err := ReadLock(path, runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		flag := ""
		if runsDir != "" {
			flag = " --run " + runsDir
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
	HolmM      int      `json:"holm_m"` // hypotheses of the registered family Holm adjusts over (slots count, as p = 1)
	MeanDiff   *float64 `json:"mean_diff,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	Margin     *float64 `json:"margin,omitempty"`
	// Degenerate: every paired difference is the same (e.g. all zero), so
	// the non-inferiority t statistic has no spread to rest on.
	Degenerate bool     `json:"degenerate,omitempty"`
	Reject     bool     `json:"reject"` // H0 rejected at alpha after Holm
	Decision   string   `json:"decision"`
	Slot       bool     `json:"slot,omitempty"` // named but not defined: not run; Holm counts it as p = 1
	Note       string   `json:"note,omitempty"`
	MissingA   []string `json:"missing_in_a,omitempty"` // ids judged for B only
	MissingB   []string `json:"missing_in_b,omitempty"`
	InvalidA   int      `json:"invalid_a,omitempty"` // invalid verdicts left out
	InvalidB   int      `json:"invalid_b,omitempty"`
	// Offline is "offline heuristics (...)" when either run's answers or
	// judgments come from the offline backend; the decision says so too.
	Offline string `json:"offline,omitempty"`
	// Synthetic names the runs on a `datasets synth` file ("" when none).
	Synthetic string `json:"synthetic,omitempty"`
	// KStar is this test's token matching: the candidate's k* against
	// this test's comparator (nil when neither side is "{kstar}").
	KStar *KStarOutcome `json:"kstar,omitempty"`
	// Exploratory: a run of this test started before the plan was locked
	// (tested only with --exploratory).
	Exploratory bool `json:"exploratory,omitempty"`
}

// KStarOutcome is one test's k* as the registered procedure computed it.
type KStarOutcome struct {
	Procedure     string              `json:"procedure"`
	Reference     string              `json:"reference"` // the test's comparator (plan system)
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
	Title    string    `json:"title"`
	File     string    `json:"file"`
	SHA256   string    `json:"sha256"`
	LockedAt time.Time `json:"locked_at"`
	Judge    string    `json:"judge"`
	Split    string    `json:"split"`
	PlannedN int       `json:"planned_n"`
	Alpha    float64   `json:"alpha"`
	Outcomes []Outcome `json:"hypotheses"`
	Warnings []string  `json:"warnings,omitempty"`
	Mixed    []string  `json:"mixed,omitempty"` // differences accepted with --allow-mixed
	// Exploratory: tested with --exploratory; BeforeLock names the runs
	// that started before the lock, which make it so.
	Exploratory bool     `json:"exploratory,omitempty"`
	BeforeLock  []string `json:"runs_before_lock,omitempty"`
	// Protocol is the locked protocol every run was checked against (nil:
	// the plan registers none).
	Protocol *Locked `json:"protocol,omitempty"`
	// PromptLabel is on every line when the registered prompts are not the
	// paper's the plan pins ("" when they are, or it pins none).
	PromptLabel string `json:"prompt_label,omitempty"`
}

// TestOptions are Test's switches.
type TestOptions struct {
	// AllowMixed tests hypotheses on runs whose manifests differ
	// (dataset, embedder, models, prompts, judge, backends), listing the
	// differences in the report instead of refusing.
	AllowMixed bool
	// Exploratory tests runs that started before the plan was locked,
	// labelling every line of the report exploratory; without it such
	// runs are refused (*BeforeLockError).
	Exploratory bool
	// InvalidAsWrong pairs invalid verdicts as WRONG (--invalid-as
	// wrong) instead of leaving them out; they are counted either way.
	InvalidAsWrong bool
}

// BeforeLockError refuses runs that started before the plan was locked:
// the plan could have been written after seeing them.
type BeforeLockError struct {
	LockedAt time.Time
	Runs     []string // "H1: DIR started T"
}

func (e *BeforeLockError) Error() string {
	return fmt.Sprintf("%d runs started before the plan was locked at %s (%s): a pre-registered test reads only data made after the lock; rerun them into a new directory, or pass --exploratory to test them with every result labelled exploratory",
		len(e.Runs), e.LockedAt.Format(time.RFC3339), strings.Join(e.Runs, "; "))
}

// BadInput marks the refusal as the user's input (exit code 2).
func (e *BeforeLockError) BadInput() bool { return true }

// runDir is the run directory path names: path itself, or the run holding
// a judgments file; path and false when it is neither.
func runDir(path string) (string, bool) {
	switch {
	case runlog.IsRunDir(path):
		return path, true
	case runlog.IsRunDir(filepath.Dir(path)):
		return filepath.Dir(path), true
	}
	return path, false
}

// startedAt is when the data of the run or judgments file at path began:
// the manifest's start; a bare judgments file's modification time.
func startedAt(path string) (time.Time, string) {
	dir, ok := runDir(path)
	if !ok {
		st, err := os.Stat(path)
		if err != nil {
			return time.Time{}, ""
		}
		return st.ModTime().UTC(), "file time"
	}
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		return time.Time{}, ""
	}
	return m.Started, "started"
}

// TestWith runs a locked plan on finished runs with the switches in o.
func TestWith(path, runsDir string, opt TestOptions) (*Report, error) {
	p, b, err := Load(path)
	if err != nil {
		return nil, err
	}
	l, err := Verify(path, runsDir, b)
	if err != nil {
		return nil, err
	}
	rep := &Report{Title: p.Title, File: path, SHA256: l.SHA256, LockedAt: l.LockedAt, Judge: p.Judge, Split: p.Split, PlannedN: p.PlannedN, Alpha: p.Alpha}
	resolveFixed := func(name string) (string, error) {
		s := p.Systems[name]
		if !filepath.IsAbs(s) && runsDir != "" {
			s = filepath.Join(runsDir, s)
		}
		if !strings.ContainsAny(s, "*?[") {
			return s, nil
		}
		// A glob (e.g. a sweep's "turns-rerank-k3-*") must name one run.
		m, err := filepath.Glob(s)
		if err != nil || len(m) != 1 {
			return "", badinput.Errorf("systems.%s: %q matches %d paths (%v); it must match exactly one run", name, s, len(m), m)
		}
		return m[0], nil
	}
	// Each test naming {kstar} is matched to its own comparator.
	kstars := map[string]*KStarOutcome{}
	if p.KStar != nil {
		if kstars, err = computeKStars(p, runsDir, resolveFixed, opt.AllowMixed); err != nil {
			return nil, err
		}
	}
	// Every run a test reads is checked against the locked protocol.
	checked := map[string]bool{}
	checkRun := func(id, path string) error {
		if l.Protocol == nil {
			return nil
		}
		dir, _ := runDir(path)
		if checked[dir] {
			return nil
		}
		checked[dir] = true
		if err := l.Protocol.check(dir, p.Judge); err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		return nil
	}
	switch {
	case l.Protocol != nil:
		rep.Protocol = l.Protocol
		rep.PromptLabel = l.Protocol.PaperPrompts.Label()
	case p.Protocol != nil:
		rep.Warnings = append(rep.Warnings, "the lock records no protocol (locked by an older membench): the runs' judge, prompts, models, embedder, answer key and options were not checked against the registration")
	default:
		rep.Warnings = append(rep.Warnings, "the plan registers no protocol (judge spec, prompts, models, embedder, answer key, system options): runs were not checked against one; configs/prereg_seed_study.yaml shows the block")
	}
	for _, ks := range kstars {
		for _, row := range ks.Rows {
			if err := checkRun("k* of "+ks.Candidate, row.RunDir); err != nil {
				return nil, err
			}
		}
	}
	var beforeLock []string
	for _, h := range p.Hypotheses {
		if h.Slot() {
			rep.Outcomes = append(rep.Outcomes, Outcome{ID: h.ID, Family: h.Family, Slot: true, Note: h.Note})
			continue
		}
		ks := kstars[h.ID]
		resolve := func(name string) (string, error) {
			if p.Systems[name] == KStarRun {
				return ks.Run, nil
			}
			return resolveFixed(name)
		}
		pa, err := resolve(h.A)
		if err != nil {
			return nil, err
		}
		pb, err := resolve(h.B)
		if err != nil {
			return nil, err
		}
		before := false
		for _, run := range []string{pa, pb} {
			if err := checkRun(h.ID, run); err != nil {
				return nil, err
			}
			if t, how := startedAt(run); !t.IsZero() && t.Before(l.LockedAt) {
				beforeLock = append(beforeLock, fmt.Sprintf("%s: %s %s %s", h.ID, run, how, t.Format(time.RFC3339)))
				before = true
			}
		}
		o := analysis.CompareOptions{A: pa, B: pb, JudgeA: p.Judge, JudgeB: p.Judge, Test: h.Kind,
			Margin: stats.DefaultMargin, Alpha: p.Alpha, Exclude: p.Exclude, AllowMixed: opt.AllowMixed, InvalidAsWrong: opt.InvalidAsWrong}
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
			Degenerate: r.Degenerate, Note: h.Note, MissingA: sorted(j.OnlyInB), MissingB: sorted(j.OnlyInA), InvalidA: r.InvalidA, InvalidB: r.InvalidB, Offline: r.Offline, Synthetic: r.Synthetic,
			KStar: ks, Exploratory: before}
		if ks != nil {
			for _, m := range ks.Notes {
				rep.Warnings = append(rep.Warnings, h.ID+" k*: "+m)
			}
		}
		for _, m := range r.Mixed {
			rep.Mixed = append(rep.Mixed, h.ID+": "+m)
		}
		if n := len(j.OnlyInA) + len(j.OnlyInB); n > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d question ids are judged on one side only (%d missing in %s, %d missing in %s); they are not paired", h.ID, n, len(out.MissingA), h.A, len(out.MissingB), h.B))
		}
		if r.InvalidA+r.InvalidB > 0 && opt.InvalidAsWrong {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d invalid verdicts in %s and %d in %s (the judge's reply held none) are counted as WRONG (--invalid-as wrong)", h.ID, r.InvalidA, h.A, r.InvalidB, h.B))
		} else if r.InvalidA+r.InvalidB > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d invalid verdicts in %s and %d in %s (the judge's reply held none) are left out; rerun the judge to re-ask them, or count them as WRONG with --invalid-as wrong", h.ID, r.InvalidA, h.A, r.InvalidB, h.B))
		}
		if planned := cmp.Or(h.PlannedN, p.PlannedN); planned > 0 && r.N != planned {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: n = %d paired questions, planned %d", h.ID, r.N, planned))
		}
		rep.Outcomes = append(rep.Outcomes, out)
	}
	if len(beforeLock) > 0 {
		if !opt.Exploratory {
			return nil, &BeforeLockError{LockedAt: l.LockedAt, Runs: beforeLock}
		}
		rep.BeforeLock = beforeLock
	}
	rep.Exploratory = opt.Exploratory
	if err := holmByFamily(rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// computeKStars runs the registered procedure once per test that names
// {kstar}: that test's comparator run against every run of the candidate
// under runsDir. Missing ks of every test are reported together.
func computeKStars(p *Plan, runsDir string, resolve func(string) (string, error), allowMixed bool) (map[string]*KStarOutcome, error) {
	kp := p.KStar
	ks, err := analysis.ParseKRange(kp.Ks)
	if err != nil {
		return nil, badinput.Errorf("kstar.ks: %v", err)
	}
	root := cmp.Or(runsDir, ".")
	all, err := analysis.ScanTokens(root)
	if err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	out := map[string]*KStarOutcome{}
	var missing, commands []string
	for _, h := range p.Hypotheses {
		if h.Slot() {
			continue
		}
		comparator := ""
		switch KStarRun {
		case p.Systems[h.A]:
			comparator = h.B
		case p.Systems[h.B]:
			comparator = h.A
		default:
			continue
		}
		refDir, err := resolve(comparator)
		if err != nil {
			return nil, err
		}
		refRuns, err := analysis.ScanTokenDirs([]string{refDir})
		if err != nil || len(refRuns) != 1 {
			return nil, badinput.Errorf("%s: comparator %s: %s is not one run directory (%v); k* needs its rendered tokens", h.ID, comparator, refDir, err)
		}
		ref := refRuns[0]
		if !ref.KOK || !ref.HasTokens {
			return nil, badinput.Errorf("%s: comparator %s: run %s has no usable budget or rendered tokens (k: %s); finish the run first", h.ID, comparator, refDir, ref.KSource)
		}
		runs := []analysis.RunTokens{ref}
		for _, r := range all {
			if r.System == kp.Candidate && filepath.Clean(r.Dir) != filepath.Clean(ref.Dir) {
				runs = append(runs, r)
			}
		}
		res, err := analysis.KStar(runs, analysis.KStarQuery{ReferenceDir: ref.Dir, Candidate: kp.Candidate, Ks: ks, ResultsDir: root,
			CandidateOptions: kp.Options, AllowMixed: allowMixed})
		if err != nil {
			return nil, fmt.Errorf("%s k* (vs %s): %w", h.ID, comparator, err)
		}
		if len(res.Missing) > 0 {
			missing = append(missing, fmt.Sprintf("%s (vs %s, %s): k = %v", h.ID, comparator, filepath.Base(ref.Dir), res.Missing))
			for _, c := range res.Commands {
				if !slices.Contains(commands, c) {
					commands = append(commands, c)
				}
			}
			continue
		}
		o := &KStarOutcome{Procedure: KStarProcedure, Reference: comparator, ReferenceRun: ref.Dir, ReferenceK: ref.K, ReferenceMean: ref.Tokens.Mean,
			Candidate: kp.Candidate, Ks: kp.Ks, K: res.KStar, Mean: res.KStarMean, Rows: res.Rows, Notes: res.Notes, Offline: res.Offline}
		for _, row := range res.Rows {
			if row.KStar {
				o.Run = row.RunDir
			}
		}
		out[h.ID] = o
	}
	if len(missing) > 0 {
		return nil, badinput.Errorf("k*: the registered procedure needs a complete run of %s at every k in %s on each comparator's question set (under --run %s); missing: %s; run:\n  %s",
			kp.Candidate, kp.Ks, root, strings.Join(missing, "; "), strings.Join(commands, "\n  "))
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
		return "", badinput.Errorf("%s: distinct_models needs the runs' manifests (give run directories for %s and %s)", h.ID, h.A, h.B)
	}
	a, okA := ma.Models[d.A]
	b, okB := mb.Models[d.B]
	if !okA || !okB {
		return "", badinput.Errorf("%s: distinct_models: %s's run records no %s model or %s's no %s model; the registered models cannot be checked", h.ID, h.A, d.A, h.B, d.B)
	}
	if a != b {
		return "", nil
	}
	if a.Backend == "offline" {
		return fmt.Sprintf("%s: %s's %s model and %s's %s model are both the offline backend; the registered distinction is not tested", h.ID, h.A, d.A, h.B, d.B), nil
	}
	return "", badinput.Errorf("%s: %s's %s model and %s's %s model are both %s/%s; the plan registers them distinct (e.g. a decision model other than the listwise reranker's model): rerun %s with another --%s-model",
		h.ID, h.A, d.A, h.B, d.B, a.Backend, a.Model, h.A, d.A)
}

// holmByFamily adjusts p within each family and decides, each decision
// labelled as the report's lines are. Holm counts every hypothesis the
// plan registers in the family: a slot (named, not defined) and a test
// whose p is undefined enter as p = 1, so the family is never smaller than
// registered. A family of one (the usual primary) is its own adjustment.
func holmByFamily(rep *Report) error {
	outs := rep.Outcomes
	fams := map[string][]int{}
	for i, o := range outs {
		fams[o.Family] = append(fams[o.Family], i)
	}
	for _, idx := range fams {
		ps := make([]float64, len(idx))
		for k, i := range idx {
			ps[k] = 1
			if outs[i].P != nil {
				ps[k] = *outs[i].P
			}
		}
		adj, rej, err := stats.Holm(ps, rep.Alpha)
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
			o.Decision = fmt.Sprintf("not run, p = 1 in Holm (slot of the registered %s family: not defined in the plan)", o.Family)
		case o.P == nil:
			o.Decision = "no test (undefined statistic; p = 1 in Holm)"
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
		if o.Offline != "" {
			o.Decision += " (offline heuristics)"
		}
		if o.Synthetic != "" {
			o.Decision += " (SYNTHETIC dataset)"
		}
		if rep.Exploratory {
			o.Exploratory = true
			o.Decision = "EXPLORATORY: " + o.Decision
		}
		if rep.PromptLabel != "" {
			o.Decision += " [" + rep.PromptLabel + "]"
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

func sorted(ids []string) []string { return slices.Sorted(slices.Values(ids)) }

// Table is the hypotheses table.
func (r *Report) Table() *report.Table {
	title := fmt.Sprintf("pre-registered tests: %s (judge %s, locked %s)", r.Title, r.Judge, r.LockedAt.Format(time.RFC3339))
	if r.Exploratory {
		title = "EXPLORATORY (--exploratory: not a pre-registered result) " + title
	}
	if r.PromptLabel != "" {
		title += " — " + r.PromptLabel
	}
	t := &report.Table{Title: title}
	t.Header = []string{"id", "family", "test", "A vs B", "k* (tokens A / B)", "n", "invalid A / B", "acc A", "acc B", "statistic", "p", "Holm p", "decision"}
	num := func(p *float64, d int) string {
		if p == nil {
			return "-"
		}
		return report.F(*p, d)
	}
	for _, o := range r.Outcomes {
		if o.Slot {
			t.Add(o.ID, o.Family, "-", "-", "-", "-", "-", "-", "-", "-", "1", "1", o.Decision)
			continue
		}
		test := "McNemar exact (min discordant)"
		if o.Kind == NonInferiority {
			test = fmt.Sprintf("NI t, diff %s, LB %s", num(o.MeanDiff, 2), num(o.LowerBound, 2))
		}
		t.Add(o.ID, o.Family, test, o.A+" vs "+o.B, o.kstarCell(), o.N, fmt.Sprintf("%d / %d", o.InvalidA, o.InvalidB), report.F(o.AccuracyA, 2), report.F(o.AccuracyB, 2), num(o.Statistic, 3), pFmt(o.P), pFmt(o.HolmP), o.Decision)
	}
	// One walk gathers each kind of note; they are listed kind by kind.
	var kstarNotes, procedure, slotNotes, dataNotes []string
	fams := map[string]int{}
	slots := map[string]int{}
	for _, o := range r.Outcomes {
		if k := o.KStar; k != nil {
			kstarNotes = append(kstarNotes, fmt.Sprintf("%s: k* = %d for %s (mean %.1f rendered tokens, %s) vs %s at k=%d (mean %.1f, %s)",
				o.ID, k.K, k.Candidate, k.Mean, filepath.Base(k.Run), k.Reference, k.ReferenceK, k.ReferenceMean, filepath.Base(k.ReferenceRun)))
			procedure = []string{"k* procedure: " + k.Procedure}
		}
		fams[o.Family] = o.HolmM
		if o.Slot {
			slots[o.Family]++
			slotNotes = append(slotNotes, o.ID+" (slot, not run): "+o.Note)
		}
		if o.Offline != "" {
			dataNotes = append(dataNotes, o.ID+": "+o.Offline)
		}
		if o.Synthetic != "" {
			dataNotes = append(dataNotes, o.ID+": "+o.Synthetic)
		}
	}
	t.Notes = append(kstarNotes, procedure...)
	var famNotes []string
	for _, f := range []string{"primary", "secondary"} {
		if m, ok := fams[f]; ok {
			n := fmt.Sprintf("%s m = %d", f, m)
			if slots[f] > 0 {
				n += fmt.Sprintf(", of which %d not run (p = 1)", slots[f])
			}
			famNotes = append(famNotes, n)
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("alpha %.3g one-sided for non-inferiority; Holm within each registered family (%s); split: %s; planned n %d; file sha256 %s",
		r.Alpha, strings.Join(famNotes, "; "), r.Split, r.PlannedN, r.SHA256))
	t.Notes = append(t.Notes, slotNotes...)
	t.Notes = append(t.Notes, r.Warnings...)
	if pr := r.Protocol; pr != nil {
		t.Notes = append(t.Notes, "protocol (locked; every run was checked against it): "+pr.Summary())
		if n := pr.PaperPrompts.Note(); n != "" {
			t.Notes = append(t.Notes, n)
		}
	}
	t.Notes = append(t.Notes, dataNotes...)
	if w := analysis.MixedWarning(r.Mixed); w != "" {
		t.Notes = append([]string{w}, t.Notes...)
	}
	if r.Exploratory {
		for i, n := range t.Notes {
			t.Notes[i] = "EXPLORATORY: " + n
		}
		runs := "none"
		if len(r.BeforeLock) > 0 {
			runs = strings.Join(r.BeforeLock, "; ")
		}
		t.Notes = append([]string{"EXPLORATORY: runs made before the lock: " + runs}, t.Notes...)
	}
	return t
}

// kstarCell is "k*=5 (265 / 251)": the candidate's k* and both sides'
// mean rendered tokens, A's first.
func (o Outcome) kstarCell() string {
	k := o.KStar
	if k == nil {
		return "-"
	}
	a, b := k.Mean, k.ReferenceMean
	if o.B != k.Reference {
		// The comparator is A.
		a, b = k.ReferenceMean, k.Mean
	}
	return fmt.Sprintf("k*=%d (%.0f / %.0f)", k.K, a, b)
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
