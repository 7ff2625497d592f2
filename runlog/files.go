// Package runlog is the run log: the artifacts one run directory holds
// (manifest, records, summary), the one appender that writes them, readers
// that keep the last line per key, and atomic writes. Every package that
// reads runs reads them through runlog, never through the engine.
// The run's vocabulary it records (config, model use, items, judge
// classes) is the root package's (membench); runlog is its store.
package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/jsonl"
)

// Artifact file names inside a run directory.
const (
	ManifestFile   = "manifest.json"
	BuildFile      = "build.jsonl"
	RetrievalsFile = "retrievals.jsonl"
	AnswersFile    = "answers.jsonl"
	JudgmentsFile  = "judgments.jsonl"
	CostsFile      = "costs.jsonl"
	MemoryFile     = "memory.jsonl"  // systems that can dump their memory (structmem)
	RepliesFile    = "replies.jsonl" // every paid model reply and paid embedding, for bundles
	SummaryJSON    = "summary.json"
	SummaryMD      = "summary.md"
)

// Manifest records how a run was made.
type Manifest struct {
	// Schema is the manifest layout's major version (ManifestSchema when
	// written); 0 in manifests written before it was recorded.
	Schema        int             `json:"schema,omitempty"`
	Membench      string          `json:"membench"`
	GitCommit     string          `json:"git_commit,omitempty"`
	GitDirty      bool            `json:"git_dirty,omitempty"`    // the tree had uncommitted changes
	VersionFrom   string          `json:"version_from,omitempty"` // "build" (VCS stamp) or "checkout" (git at run time; the build had no stamp)
	RunID         string          `json:"run_id"`
	ConfigHash    string          `json:"config_hash"`
	Config        membench.Config `json:"config"`
	Dataset       string          `json:"dataset"`
	DatasetSource string          `json:"dataset_source"`
	DatasetSHA256 string          `json:"dataset_sha256"`
	// Synthetic: the dataset file came from `membench datasets synth`;
	// every figure computed from the run says SYNTHETIC (SyntheticNote).
	Synthetic bool `json:"synthetic,omitempty"`
	// Peer: the run is another system's published results (`membench
	// peers import`), so its models, embedder and prompts are part of
	// the system under test rather than settings a comparison holds
	// equal (ImportedPeer).
	Peer          bool                        `json:"peer,omitempty"`
	Conversations int                         `json:"conversations"`
	Questions     int                         `json:"questions"`
	Prompts       map[string]string           `json:"prompts"`
	Embedder      string                      `json:"embedder"`
	EmbedderNote  string                      `json:"embedder_note,omitempty"`
	Models        map[string]membench.ModelID `json:"models"`
	Judges        []string                    `json:"judges"`
	// JudgeSpecs describes every judge in Judges in full (kind, model,
	// prompt hashes, threshold), including judges added later by
	// `membench judge` and `membench grade`.
	JudgeSpecs []membench.JudgeInfo `json:"judge_specs,omitempty"`
	// Primary is the judge a reader uses when none is named, as the
	// writer chose it (PrimaryJudge); empty in manifests written before
	// it was recorded, which PrimaryJudge reads by its rule.
	Primary string `json:"primary_judge,omitempty"`
	// DatasetGroups are the dataset's question groups in the order its
	// spec gives them, with which abstain, so a reader orders and scores
	// the groups without knowing the dataset. Manifests written before
	// they were recorded have none (readers fall back on legacyLoCoMo).
	DatasetGroups []DatasetGroup `json:"dataset_groups,omitempty"`
	// Offline is true only when every model role and every model judge
	// is the offline backend; OfflineParts names the ones that are (so a
	// run with a real judge and offline roles says what is offline).
	Offline      bool     `json:"offline"`
	OfflineParts []string `json:"offline_parts,omitempty"`
	// SystemOptions are the system's options after its defaults, with
	// --k as "k" when given: what the system really ran with.
	SystemOptions membench.Options `json:"system_options,omitempty"`
	// FollowedOptions name the SystemOptions whose value follows from
	// another option rather than being set or defaulted (StructMem's clock
	// under granularity=buffer512), so comparisons count the option they
	// follow, not both.
	FollowedOptions []string `json:"followed_options,omitempty"`
	// EmbedderSHA256 hashes the embedder's model files (USE-lite); empty
	// for embedders defined by code and name alone (hashed, remote).
	EmbedderSHA256 string `json:"embedder_sha256,omitempty"`
	// QuestionSetSHA256 hashes the questions actually run (after
	// --conversations and --limit): ids, texts and gold answers in order.
	QuestionSetSHA256 string    `json:"question_set_sha256,omitempty"`
	TurnStep          string    `json:"turn_step,omitempty"` // as a duration string, e.g. "30s"
	Status            *Status   `json:"status,omitempty"`
	Started           time.Time `json:"started"`
	Finished          time.Time `json:"finished,omitempty"`
	// Replay says the run was reproduced from a bundle.
	Replay *ReplayInfo `json:"replay,omitempty"`
	// RenderedTokens summarises context sizes, so kstar reads them without re-running.
	RenderedTokens *TokenStats `json:"rendered_tokens,omitempty"`
	// MaxBuildFailures is the failed share of build requests above which
	// the run counts as degraded (0 = DefaultMaxBuildFailures).
	MaxBuildFailures float64 `json:"max_build_failures,omitempty"`
	// Shard is set on a shard's run (--shard I/N); MergedFrom on a run
	// that `membench merge` assembled from shards (their run ids).
	Shard      *ShardInfo `json:"shard,omitempty"`
	MergedFrom []string   `json:"merged_from,omitempty"`
	// CacheDamaged counts cache entries that failed their checksum while
	// this run read them (summed over its attempts); each was recomputed.
	CacheDamaged *CacheDamage `json:"cache_damaged,omitempty"`

	// AnswerKey is the answer key the run's gold answers come from (nil:
	// the dataset's own); ImageQuestionsExcluded counts image-dependent
	// questions left out (--exclude-image-questions).
	AnswerKey              *AnswerKeyInfo `json:"answer_key,omitempty"`
	ImageQuestionsExcluded int            `json:"image_questions_excluded,omitempty"`

	// PaperPrompts is how the run's prompts stand against the paper's its
	// config pins (nil: the config pins none); its Label goes beside every
	// figure of the run.
	PaperPrompts *membench.PromptCheck `json:"paper_prompts,omitempty"`
}

