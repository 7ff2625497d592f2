// Package view is `membench view`: a local web app (and a one-file HTML
// export) for reading runs question by question: run facts and score
// tables, a question browser, each question's conversation, context,
// answer and verdicts, two runs side by side, and costs.
//
// Everything the pages show is one Bundle built from the run directories
// through runlog (and datasets for the conversation text); the pages are
// rendered in the browser by a small embedded script, so the server and the
// exported file show the same views.
package view

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/names"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/summary"
)

// Bundle is everything the pages show.
type Bundle struct {
	Generated string           `json:"generated"`
	Runs      []*RunView       `json:"runs"`
	Groups    []*GroupView     `json:"groups"`
	Convs     map[string]*Conv `json:"convs"` // key: dataset sha prefix + "/" + conversation id
	Pairs     []*Pair          `json:"pairs"`
	// MaxPairRuns is the most runs whose every pair is made.
	MaxPairRuns int `json:"max_pair_runs"`
}

// GroupView is one group of comparable runs (analysis.Groups): the
// landing page gives each its own table.
type GroupView struct {
	Name    string `json:"name"`    // dataset, questions, primary judge, answer key
	Dataset string `json:"dataset"` // the dataset's name, which tells runs of several groups apart
	Runs    []int  `json:"runs"`    // indices into Bundle.Runs
}

