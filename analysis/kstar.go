package analysis

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/stats"
)

// RunTokens is what kstar needs of one run: its system, budget and mean
// rendered context tokens.
type RunTokens struct {
	Dir        string            `json:"dir"`
	RunID      string            `json:"run_id"`
	System     string            `json:"system"`
	K          int               `json:"k"`        // resolved budget; 0 when unresolved
	KSource    string            `json:"k_source"` // where K came from, or why it is unknown
	KOK        bool              `json:"-"`
	Tokens     runlog.TokenStats `json:"tokens"`
	HasTokens  bool              `json:"-"`
	TokensFrom string            `json:"tokens_from"` // "manifest" or "retrievals.jsonl"
	Finished   time.Time         `json:"-"`
	Config     membench.Config   `json:"-"`
	Manifest   runlog.Manifest   `json:"-"`
}

// ScanTokens reads the manifest of every run directory under root. A run
// whose manifest has no rendered_tokens (interrupted, or written by an
// older membench) gets them from its retrievals.jsonl.
func ScanTokens(root string) ([]RunTokens, error) {
	dirs, err := runlog.DirsUnder(root)
	if err != nil {
		return nil, fmt.Errorf("--run %s: %v", root, err)
	}
	return ScanTokenDirs(dirs)
}

// ScanTokenDirs is ScanTokens over a list of run directories.
func ScanTokenDirs(dirs []string) ([]RunTokens, error) {
	var out []RunTokens
	for _, d := range dirs {
		m, err := runlog.LoadManifest(d)
		if err != nil {
			return nil, err
		}
		rt := RunTokens{Dir: d, RunID: m.RunID, System: m.Config.System, Finished: m.Finished, Config: m.Config, Manifest: m}
		rt.K, rt.KSource, rt.KOK = ResolveK(m)
		if m.RenderedTokens != nil && m.RenderedTokens.N > 0 {
			rt.Tokens, rt.HasTokens, rt.TokensFrom = *m.RenderedTokens, true, "manifest"
		} else {
			recs, err := runlog.ReadJSONL[runlog.RetrievalRecord](filepath.Join(d, runlog.RetrievalsFile))
			if err != nil {
				return nil, err
			}
			if ts, ok := tokenStats(runlog.LastBy(recs, func(x runlog.RetrievalRecord) string { return x.QuestionID })); ok {
				rt.Tokens, rt.HasTokens, rt.TokensFrom = ts, true, "retrievals.jsonl"
			}
		}
		out = append(out, rt)
	}
	return out, nil
}

func tokenStats(recs []runlog.RetrievalRecord) (runlog.TokenStats, bool) {
	var ts runlog.TokenStats
	for _, r := range recs {
		if ts.N == 0 || r.Tokens < ts.Min {
			ts.Min = r.Tokens
		}
		ts.Max = max(ts.Max, r.Tokens)
		ts.Mean += float64(r.Tokens)
		ts.N++
	}
	if ts.N == 0 {
		return ts, false
	}
	ts.Mean /= float64(ts.N)
	return ts, true
}