// AnswerKeyInfo is the answer key of a run as its manifest records it.
type AnswerKeyInfo struct {
	Key             string `json:"key"` // "NAME sha256:HEX" (answerkey.Key.ID)
	AnswerChanged   int    `json:"answer_changed"`
	EvidenceChanged int    `json:"evidence_changed"`
	Excluded        int    `json:"excluded"` // ambiguous questions left out of scoring
}

// AppliedKey is the answer key the run applied ("" for none); what a run
// without one was judged under is the dataset's to say (datasets.KeyID).
func (m Manifest) AppliedKey() string {
	if m.AnswerKey == nil {
		return ""
	}
	return m.AnswerKey.Key
}

// DatasetGroup is one group of a run's questions (datasets.GroupSpec as
// the manifest records it).
type DatasetGroup struct {
	Name     string `json:"name"`
	Abstains bool   `json:"abstains,omitempty"`
}

// GroupLess orders group names as the run's dataset lists them (legacy
// runs: LoCoMo's category order), names it does not list after, by name.
func (m Manifest) GroupLess(a, b string) bool {
	order := m.DatasetGroups
	if len(order) == 0 {
		order = legacyLoCoMo
	}
	rank := func(name string) int {
		if i := slices.IndexFunc(order, func(g DatasetGroup) bool { return g.Name == name }); i >= 0 {
			return i
		}
		return len(order)
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

// CacheDamage counts damaged cache entries by cache.
type CacheDamage struct {
	LLM        int64 `json:"llm"`
	Embeddings int64 `json:"embeddings"`
	Tokens     int64 `json:"tokens,omitempty"` // stored token counts
}

// Total is the damaged entries of both caches.
func (d *CacheDamage) Total() int64 {
	if d == nil {
		return 0
	}
	return d.LLM + d.Embeddings + d.Tokens
}

// Add returns d plus e (nil when both are zero).
func (d *CacheDamage) Add(e *CacheDamage) *CacheDamage {
	out := CacheDamage{}
	for _, x := range []*CacheDamage{d, e} {
		if x != nil {
			out.LLM += x.LLM
			out.Embeddings += x.Embeddings
			out.Tokens += x.Tokens
		}
	}
	if out.Total() == 0 {
		return nil
	}
	return &out
}

// TokenStats summarises rendered context tokens over questions.
type TokenStats struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Min  int     `json:"min"`
	Max  int     `json:"max"`
}

// BuildRecord is one line of build.jsonl: one conversation's memory build.
type BuildRecord struct {
	ConversationID string  `json:"conversation_id"`
	System         string  `json:"system"`
	Turns          int     `json:"turns"`
	Calls          int     `json:"calls"`
	InputTokens    int     `json:"input_tokens"`
	OutputTokens   int     `json:"output_tokens"`
	Seconds        float64 `json:"seconds"` // wall time of Ingest
	// Started is when Ingest began, so the build phase's wall time can be
	// told from the per-conversation sum when conversations run in parallel.
	Started time.Time           `json:"started,omitzero"`
	Stages  []membench.Tally    `json:"stages"` // LLM build calls and the build's embedding work, by role, stage and label
	Stats   membench.BuildStats `json:"stats"`
	// EmptyMemory says why the system's declared memory came out empty
	// (systems.MemoryRule.Empty): the build is degraded and redone on resume.
	EmptyMemory string `json:"empty_memory,omitempty"`
}

// RetrievalRecord is one line of retrievals.jsonl.
type RetrievalRecord struct {
	QuestionID     string             `json:"question_id"`
	ConversationID string             `json:"conversation_id"`
	System         string             `json:"system"`
	K              int                `json:"k"`
	Tokens         int                `json:"tokens"`
	Items          []membench.ItemRef `json:"items"`
	Candidates     []membench.ItemRef `json:"candidates,omitempty"`
	Evidence       []string           `json:"evidence"`
	EvidenceHit    int                `json:"evidence_hit"` // evidence ids found in the items' sources
	ContextSHA256  string             `json:"context_sha256"`
	Seconds        float64            `json:"seconds"`
	Notes          map[string]any     `json:"notes,omitempty"`
}

// CostRecord is one line of costs.jsonl: every model call one attempt made
// for one conversation (build, retrieve, answer, judge), by role and label.
type CostRecord struct {
	ConversationID string           `json:"conversation_id"`
	System         string           `json:"system"`
	At             time.Time        `json:"at"`
	Tallies        []membench.Tally `json:"tallies"`
	// QuestionID and Part name the work the tallies paid for: "build",
	// "answer" (a question's retrieval and answer) or "judge:NAME". Such a
	// record is written just before the record it pays for (build.jsonl,
	// answers.jsonl, judgments.jsonl line), and readers keep the last one
	// per (conversation, question, part): work redone after a kill
	// replaces its record instead of adding to it (Summary.Redone counts
	// the replaced ones). Records without a part add up.
	QuestionID string `json:"question_id,omitempty"`
	Part       string `json:"part,omitempty"`
	// Redone marks usage no result rests on: a memory rebuilt on resume
	// (memory is not saved), a build that failed part way.
	Redone bool `json:"redone,omitempty"`
	// Attempt names one build attempt. Partial marks a line the build
	// wrote while it ran: the calls since the attempt's previous partial
	// line (written every 8 calls or second, so a kill -9 loses only the
	// calls since the last one). The line that closes the attempt (its "build" line,
	// or the redone line of a build that failed or was stopped) holds all
	// its calls, so readers drop its partial lines; the partial lines of an
	// attempt never closed (killed mid-build) are usage no result rests
	// on, counted with the redone ones.
	Attempt string `json:"attempt,omitempty"`
	Partial bool   `json:"partial,omitempty"`
}

// Key is the (conversation, question, part) a keyed cost record pays for.
func (c CostRecord) Key() string { return c.ConversationID + "\x00" + c.QuestionID + "\x00" + c.Part }

// EffectiveCosts splits cost records into those the run's results rest on
// (the last keyed record per key, and unkeyed ones) and those of work
// done again or thrown away (Redone records, replaced keyed records, the
// partial records of a build attempt cut off by a kill). Partial records
// of an attempt whose closing record is there are in neither: that record
// counts the same calls. kept and redone together are every call made.
func EffectiveCosts(costs []CostRecord) (kept, redone []CostRecord) {
	last := make(map[string]int, len(costs))
	closed := map[string]bool{}
	if len(costs) > 0 {
		kept = make([]CostRecord, 0, len(costs))
	}
	for i, c := range costs {
		if c.Part != "" && !c.Redone && !c.Partial {
			last[c.Key()] = i
		}
		if c.Attempt != "" && !c.Partial {
			closed[c.Attempt] = true
		}
	}
	for i, c := range costs {
		if c.Partial {
			if !closed[c.Attempt] {
				redone = append(redone, c)
			}
			continue
		}
		if c.Redone || (c.Part != "" && last[c.Key()] != i) {
			redone = append(redone, c)
		} else {
			kept = append(kept, c)
		}
	}
	return kept, redone
}

// AnswerRecord is one line of answers.jsonl.
type AnswerRecord struct {
	QuestionID     string         `json:"question_id"`
	ConversationID string         `json:"conversation_id"`
	System         string         `json:"system"`
	Category       int            `json:"category"`
	Type           string         `json:"type,omitempty"`
	Abstention     bool           `json:"abstention,omitempty"` // the right answer is to decline (its group abstains: LoCoMo adversarial, LongMemEval _abs)
	Group          string         `json:"group,omitempty"`      // the summary row: a group of the dataset (Manifest.DatasetGroups)
	Question       string         `json:"question"`
	Gold           string         `json:"gold"`
	Prediction     string         `json:"prediction"`
	ContextTokens  int            `json:"context_tokens"`
	Usage          membench.Usage `json:"usage"`
	Cached         bool           `json:"cached,omitempty"`
	// Hashes of the document (context), prompt and target, as every logged
	// sample carries, so two runs can be compared sample by sample.
	ContextSHA256 string `json:"context_sha256"`
	PromptSHA256  string `json:"prompt_sha256"`
	TargetSHA256  string `json:"target_sha256"`
}

// Abstains is datasets.Question.Abstains for a record: the flag the run
// wrote (readers never re-derive it from the question id).
func (a AnswerRecord) Abstains() bool { return a.Abstention }

// legacyLoCoMo are the groups of LoCoMo's categories 1-5, in category
// order, as binaries derived them before answer records carried their
// group. It is frozen: it reads those runs, whatever datasets say now.
var legacyLoCoMo = []DatasetGroup{
	{Name: "multi-hop"}, {Name: "temporal"}, {Name: "open-domain"}, {Name: "single-hop"},
	{Name: "adversarial", Abstains: true},
}

// upgrade gives a record written before answers carried their group the
// group and abstention flag its binary derived: LoCoMo's category (5
// abstains even unflagged), else "abstention" for a flagged question,
// else its question type, else "all".
func (a *AnswerRecord) upgrade() {
	if a.Group != "" {
		return
	}
	switch {
	case a.Category >= 1 && a.Category <= len(legacyLoCoMo):
		g := legacyLoCoMo[a.Category-1]
		a.Group, a.Abstention = g.Name, a.Abstention || g.Abstains
	case a.Category != 0:
		a.Group = "unknown"
	case a.Abstention:
		a.Group = "abstention"
	case a.Type != "":
		a.Group = a.Type
	default:
		a.Group = "all"
	}
}

// Appender writes JSON lines to one file, safe for concurrent use. It is
// the one writer of every run artifact that grows line by line.
type Appender struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// OpenAppender opens path for appending JSON lines (see OpenAppend).
func OpenAppender(path string) (*Appender, error) {
	f, err := OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &Appender{f: f, w: bufio.NewWriter(f)}, nil
}

// OpenAppend opens a JSON-lines file for appending. A torn last line left
// by an interrupted writer is cut off first: readers skip it anyway, and a
// new line appended to it would glue onto it and corrupt the file.
func OpenAppend(path string) (*os.File, error) {
	if err := dropTornTail(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// dropTornTail truncates path just after its last newline, if the file
// does not end with one.
func dropTornTail(path string) error {
	f, err := openIfThere(path, os.O_RDWR)
	if f == nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	end := st.Size()
	buf := make([]byte, 64<<10)
	for pos := end; pos > 0; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			if cut := pos + int64(i) + 1; cut < end {
				return f.Truncate(cut)
			}
			return nil
		}
	}
	if end > 0 {
		return f.Truncate(0) // a single torn line
	}
	return nil
}

// openIfThere opens path with flag; a missing file gives a nil file and
// no error (it reads as empty).
func openIfThere(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// Write appends one record in one write, so a crash loses at most that
// line: json.Marshal's bytes and a newline.
func (a *Appender) Write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	// a.w is empty here: every write through it is flushed.
	_, err = a.f.Write(b)
	return err
}

// WriteRaw appends pre-encoded JSON lines in one piece, so concurrent
// conversations' dumps never interleave.
func (a *Appender) WriteRaw(b []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(b)
	return a.w.Flush()
}

func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Flush()
	return a.f.Close()
}

