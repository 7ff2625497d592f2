package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

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
	Config     runlog.Config     `json:"-"`
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
	var ks []int
	for k := range set {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks, nil
}

// KStarQuery names the comparison.
type KStarQuery struct {
	Reference  string
	ReferenceK int
	Candidate  string
	Ks         []int
	ResultsDir string // goes into the suggested run commands
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
}

// KStar matches the candidate's budget to the reference's mean rendered
// tokens (papers.md B: comparator at k=3, candidate k* closest in mean
// tokens, ties to the smaller k via stats.MatchK). Only candidate runs on
// the reference's question set (dataset, file, conversations, limit)
// count, since mean tokens over other questions are not comparable.
func KStar(runs []RunTokens, q KStarQuery) (*KStarResult, error) {
	res := &KStarResult{Candidate: q.Candidate}
	var refs []RunTokens
	for _, r := range runs {
		if r.System == q.Reference && r.KOK && r.K == q.ReferenceK && r.HasTokens {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		dir := q.ResultsDir
		if dir == "" {
			dir = "DIR"
		}
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
		if len(seen) > 0 {
			return nil, fmt.Errorf("no finished run of --reference %s at k=%d (%s); produce it with: membench run --system %s --k %d --results %s",
				q.Reference, q.ReferenceK, strings.Join(seen, "; "), q.Reference, q.ReferenceK, dir)
		}
		return nil, fmt.Errorf("no finished run of --reference %s at k=%d among %d runs; produce it with: membench run --system %s --k %d --results %s",
			q.Reference, q.ReferenceK, len(runs), q.Reference, q.ReferenceK, dir)
	}
	ref := latest(refs)
	if len(refs) > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d runs of %s at k=%d; using the most recently finished, %s", len(refs), q.Reference, q.ReferenceK, ref.Dir))
	}
	res.Reference = ref
	inRange := map[int]bool{}
	for _, k := range q.Ks {
		inRange[k] = true
	}
	byK := map[int][]RunTokens{}
	var template *RunTokens
	for i, r := range runs {
		if r.System != q.Candidate {
			continue
		}
		if template == nil || r.Finished.After(template.Finished) {
			template = &runs[i]
		}
		switch {
		case !r.KOK:
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: k=0 and %s", r.Dir, r.KSource))
		case !r.HasTokens:
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: no rendered tokens (no retrievals yet)", r.Dir))
		case questionSet(r.Config) != questionSet(ref.Config):
			res.Notes = append(res.Notes, fmt.Sprintf("skipped %s: question set %s differs from the reference's %s", r.Dir, questionSet(r.Config), questionSet(ref.Config)))
		case inRange[r.K]:
			byK[r.K] = append(byK[r.K], r)
		}
	}
	means := map[int]float64{}
	for _, k := range q.Ks {
		rs, ok := byK[k]
		if !ok {
			res.Missing = append(res.Missing, k)
			continue
		}
		r := latest(rs)
		if len(rs) > 1 {
			res.Notes = append(res.Notes, fmt.Sprintf("%d runs of %s at k=%d; using the most recently finished, %s", len(rs), q.Candidate, k, r.Dir))
		}
		means[k] = r.Tokens.Mean
		res.Rows = append(res.Rows, KStarRow{K: k, Mean: r.Tokens.Mean, N: r.Tokens.N, Diff: math.Abs(r.Tokens.Mean - ref.Tokens.Mean), RunDir: r.Dir})
	}
	// The reference and the matched runs must be made the same way: the
	// embedder and the backends decide what is retrieved and its tokens.
	used := []runlog.Side{{Label: ref.Dir, Manifest: &ref.Manifest}}
	for i := range refs {
		if refs[i].Dir != ref.Dir {
			used = append(used, runlog.Side{Label: refs[i].Dir, Manifest: &refs[i].Manifest})
		}
	}
	var offline []string
	for _, row := range res.Rows {
		for i := range runs {
			if runs[i].Dir == row.RunDir {
				used = append(used, runlog.Side{Label: runs[i].Dir, Manifest: &runs[i].Manifest})
			}
		}
	}
	for _, sd := range used {
		if off := sd.Manifest.OfflineList(); len(off) > 0 {
			offline = append(offline, sd.Label+": "+strings.Join(off, ", "))
		}
	}
	mixed, err := runlog.CheckComparable(used, q.AllowMixed)
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
	base := ref.Config
	if template != nil {
		base = template.Config
	}
	for _, k := range res.Missing {
		res.Commands = append(res.Commands, RunCommand(base, q.Candidate, k, q.ResultsDir))
	}
	return res, nil
}

func latest(rs []RunTokens) RunTokens {
	best := rs[0]
	for _, r := range rs[1:] {
		if r.Finished.After(best.Finished) {
			best = r
		}
	}
	return best
}

func questionSet(c runlog.Config) string {
	return fmt.Sprintf("dataset=%s data=%s conversations=%s limit=%d", c.Dataset, c.Data, strings.Join(c.Conversations, ","), c.Limit)
}

// RunCommand is the `membench run` command line reproducing base's
// output-relevant settings for system at budget k.
func RunCommand(base runlog.Config, system string, k int, resultsDir string) string {
	args := []string{"membench", "run", "--system", system, "--k", strconv.Itoa(k)}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, shellQuote(v))
		}
	}
	add("--dataset", base.Dataset)
	add("--data", base.Data)
	add("--conversations", strings.Join(base.Conversations, ","))
	if base.Limit > 0 {
		add("--limit", strconv.Itoa(base.Limit))
	}
	if base.TurnStep != 0 && base.TurnStep != 30*time.Second {
		add("--turn-step", base.TurnStep.String())
	}
	if base.System == system {
		var keys []string
		for key := range base.Options {
			if key != "k" {
				keys = append(keys, key)
			}
		}
		sort.Strings(keys)
		for _, key := range keys {
			add("--opt", key+"="+base.Options[key])
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
	if w := runlog.MixedWarning(r.Mixed); w != "" {
		t.Notes = append([]string{w}, t.Notes...)
	}
	if len(r.Missing) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("missing k (%d): %s; to measure them:", len(r.Missing), intList(r.Missing)))
		for _, c := range r.Commands {
			t.Notes = append(t.Notes, "  "+c)
		}
	}
	return t
}

// intList writes ascending ints compactly: 1-3,7,9-12.
func intList(ks []int) string {
	var parts []string
	for i := 0; i < len(ks); {
		j := i
		for j+1 < len(ks) && ks[j+1] == ks[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ks[i], ks[j]))
		} else {
			parts = append(parts, strconv.Itoa(ks[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