// ParseKRange reads "1..40", "3-9", "3,5,7" or "5" into ascending distinct ks.
func ParseKRange(s string) ([]int, error) {
	bad := func() ([]int, error) {
		return nil, fmt.Errorf("--k %q: want a range like 1..40, a list like 3,5,7 or one k", s)
	}
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "..")
		if !isRange {
			lo, hi, isRange = strings.Cut(part, "-")
		}
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 1 {
			return bad()
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return bad()
			}
		}
		if b-a > 10000 {
			return bad()
		}
		for k := a; k <= b; k++ {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// KStarQuery names the comparison.
type KStarQuery struct {
	Reference  string
	ReferenceK int
	// ReferenceDir, when set, is the reference run itself (prereg names
	// each test's comparator run); Reference and ReferenceK are then read
	// from it.
	ReferenceDir string
	Candidate    string
	Ks           []int
	ResultsDir   string // goes into the suggested run commands
	// ReferenceOptions and CandidateOptions are the --opt settings (apart
	// from k) of the runs to match; nil or empty means the system's
	// defaults. A run given other options is never used in their place.
	ReferenceOptions, CandidateOptions map[string]string
	// AllowMixed matches runs whose manifests differ (embedder, dataset,
	// backends, ...) instead of refusing, listing the differences.
	AllowMixed bool
}

// KStarRow is one candidate k.
type KStarRow struct {
	K      int     `json:"k"`
	Mean   float64 `json:"mean_tokens"`
	N      int     `json:"n"`
	Diff   float64 `json:"abs_diff"`
	RunDir string  `json:"run_dir"`
	KStar  bool    `json:"k_star,omitempty"`
}

// KStarResult is kstar's answer.
type KStarResult struct {
	Reference RunTokens  `json:"reference"`
	Candidate string     `json:"candidate"`
	Rows      []KStarRow `json:"rows"`
	KStar     int        `json:"k_star"` // 0 when no candidate k was measured
	KStarMean float64    `json:"k_star_mean_tokens"`
	Missing   []int      `json:"missing_k"`
	Commands  []string   `json:"commands"` // membench run commands for the missing ks
	Notes     []string   `json:"notes,omitempty"`
	// Offline is "offline heuristics (...)" when a run used was built or
	// answered by the offline backend.
	Offline string   `json:"offline,omitempty"`
	Mixed   []string `json:"mixed,omitempty"` // differences accepted with AllowMixed
	// commandK is Commands' command with the shell variable $k as its k,
	// for the table's one loop over a range of missing ks.
	commandK string
}

// IncompleteError refuses a run that retrieved for fewer questions than
// its question set holds: its mean tokens are over other questions.
type IncompleteError struct {
	Dir   string
	N, Of int
	Role  string // "reference" or "candidate at k=5"
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%s run %s is incomplete (%d of %d questions retrieved): its mean tokens are not over the question set; finish it by running its command again (a run resumes), or delete it", e.Role, e.Dir, e.N, e.Of)
}

// BadInput marks the refusal as the user's input (exit code 2).
func (e *IncompleteError) BadInput() bool { return true }

// incomplete: fewer retrievals than the question set holds.
func (r RunTokens) incomplete() bool {
	return r.Manifest.Questions > 0 && r.Tokens.N < r.Manifest.Questions
}

// optionKey is the run's --opt settings apart from k, as one comparable
// string ("" for a run at the system's defaults).
func optionKey(opts map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if k != "k" {
			parts = append(parts, k+"="+opts[k])
		}
	}
	return strings.Join(parts, ",")
}

// sameQuestions: the two runs asked the same questions. The manifests'
// question-set hashes decide when both have one (a file named two ways
// is one question set); older manifests fall back on the config.
func sameQuestions(a, b RunTokens) (bool, string, string) {
	if qa, qb := a.Manifest.QuestionSetSHA256, b.Manifest.QuestionSetSHA256; qa != "" && qb != "" {
		return qa == qb, "sha256:" + prefix(qa, 12), "sha256:" + prefix(qb, 12)
	}
	qa, qb := questionSet(a.Config), questionSet(b.Config)
	return qa == qb, qa, qb
}