// RunView is one run as the pages show it.
type RunView struct {
	ID       string      `json:"id"`
	Dir      string      `json:"dir"`
	Label    string      `json:"label"` // system and what sets the run apart from the others of its group
	Group    int         `json:"group"` // index into Bundle.Groups
	Head     *Headline   `json:"head"`
	NQ       int         `json:"nq"` // answered questions (Qs is left out of the page's first data)
	System   string      `json:"system"`
	Dataset  string      `json:"dataset"`
	Offline  bool        `json:"offline"`
	Complete bool        `json:"complete"`
	Facts    [][2]string `json:"facts"`
	Judges   []JudgeCol  `json:"judges"`
	Primary  string      `json:"primary"`
	Table    []Row       `json:"table"`
	Costs    []CostRow   `json:"costs"`
	// BuildTime is the run's build time as summary.md and report give it
	// (summary.BuildTime); "" when nothing was built (scored predictions).
	BuildTime string   `json:"build_time,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Latency   *Latency `json:"latency,omitempty"`
	Qs        []*Q     `json:"qs"`
	// Chunks names the transcript chunks (one per conversation): the
	// pages load a chunk's transcripts only when a question needs them,
	// so the question browser is interactive before they are read.
	Chunks []string `json:"chunks"`
}

// Latency is the mean seconds per question from the transcripts.
type Latency struct {
	N        int                `json:"n"`
	Retrieve float64            `json:"retrieve"`
	Answer   float64            `json:"answer"`
	Judges   map[string]float64 `json:"judges"`
}

// JudgeCol is one judge column.
type JudgeCol struct {
	Name   string `json:"name"`
	Metric bool   `json:"metric"`
	Desc   string `json:"desc,omitempty"`
}

// Row is one line of the score table: a category (or type) or overall.
type Row struct {
	Name  string          `json:"name"`
	N     int             `json:"n"`
	Cells map[string]Cell `json:"cells"`
}

// Cell is a judge's score on a row with its 95% interval, ×100: Wilson
// for verdict judges' accuracy; for metric judges' mean a
// conversation-cluster bootstrap with 5 or more conversations, else
// Wilson over questions (stats.MeanCI). CI names the method.
type Cell struct {
	V  float64 `json:"v"`
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	N  int     `json:"n"`
	CI string  `json:"ci,omitempty"`
}

// MinClusters is the fewest conversations a bootstrap over conversations
// resamples; below it metric judges' intervals are Wilson's over questions.
const MinClusters = 5

// CostRow is one stage's model use (from the run's summary).
type CostRow struct {
	Stage   string  `json:"stage"`
	Calls   int     `json:"calls"`
	Cached  int     `json:"cached"`
	In      int     `json:"in"`
	Out     int     `json:"out"`
	Seconds float64 `json:"seconds"`
}

// Q is one answered question of one run.
type Q struct {
	ID    string       `json:"id"`
	Conv  string       `json:"conv"`
	Cat   int          `json:"cat"`
	Group string       `json:"group"`
	Abs   bool         `json:"abs,omitempty"`
	Text  string       `json:"q"`
	Gold  string       `json:"gold"`
	Pred  string       `json:"pred"`
	Tok   int          `json:"tok"`
	Ev    []string     `json:"ev,omitempty"`
	Hit   int          `json:"hit"`
	V     map[string]V `json:"v"`
	Ret   []string     `json:"ret,omitempty"` // source turns of the retrieved items, when no transcript has them
	Chunk int          `json:"tk"`            // index into RunView.Chunks
	// Tx is the question's transcript once loaded (LoadTranscripts, or a
	// chunk the server or an export reads); Build only indexes them, so a
	// view of runs with large transcripts starts at once.
	Tx *runlog.Transcript `json:"tx,omitempty"`

	heads []runlog.TranscriptHead // where its transcript records lie
	dir   string                  // the run directory they are in
}

// loadChunk reads the transcripts of qs (one conversation of one run) at
// their offsets, keeping any already loaded.
func loadChunk(qs []*Q) error {
	var heads []runlog.TranscriptHead
	dir := ""
	for _, q := range qs {
		if q.Tx == nil {
			heads = append(heads, q.heads...)
			if len(q.heads) > 0 {
				dir = q.dir
			}
		}
	}
	if len(heads) == 0 {
		return nil
	}
	txs, err := runlog.ReadTranscriptsAt(dir, heads)
	if err != nil {
		return err
	}
	by := map[string]*runlog.Transcript{}
	for i := range txs {
		by[txs[i].QuestionID] = &txs[i]
	}
	for _, q := range qs {
		if q.Tx == nil {
			q.Tx = by[q.ID]
		}
	}
	return nil
}

// LoadTranscripts reads every question's transcript (an export needs
// them all; the server reads a conversation's when a page asks for it).
func (b *Bundle) LoadTranscripts() error {
	for _, r := range b.Runs {
		for _, qs := range r.chunkQs() {
			if err := loadChunk(qs); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkQs lists each chunk's questions in question order.
func (r *RunView) chunkQs() [][]*Q {
	out := make([][]*Q, len(r.Chunks))
	for _, q := range r.Qs {
		out[q.Chunk] = append(out[q.Chunk], q)
	}
	return out
}

// V is one judge's verdict.
type V struct {
	C bool    `json:"c"`
	S float64 `json:"s"`
	R string  `json:"r,omitempty"`
	// Raw is the judge's raw reply, only when no transcript carries it.
	Raw string `json:"raw,omitempty"`
}

// Conv is a conversation's text.
type Conv struct {
	ID       string   `json:"id"`
	Speakers []string `json:"speakers"`
	Sessions []Sess   `json:"sessions"`
}

// Sess is one session: id, date and turns as [id, speaker, text].
type Sess struct {
	ID    string      `json:"id"`
	Date  string      `json:"date"`
	Turns [][3]string `json:"turns"`
}

// Pair is two runs compared by one judge as `membench compare` pairs
// them (analysis.PairSources and analysis.Compare, with compare's default
// exclusions): McNemar's four cells, each a list of question ids, and
// compare's result.
type Pair struct {
	A     int                 `json:"a"`
	B     int                 `json:"b"`
	Judge string              `json:"judge"`
	Cells map[string][]string `json:"cells"` // both, a, b, neither
	N     int                 `json:"n"`
	P     float64             `json:"p"`
	// Default marks the judge compare uses when none is named.
	Default bool                    `json:"default,omitempty"`
	Result  *analysis.CompareResult `json:"result,omitempty"` // as compare --json prints it
	Exclude []string                `json:"exclude"`
	Notes   []string                `json:"notes,omitempty"`
	Mixed   []string                `json:"mixed,omitempty"`
	// Error is why compare cannot pair the runs under this judge.
	Error string `json:"error,omitempty"`
}

// Options are where to find the datasets and what models cost.
type Options struct {
	Home   string        // MEMBENCH_HOME, for fetched dataset files
	Prices *prices.Table // nil: prices.Default()

	progress func() // called as each run is read (Start counts them)
	packing  func() // a test's hook: called by Start between the landing data and packing the questions
}

// MaxPairRuns caps the runs whose every pair gets an A/B page: pairs grow
// with the square of the runs. A view of more runs pairs runs of one
// group only, and in a group of more runs than this only its first run
// with each other.
const MaxPairRuns = 8

// Build loads the runs and everything the pages need.
func Build(dirs []string, opt Options) (*Bundle, error) {
	b := &Bundle{Generated: time.Now().UTC().Format(time.RFC3339), Convs: map[string]*Conv{}, Pairs: []*Pair{}, MaxPairRuns: MaxPairRuns}
	if opt.Prices == nil {
		opt.Prices = prices.Default()
	}
	ms := make([]runlog.Manifest, len(dirs))
	ids := make([]string, len(dirs))
	b.Runs = make([]*RunView, len(dirs))
	// compare's sources, from each run's one read: a run without verdicts
	// has no A/B page.
	srcs := make([]*analysis.Source, len(dirs))
	// Runs are read side by side; conversations are added once per
	// dataset file, which the first run of it reads.
	convs := &convCache{files: map[string]*convFile{}}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, d := range dirs {
		g.Go(func() error {
			rv, r, err := loadRun(d, b, convs, opt)
			if err != nil {
				return err
			}
			b.Runs[i], ms[i], ids[i] = rv, r.Manifest, rv.ID
			if len(rv.Judges) > 0 {
				srcs[i] = analysis.SourceOf(r)
			}
			if opt.progress != nil {
				opt.progress()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for n, gr := range analysis.Groups(ms, ids) {
		gv := &GroupView{Name: gr.Name, Dataset: ms[gr.Runs[0]].Dataset, Runs: gr.Runs}
		for k, i := range gr.Runs {
			b.Runs[i].Label, b.Runs[i].Group = gr.Labels[k], n
		}
		b.Groups = append(b.Groups, gv)
	}
	pairs := pairsToMake(b)
	made := make([][]*Pair, len(pairs))
	for n, p := range pairs {
		g.Go(func() error {
			made[n] = comparePairs(srcs, b.Runs, p[0], p[1])
			return nil
		})
	}
	g.Wait()
	// Appended to the empty list, not assigned: no pairs is [] in the page's data, never null.
	b.Pairs = append(b.Pairs, slices.Concat(made...)...)
	return b, nil
}

// pairsToMake lists the runs paired on A/B pages: every pair of a view of
// up to MaxPairRuns runs; beyond, the pairs within each group (a group's
// first run with each other when it holds more than MaxPairRuns).
func pairsToMake(b *Bundle) [][2]int {
	var out [][2]int
	if len(b.Runs) <= MaxPairRuns {
		for i := range b.Runs {
			for j := i + 1; j < len(b.Runs); j++ {
				out = append(out, [2]int{i, j})
			}
		}
		return out
	}
	for _, g := range b.Groups {
		for x, i := range g.Runs {
			for _, j := range g.Runs[x+1:] {
				if x > 0 && len(g.Runs) > MaxPairRuns {
					break
				}
				out = append(out, [2]int{min(i, j), max(i, j)})
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	return out
}

// convCache reads each dataset file's conversations into the bundle
// once, however many runs read it, and keeps the note of a file that
// could not be read.
type convCache struct {
	mu    sync.Mutex // guards files and the bundle's Convs
	files map[string]*convFile
}

type convFile struct {
	once sync.Once
	note string
}

func loadRun(dir string, b *Bundle, convs *convCache, opt Options) (*RunView, *runlog.Run, error) {
	r, err := analysis.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	heads, err := runlog.IndexTranscripts(dir)
	if err != nil {
		return nil, nil, err
	}
	// Per question: its records in file order, and what they add up to
	// (a full record resets, a judge part adds or replaces judges), for the
	// latency panel and to know which judges' replies the transcript holds.
	headsBy := map[string][]runlog.TranscriptHead{}
	sum := map[string]*txSum{}
	for _, h := range heads {
		headsBy[h.QuestionID] = append(headsBy[h.QuestionID], h)
		x := sum[h.QuestionID]
		if x == nil || h.Part == "" {
			x = &txSum{full: h.Part == "", retrieve: h.Retrieve, answer: h.Answer, judges: map[string]float64{}}
			sum[h.QuestionID] = x
		}
		for _, j := range h.Judges {
			x.judges[j.Judge] = j.Seconds
		}
	}
	m := r.Manifest
	rv := &RunView{ID: r.ID(), Dir: dir, System: m.Config.System, Dataset: m.Dataset, Offline: m.Offline, Primary: m.PrimaryJudge()}
	rv.Complete = !m.Finished.IsZero() && len(r.Answers) >= m.Questions
	for _, j := range m.Judges {
		col := JudgeCol{Name: j, Metric: m.JudgeSet().IsMetric(j)}
		for _, in := range m.JudgeSpecs {
			if in.Name == j {
				col.Desc = in.Description
				if in.Model != nil {
					col.Desc = strings.TrimSpace(col.Desc + " (" + in.Model.Backend + ":" + in.Model.Model + ")")
				}
			}
		}
		rv.Judges = append(rv.Judges, col)
	}
	full := 0
	for _, x := range sum {
		if x.full {
			full++
		}
	}
	rv.Facts = facts(r, full)
	if n := analysis.SyntheticNote(m); n != "" {
		rv.Notes = append(rv.Notes, n)
	}
	if off := m.OfflineList(); m.Offline || len(off) > 0 {
		what := "answers and judgments"
		if len(off) > 0 {
			what = strings.Join(off, ", ")
		}
		rv.Notes = append(rv.Notes, fmt.Sprintf("%s: %s come from the offline backend's deterministic heuristics; these numbers measure retrieval and the pipeline, not LLM quality", OfflineMark, what))
	}
	if len(heads) == 0 {
		rv.Notes = append(rv.Notes, "no transcripts.jsonl.gz (a run made before transcripts, or with --no-transcripts): contexts, requests and replies are not shown")
	} else if full < len(r.Answers) {
		rv.Notes = append(rv.Notes, fmt.Sprintf("transcripts for %d of %d answered questions", full, len(r.Answers)))
	}

	// The conversations, from the dataset file the manifest names.
	convKey := func(id string) string { return shortSHA(m.DatasetSHA256) + "/" + id }
	if note := convs.load(m, b, convKey, opt); note != "" {
		rv.Notes = append(rv.Notes, note)
	}

	retBy := map[string]runlog.RetrievalRecord{}
	for _, x := range r.Retrievals {
		retBy[x.QuestionID] = x
	}
	vBy := map[string]map[string]V{}
	for _, j := range r.Judgments {
		if vBy[j.QuestionID] == nil {
			vBy[j.QuestionID] = map[string]V{}
		}
		vBy[j.QuestionID][j.Judge] = V{C: j.Correct, S: j.Score, R: j.Reason, Raw: j.Raw}
	}
	for _, a := range r.Answers {
		q := &Q{ID: a.QuestionID, Conv: convKey(a.ConversationID), Cat: a.Category, Group: a.Group, Abs: a.Abstains(),
			Text: a.Question, Gold: a.Gold, Pred: a.Prediction, Tok: a.ContextTokens, V: vBy[a.QuestionID]}
		if q.V == nil {
			q.V = map[string]V{}
		}
		if x, ok := retBy[a.QuestionID]; ok {
			q.Ev, q.Hit = x.Evidence, x.EvidenceHit
			q.Ret = sourcesOf(x.Items)
		}
		if x := sum[a.QuestionID]; x != nil {
			q.heads, q.dir = headsBy[a.QuestionID], dir
			if x.full {
				// The page marks retrieved turns from the transcript's items;
				// a whole-conversation context would repeat every turn id
				// for every question in the index.
				q.Ret = nil
			}
			// The transcript carries its judges' raw replies already; judges
			// it lacks keep theirs from judgments.jsonl.
			for j := range x.judges {
				if v, ok := q.V[j]; ok {
					v.Raw = ""
					q.V[j] = v
				}
			}
		}
		rv.Qs = append(rv.Qs, q)
	}
	slices.SortStableFunc(rv.Qs, func(a, b *Q) int { return names.Compare(a.ID, b.ID) })
	chunk := map[string]int{}
	for _, q := range rv.Qs {
		k, ok := chunk[q.Conv]
		if !ok {
			k = len(rv.Chunks)
			chunk[q.Conv] = k
			rv.Chunks = append(rv.Chunks, q.Conv)
		}
		q.Chunk = k
	}
	rv.Latency = latency(rv.Qs, sum)
	rv.Table = table(rv)
	rv.Costs = costs(r.Summary)
	if len(r.Builds) > 0 && r.Summary != nil {
		rv.BuildTime = summary.BuildTime(r.Summary)
	}
	rv.NQ = len(rv.Qs)
	bill, err := prices.ForRun(dir, opt.Prices)
	if err != nil {
		rv.Notes = append(rv.Notes, fmt.Sprintf("no bill in dollars: %v", err))
		bill = nil
	}
	rv.Head = headline(rv, m, bill)
	return rv, r, nil
}

// txSum is what a question's transcript records say of its timing.
type txSum struct {
	full             bool // a full record, not only judges added later
	retrieve, answer float64
	judges           map[string]float64
}

func latency(qs []*Q, sum map[string]*txSum) *Latency {
	l := &Latency{Judges: map[string]float64{}}
	for _, q := range qs {
		x := sum[q.ID]
		if x == nil || !x.full {
			continue
		}
		l.N++
		l.Retrieve += x.retrieve
		l.Answer += x.answer
		for j, secs := range x.judges {
			l.Judges[j] += secs
		}
	}
	if l.N == 0 {
		return nil
	}
	n := float64(l.N)
	l.Retrieve /= n
	l.Answer /= n
	for k := range l.Judges {
		l.Judges[k] /= n
	}
	return l
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "nodata"
	}
	return s
}

// load adds the run's conversations to the bundle (once per dataset
// file) and returns a note when they cannot be shown.
func (cc *convCache) load(m runlog.Manifest, b *Bundle, convKey func(string) string, opt Options) string {
	if m.Config.Dataset == "" {
		return "the manifest names no dataset: the conversation is not shown"
	}
	c := m.Config
	// What datasets.Load reads, and the hash the run recorded.
	key := fmt.Sprint(c.Dataset, "\x00", c.Data, "\x00", c.TurnStep, "\x00", c.Seed, "\x00", c.BaseData, "\x00", m.DatasetSHA256)
	cc.mu.Lock()
	f := cc.files[key]
	if f == nil {
		f = &convFile{}
		cc.files[key] = f
	}
	cc.mu.Unlock()
	f.once.Do(func() { f.note = cc.read(m, b, convKey, opt) })
	return f.note
}

// read adds the conversations of the run's dataset file to the bundle
// and returns a note when they cannot be shown.
func (cc *convCache) read(m runlog.Manifest, b *Bundle, key func(string) string, opt Options) string {
	ds, err := datasets.Load(m.Config.Dataset, m.Config.Data, datasets.LoadOptions{TurnStep: m.Config.TurnStep, Home: opt.Home, Seed: m.Config.Seed, BaseData: m.Config.BaseData})
	if err != nil {
		return fmt.Sprintf("conversation text unavailable: %v", err)
	}
	if m.DatasetSHA256 != "" && ds.SHA256 != m.DatasetSHA256 {
		return fmt.Sprintf("conversation text unavailable: the dataset file %s changed since the run (sha256 %.12s, now %.12s)", m.Config.Data, m.DatasetSHA256, ds.SHA256)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, c := range ds.Conversations {
		k := key(c.ID)
		if _, ok := b.Convs[k]; ok {
			continue
		}
		cv := &Conv{ID: c.ID, Speakers: c.Speakers}
		for _, s := range c.Sessions {
			ss := Sess{ID: s.ID, Date: s.RawTime}
			if ss.Date == "" && !s.Time.IsZero() {
				ss.Date = s.Time.Format("2 January 2006 15:04")
			}
			for _, t := range s.Turns {
				ss.Turns = append(ss.Turns, [3]string{t.ID, t.Speaker, t.Text})
			}
			cv.Sessions = append(cv.Sessions, ss)
		}
		b.Convs[k] = cv
	}
	return ""
}

func sourcesOf(items []membench.ItemRef) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, s := range it.Sources {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func facts(r *runlog.Run, ntx int) [][2]string {
	m := r.Manifest
	c := m.Config
	var out [][2]string
	// Values from manifests written before URL credentials were removed
	// whole (the user name stayed) are redacted again here.
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, llm.RedactText(v)})
		}
	}
	add("run id", r.ID())
	add("directory", r.Dir)
	add("system", c.System)
	if len(c.Options) > 0 {
		var kv []string
		for k, v := range c.Options {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(kv)
		add("options", strings.Join(kv, " "))
	}
	if c.K > 0 {
		add("k", fmt.Sprint(c.K))
	}
	ds := m.Dataset
	if m.DatasetSource != "" {
		ds += " (" + m.DatasetSource + ")"
	}
	add("dataset", ds)
	add("questions", fmt.Sprintf("%d answered of %d, %d conversations", len(r.Answers), m.Questions, m.Conversations))
	if len(r.Builds) > 0 && r.Summary != nil {
		add("build time", summary.BuildTime(r.Summary))
	}
	emb := m.Embedder
	if m.EmbedderNote != "" {
		emb += " — " + m.EmbedderNote
	}
	add("embedder", emb)
	var ms []string
	for _, role := range slices.Sorted(maps.Keys(m.Models)) {
		id := m.Models[role]
		ms = append(ms, fmt.Sprintf("%s=%s:%s", role, id.Backend, id.Model))
	}
	add("models", strings.Join(ms, " "))
	add("judges", strings.Join(m.Judges, ", "))
	if m.Offline {
		add("backend", "offline (deterministic heuristics)")
	} else {
		add("backend", "model backend")
	}
	state := "incomplete"
	if !m.Finished.IsZero() && len(r.Answers) >= m.Questions {
		state = "complete"
	}
	add("state", state)
	add("started", m.Started.Format(time.RFC3339))
	if !m.Finished.IsZero() {
		add("finished", m.Finished.Format(time.RFC3339))
	}
	add("membench", strings.TrimSpace(m.Membench+" "+m.GitCommit[:min(12, len(m.GitCommit))]))
	add("transcripts", fmt.Sprintf("%d questions", ntx))
	if r.Summary != nil && r.Summary.ContextTokens.N > 0 {
		t := r.Summary.ContextTokens
		add("context tokens", fmt.Sprintf("mean %.0f, min %d, max %d", t.Mean, t.Min, t.Max))
		add("evidence recall", fmt.Sprintf("%.1f%%", 100*r.Summary.EvidenceRecall))
	}
	return out
}

// table is the per-group score table, the same groups as the summary
// (overall leaves out abstention questions, as the papers score it).
func table(rv *RunView) []Row {
	groups := map[string][]*Q{}
	var order []string
	var overall []*Q
	for _, q := range rv.Qs {
		if _, ok := groups[q.Group]; !ok {
			order = append(order, q.Group)
		}
		groups[q.Group] = append(groups[q.Group], q)
		if !q.Abs {
			overall = append(overall, q)
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(groups[a][0].Cat, groups[b][0].Cat), strings.Compare(a, b))
	})
	var rows []Row
	for _, g := range order {
		rows = append(rows, row(g, groups[g], rv.Judges))
	}
	return append(rows, row("overall", overall, rv.Judges))
}

func row(name string, qs []*Q, judges []JudgeCol) Row {
	r := Row{Name: name, N: len(qs), Cells: map[string]Cell{}}
	for _, j := range judges {
		var vals []float64
		var clusters []string
		correct, sum := 0, 0.0
		for _, q := range qs {
			v, ok := q.V[j.Name]
			if !ok {
				continue
			}
			vals = append(vals, v.S)
			sum += v.S
			clusters = append(clusters, q.Conv)
			if v.C {
				correct++
			}
		}
		if len(vals) == 0 {
			continue
		}
		var c Cell
		c.N = len(vals)
		if j.Metric {
			c.V = 100 * sum / float64(len(vals))
			if lo, hi, method, err := stats.MeanCI(vals, clusters, 1000, 0.95, stats.NewRand(1)); err == nil {
				c.Lo, c.Hi, c.CI = 100*lo, 100*hi, method
			} else {
				c.Lo, c.Hi = c.V, c.V
			}
		} else {
			c.V = 100 * float64(correct) / float64(len(vals))
			if lo, hi, err := stats.Wilson(correct, len(vals), 0.95); err == nil {
				c.Lo, c.Hi, c.CI = 100*lo, 100*hi, "Wilson over questions"
			}
		}
		r.Cells[j.Name] = c
	}
	return r
}

func costs(s *runlog.Summary) []CostRow {
	if s == nil {
		return nil
	}
	var out []CostRow
	for _, k := range slices.Sorted(maps.Keys(s.Stages)) {
		v := s.Stages[k]
		out = append(out, CostRow{Stage: k, Calls: v.Calls, Cached: v.CachedCalls, In: v.InputTokens, Out: v.OutputTokens, Seconds: v.Seconds})
	}
	return out
}

// ListRuns describes the run directories under root, for `view` without --run.
func ListRuns(root string) ([][4]string, error) {
	dirs, err := runlog.DirsUnder(root)
	if err != nil {
		return nil, err
	}
	var out [][4]string
	for _, d := range dirs {
		m, err := runlog.LoadManifest(d)
		if err != nil {
			out = append(out, [4]string{d, "?", "?", err.Error()})
			continue
		}
		state := "incomplete"
		if !m.Finished.IsZero() {
			state = "finished"
		}
		rel, _ := filepath.Rel(".", d)
		if rel == "" {
			rel = d
		}
		out = append(out, [4]string{rel, m.Config.System, fmt.Sprintf("%s, %d questions", m.Dataset, m.Questions), state})
	}
	return out, nil
}

// Arrange orders the runs of a results folder as its landing page shows
// them: by group of comparable runs (analysis.Groups: most runs first),
// each group as report orders it (system, then k, then id). It returns
// the groups of the ordered list; only the manifests are read.
func Arrange(dirs []string) ([]string, []analysis.Group, error) {
	runs := make([]*runlog.Run, len(dirs))
	for i, d := range dirs {
		m, err := runlog.LoadManifest(d)
		if err != nil {
			return nil, nil, err
		}
		runs[i] = &runlog.Run{Dir: d, Manifest: m}
	}
	analysis.SortRuns(runs)
	var ordered []*runlog.Run
	var out []string
	for _, g := range analysis.GroupRuns(runs) {
		for _, i := range g.Runs {
			ordered = append(ordered, runs[i])
			out = append(out, runs[i].Dir)
		}
	}
	return out, analysis.GroupRuns(ordered), nil
}