// ReadJSONL decodes every line of path into a T. A missing file is empty; a
// torn last line (from an interrupted run) is skipped; any other bad line
// is an error naming the file and line. Lines may be of any length. Records
// with a Check method (Judgment) are checked, so a score of 5 is
// refused where it is read rather than skewing every statistic after it.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := openIfThere(path, os.O_RDONLY)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	// Sized once: growing by appends copied the records again and again
	// into fresh memory, a tenth of a warm rerun's summary.
	lines, err := countLines(f)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, lines)
	err = jsonl.Each(f, func(n int, b []byte, last bool) error {
		if len(bytes.TrimSpace(b)) == 0 {
			return nil
		}
		var v T
		// encoding/json's semantics on the newer decoder (go-json-experiment's
		// v1 package, what encoding/json becomes with GOEXPERIMENT=jsonv2):
		// the same values, about twice as fast, and reading a run's records
		// is most of a rerun that has nothing left to do.
		if err := jsonv1.Unmarshal(b, &v); err != nil {
			if last {
				return nil // torn by an interrupted writer; resume rewrites it
			}
			return fmt.Errorf("%s line %d: %v (fix or delete the line)", path, n, err)
		}
		if u, ok := any(&v).(interface{ upgrade() }); ok {
			u.upgrade() // written by an older membench
		}
		if c, ok := any(&v).(interface{ Check() error }); ok {
			if err := c.Check(); err != nil {
				return fmt.Errorf("%s line %d: %v (fix or delete the line)", path, n, err)
			}
		}
		out = append(out, v)
		return nil
	})
	if err != nil || len(out) == 0 {
		return nil, err // nil for no records, as before the sizing
	}
	return out, nil
}