// KStar matches the candidate's budget to the reference's mean rendered
// tokens (papers.md B: comparator at k=3, candidate k* closest in mean
// tokens, ties to the smaller k via stats.MatchK). Only complete candidate
// runs on the reference's question set with the requested options (apart
// from k) count: mean tokens over other questions, or of another
// configuration, are not comparable.
func KStar(runs []RunTokens, q KStarQuery) (*KStarResult, error) {
	res := &KStarResult{Candidate: q.Candidate}
	dir := q.ResultsDir
	if dir == "" {
		dir = "DIR"
	}
	var refs []RunTokens
	if q.ReferenceDir != "" {
		// The reference run among the scanned ones, else read on its own.
		if i := slices.IndexFunc(runs, func(r RunTokens) bool { return filepath.Clean(r.Dir) == filepath.Clean(q.ReferenceDir) }); i >= 0 {
			refs = runs[i : i+1]
		} else {
			sc, err := ScanTokenDirs([]string{q.ReferenceDir})
			if err != nil {
				return nil, err
			}
			refs = sc
		}
		if !refs[0].KOK || !refs[0].HasTokens {
			return nil, fmt.Errorf("reference run %s has no usable budget or rendered tokens (k: %s); finish the run first", q.ReferenceDir, refs[0].KSource)
		}
		q.Reference, q.ReferenceK = refs[0].System, refs[0].K
		refs = refs[:1]
	} else {
		wantRef := optionKey(q.ReferenceOptions)
		for _, r := range runs {
			if r.System == q.Reference && r.KOK && r.K == q.ReferenceK && r.HasTokens {
				if optionKey(r.Config.Options) != wantRef {
					res.Notes = append(res.Notes, fmt.Sprintf("skipped reference %s: options %q are not the requested %q", r.Dir, optionKey(r.Config.Options), wantRef))
					continue
				}
				refs = append(refs, r)
			}
		}
	}
	if len(refs) == 0 {
		var seen []string
		for _, r := range runs {
			if r.System == q.Reference {
				if r.KOK {
					seen = append(seen, fmt.Sprintf("%s has k=%d", filepath.Base(r.Dir), r.K))
				} else {
					seen = append(seen, fmt.Sprintf("%s has k=0 and %s", filepath.Base(r.Dir), r.KSource))
				}
			}
		}
		which := fmt.Sprintf("among %d runs", len(runs))
		if len(seen) > 0 {
			which = "(" + strings.Join(seen, "; ") + ")"
		}
		return nil, fmt.Errorf("no finished run of --reference %s at k=%d %s; produce it with: membench run --system %s --k %d --results %s",
			q.Reference, q.ReferenceK, which, q.Reference, q.ReferenceK, dir)
	}
	var complete []RunTokens
	for _, r := range refs {
		if !r.incomplete() {
			complete = append(complete, r)
		}
	}
	if len(complete) == 0 {
		r := latest(refs)
		return nil, &IncompleteError{Dir: r.Dir, N: r.Tokens.N, Of: r.Manifest.Questions, Role: "reference"}
	}
	ref := latest(complete)
	if len(complete) > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d runs of %s at k=%d; using the most recently finished, %s", len(complete), q.Reference, q.ReferenceK, ref.Dir))
	}
	res.Reference = ref
	wantCand := optionKey(q.CandidateOptions)
	var otherQS []string // candidate runs over other questions: one note
	refQS := ""
	byK := map[int][]RunTokens{}
	incompleteAt := map[int]RunTokens{}
	for _, r := range runs {
		if r.System != q.Candidate {
			continue
		}
		same, qr, qref := sameQuestions(r, ref)
		switch {
		case !r.KOK:
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: k=0 and %s", r.Dir, r.KSource))
		case !r.HasTokens:
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: no rendered tokens (no retrievals yet)", r.Dir))
		case !same:
			otherQS = append(otherQS, fmt.Sprintf("%s (%s)", r.Dir, qr))
			refQS = qref
		case !slices.Contains(q.Ks, r.K):
		case optionKey(r.Config.Options) != wantCand:
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: options %q are not the requested %q (a run of another configuration never stands in for it)", r.Dir, optionKey(r.Config.Options), wantCand))
		case r.incomplete():
			incompleteAt[r.K] = r
		default:
			byK[r.K] = append(byK[r.K], r)
		}
	}
	switch {
	case len(otherQS) == 1:
		res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: its question set differs from the reference's %s", otherQS[0], refQS))
	case len(otherQS) > 1:
		res.Notes = append(res.Notes, fmt.Sprintf("skipped %d runs of %s on other question sets than the reference's %s (e.g. %s)", len(otherQS), q.Candidate, refQS, otherQS[0]))
	}
	means := map[int]float64{}
	for _, k := range q.Ks {
		rs, ok := byK[k]
		if !ok {
			if r, inc := incompleteAt[k]; inc {
				return nil, &IncompleteError{Dir: r.Dir, N: r.Tokens.N, Of: r.Manifest.Questions, Role: fmt.Sprintf("candidate at k=%d", k)}
			}
			res.Missing = append(res.Missing, k)
			continue
		}
		if r, inc := incompleteAt[k]; inc {
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: incomplete (%d of %d questions)", r.Dir, r.Tokens.N, r.Manifest.Questions))
		}
		r := latest(rs)
		if len(rs) > 1 {
			res.Notes = append(res.Notes, fmt.Sprintf("%d runs of %s at k=%d; using the most recently finished, %s", len(rs), q.Candidate, k, r.Dir))
		}
		means[k] = r.Tokens.Mean
		res.Rows = append(res.Rows, KStarRow{K: k, Mean: r.Tokens.Mean, N: r.Tokens.N, Diff: math.Abs(r.Tokens.Mean - ref.Tokens.Mean), RunDir: r.Dir})
	}
	// The reference and the matched runs must be made the same way: only
	// k may differ between runs of one system (DifferencesVarying).
	used := []Side{{Label: ref.Dir, Manifest: &ref.Manifest}}
	for _, row := range res.Rows {
		for i := range runs {
			if runs[i].Dir == row.RunDir {
				used = append(used, Side{Label: runs[i].Dir, Manifest: &runs[i].Manifest})
			}
		}
	}
	var offline []string
	var ms []*runlog.Manifest
	for _, sd := range used {
		if off := sd.Manifest.OfflineList(); len(off) > 0 {
			offline = append(offline, sd.Label+": "+strings.Join(off, ", "))
		}
		ms = append(ms, sd.Manifest)
	}
	if n := syntheticNotes(ms...); n != "" {
		res.Notes = append(res.Notes, n)
	}
	mixed, err := CheckComparableVarying(used, q.AllowMixed, []string{"k"})
	if err != nil {
		return nil, err
	}
	res.Mixed = mixed
	if len(offline) > 0 {
		res.Offline = "offline heuristics (" + strings.Join(offline, "; ") + "): token counts come from offline-built memories and offline answers' prompts"
	}
	if len(means) > 0 {
		k, err := stats.MatchK(ref.Tokens.Mean, means)
		if err != nil {
			return nil, err
		}
		res.KStar, res.KStarMean = k, means[k]
		for i := range res.Rows {
			res.Rows[i].KStar = res.Rows[i].K == k
		}
		if k == q.Ks[0] || k == q.Ks[len(q.Ks)-1] {
			res.Notes = append(res.Notes, fmt.Sprintf("k*=%d is at the edge of the searched range; widen --k to be sure", k))
		}
	} else {
		res.Notes = append(res.Notes, fmt.Sprintf("no run of %s in the k range; run the commands below", q.Candidate))
	}
	for _, k := range res.Missing {
		res.Commands = append(res.Commands, runCommand(ref.Config, q.Candidate, q.CandidateOptions, strconv.Itoa(k), q.ResultsDir))
	}
	res.commandK = runCommand(ref.Config, q.Candidate, q.CandidateOptions, "$k", q.ResultsDir)
	return res, nil
}