// countLines counts f's lines (an unterminated last one too) through a
// small buffer and rewinds f: a capacity for its records, no more (the
// file may grow meanwhile).
func countLines(f *os.File) (int, error) {
	bp := lineBufs.Get().(*[]byte)
	defer lineBufs.Put(bp)
	n := 1
	for {
		k, err := f.Read(*bp)
		n += bytes.Count((*bp)[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	_, err := f.Seek(0, io.SeekStart)
	return n, err
}

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// WriteJSON writes v atomically (temp file + rename) so a reader never sees
// a half-written file and an earlier version is replaced only when complete.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path via a temp file and rename.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes 0600 files; artifacts are as readable as the JSONL ones.
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name()) // no half-written temp file is left behind
	}
	return err
}

// Verdicts keeps the last line per (system, question, judge), as a resumed
// or re-judged run means it, and splits off invalid verdicts (the judge's
// model gave none): they are no verdict, so accuracy and agreement leave
// them out, and summaries count them. A judge's repeated verdicts on one
// question become one (CollapseRepeats), so every reader sees one verdict
// per (system, question, judge); RepeatVerdicts keeps them apart.
func Verdicts(js []Judgment) (valid, invalid []Judgment) {
	last := CollapseRepeats(LastBy(js, Judgment.Key))
	if len(last) > 0 {
		valid = make([]Judgment, 0, len(last))
	}
	for _, j := range last {
		if j.Invalid {
			invalid = append(invalid, j)
		} else {
			valid = append(valid, j)
		}
	}
	return valid, invalid
}

// WriteJSONLines writes records as JSON lines atomically (the whole file at
// once), for artifacts derived entirely from other inputs.
func WriteJSONLines(path string, recs []any) error {
	var buf []byte
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	return WriteFileAtomic(path, buf)
}

// Judgment is one line of judgments.jsonl: one judge's verdict on one
// question of one system.
type Judgment struct {
	QuestionID string  `json:"question_id"`
	System     string  `json:"system"`
	Judge      string  `json:"judge"`
	Correct    bool    `json:"correct"`
	Score      float64 `json:"score"` // 0..1; F1/BLEU value for metric judges, 1, 0.5 (PARTIAL) or 0 for verdict judges
	Reason     string  `json:"reason,omitempty"`
	Raw        string  `json:"raw,omitempty"` // raw model verdict text
	// Invalid: the judge's model gave no verdict (Raw holds its reply).
	// Readers leave it out of accuracy and count it; a rerun re-asks it.
	Invalid bool `json:"invalid,omitempty"`
	// Repeat is which of a judge's repeated verdicts this is (judge spec
	// repeats=N: 0..N-1); absent in older files, which means 0.
	Repeat int `json:"repeat,omitempty"`
	// CountedWrong: an invalid verdict a reader counts as WRONG
	// (--invalid-as wrong, InvalidAsWrong); never written by a run.
	CountedWrong bool `json:"counted_wrong,omitempty"`
}