// latest is the most recently finished run (the first of a tie).
func latest(rs []RunTokens) RunTokens {
	return slices.MaxFunc(rs, func(a, b RunTokens) int { return a.Finished.Compare(b.Finished) })
}

func questionSet(c membench.Config) string {
	return fmt.Sprintf("dataset=%s data=%s conversations=%s limit=%d", c.Dataset, c.Data, strings.Join(c.Conversations, ","), c.Limit)
}

// runCommand is the `membench run` command line that makes system at
// budget k (a number, or a shell variable in a loop) with opts exactly as
// the reference run base was made: every setting of base that changes an
// output (dataset and questions, turn step, every model role, judges,
// answer and judge prompts, embedder).
func runCommand(base membench.Config, system string, opts map[string]string, k string, resultsDir string) string {
	args := []string{"membench", "run", "--system", system, "--k", k}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, shellQuote(v))
		}
	}
	add("--dataset", base.Dataset)
	add("--data", base.Data)
	add("--base-data", base.BaseData)
	if base.Seed != 0 {
		add("--seed", strconv.Itoa(base.Seed))
	}
	add("--conversations", strings.Join(base.Conversations, ","))
	if base.Limit > 0 {
		add("--limit", strconv.Itoa(base.Limit))
	}
	if base.TurnStep != 0 && base.TurnStep != 30*time.Second {
		add("--turn-step", base.TurnStep.String())
	}
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		if key != "k" {
			add("--opt", key+"="+opts[key])
		}
	}
	// The per-role flags take full model specs, which --llm/--model cannot
	// always express; roles left unset fell back to the run's main model.
	role := func(flag, v string) {
		if v == "" && base.Model != "offline" {
			v = base.Model
		}
		add(flag, v)
	}
	role("--build-model", base.BuildModel)
	role("--answer-model", base.AnswerModel)
	role("--decide-model", base.DecideModel)
	role("--judge-model", base.JudgeModel)
	for _, j := range base.Judges {
		add("--judge-spec", j)
	}
	add("--answer-prompt", base.AnswerPrompt)
	add("--judge-prompt", base.JudgePrompt)
	add("--embedder", base.Embedder)
	add("--results", resultsDir)
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]{}()<>|&;!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Table renders the kstar result.
func (r *KStarResult) Table() *report.Table {
	t := &report.Table{
		Title:  fmt.Sprintf("k* for %s matched to %s at k=%d (mean %.1f rendered tokens over %d questions)", r.Candidate, r.Reference.System, r.Reference.K, r.Reference.Tokens.Mean, r.Reference.Tokens.N),
		Header: []string{"k", "mean tokens", "|diff|", "n", "run", ""},
	}
	for _, row := range r.Rows {
		mark := ""
		if row.KStar {
			mark = "<- k*"
		}
		t.Add(row.K, report.F(row.Mean, 1), report.F(row.Diff, 1), row.N, filepath.Base(row.RunDir), mark)
	}
	if r.KStar > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("k* = %d (mean %.1f tokens vs reference %.1f; ties go to the smaller k)", r.KStar, r.KStarMean, r.Reference.Tokens.Mean))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("reference: %s (k from %s, tokens from %s)", r.Reference.Dir, r.Reference.KSource, r.Reference.TokensFrom))
	t.Notes = append(t.Notes, r.Notes...)
	if r.Offline != "" {
		t.Notes = append(t.Notes, r.Offline)
	}
	if w := MixedWarning(r.Mixed); w != "" {
		t.Notes = append([]string{w}, t.Notes...)
	}
	if len(r.Missing) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("missing k (%d): %s; to measure them:", len(r.Missing), intList(r.Missing)))
		t.Notes = append(t.Notes, r.commandLines()...)
	}
	return t
}

// commandLines are the table's lines for the missing ks: the commands
// differ only in k, so a run of consecutive ks is one line, a shell loop
// ("k 6–40: for k in $(seq 6 40); do membench run ... --k $k ...; done"),
// and a lone k its own command ("k 3: membench run ... --k 3 ...").
func (r *KStarResult) commandLines() []string {
	var out []string
	for _, sp := range spans(r.Missing) {
		lo, hi := r.Missing[sp[0]], r.Missing[sp[1]]
		if lo < hi && r.commandK != "" {
			out = append(out, fmt.Sprintf("  k %d–%d: for k in $(seq %d %d); do %s; done", lo, hi, lo, hi, r.commandK))
			continue
		}
		for i := sp[0]; i <= sp[1]; i++ {
			out = append(out, fmt.Sprintf("  k %d: %s", r.Missing[i], r.Commands[i]))
		}
	}
	return out
}

// intList writes ascending ints compactly: 1-3,7,9-12.
func intList(ks []int) string {
	var parts []string
	for _, sp := range spans(ks) {
		if sp[1] > sp[0] {
			parts = append(parts, fmt.Sprintf("%d-%d", ks[sp[0]], ks[sp[1]]))
		} else {
			parts = append(parts, strconv.Itoa(ks[sp[0]]))
		}
	}
	return strings.Join(parts, ",")
}

// spans cuts ascending ints into runs of consecutive values, each as the
// first and last index.
func spans(ks []int) [][2]int {
	var out [][2]int
	for i := 0; i < len(ks); {
		j := i
		for j+1 < len(ks) && ks[j+1] == ks[j]+1 {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j + 1
	}
	return out
}