// InvalidAsWrong is js with every invalid verdict turned into a WRONG one
// (score 0) marked CountedWrong, so readers score it and still count it.
func InvalidAsWrong(js []Judgment) []Judgment {
	out := make([]Judgment, len(js))
	for i, j := range js {
		if j.Invalid {
			j.Invalid, j.CountedWrong, j.Correct, j.Score = false, true, false, 0
		}
		out[i] = j
	}
	return out
}

// Check refuses a judgment no judge writes: a score outside [0, 1] (or not
// a number), or correct contradicting the score (correct at 0, wrong at 1;
// every threshold lies in (0, 1]). ReadJSONL calls it on every line.
func (j *Judgment) Check() error {
	switch {
	case math.IsNaN(j.Score) || j.Score < 0 || j.Score > 1:
		return fmt.Errorf("judge %s on %s: score %v is outside [0, 1]; scores are fractions (1 = correct)", j.Judge, j.QuestionID, j.Score)
	case j.Correct && j.Score == 0:
		return fmt.Errorf("judge %s on %s: \"correct\": true contradicts \"score\": 0; make them agree", j.Judge, j.QuestionID)
	case !j.Correct && j.Score == 1:
		return fmt.Errorf("judge %s on %s: \"correct\": false contradicts \"score\": 1; make them agree", j.Judge, j.QuestionID)
	}
	return nil
}

// Key identifies the (system, question, judge) a line is about; readers keep
// the last line per key.
// A repeat past the first is its own key.
func (j Judgment) Key() string {
	k := j.System + "\x00" + j.QuestionID + "\x00" + j.Judge
	if j.Repeat != 0 {
		k += "\x00" + strconv.Itoa(j.Repeat)
	}
	return k
}

// ReplayInfo records a run reproduced from a bundle.
type ReplayInfo struct {
	Bundle   string `json:"bundle"`
	Membench string `json:"bundle_membench"` // version that wrote the bundle
	Replies  int    `json:"replies"`
	Fresh    int64  `json:"fresh_calls"`       // calls the bundle lacked, sent to the backend (--replay-fallback)
	Partial  bool   `json:"partial,omitempty"` // the bundle was made before its run finished
}

// DropMemoryOf removes from a run's memory.jsonl the lines of conversations
// keep rejects, rewriting the file atomically only when there are any. A
// resumed run calls it for conversations without a build line: their dump
// was written before a kill and is written again by the rebuild.
func DropMemoryOf(dir string, keep func(conversation string) bool) error {
	path := filepath.Join(dir, MemoryFile)
	f, err := openIfThere(path, os.O_RDONLY)
	if f == nil {
		return err
	}
	defer f.Close()
	var out bytes.Buffer
	dropped := false
	err = jsonl.Each(f, func(n int, b []byte, last bool) error {
		if len(bytes.TrimSpace(b)) == 0 {
			return nil
		}
		var head struct {
			Conv string `json:"conversation_id"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			if last {
				dropped = true // torn by a kill
				return nil
			}
			return fmt.Errorf("%s line %d: %v (fix or delete the line)", path, n, err)
		}
		if !keep(head.Conv) {
			dropped = true
			return nil
		}
		out.Write(b)
		out.WriteByte('\n')
		return nil
	})
	if err != nil || !dropped {
		return err
	}
	return WriteFileAtomic(path, out.Bytes())
}
